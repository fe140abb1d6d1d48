"""The preview pane: the selected note rendered, its best chunk in view, its rank explained.

Reading and rendering run on a pool thread (a big note must not freeze the window), and so does
loading the note's images
(:mod:`explorer.gui.preview.images`: regular files inside the vault, bounded);
the HTML is set on the GUI thread.  The note browser loads nothing itself:
:meth:`NoteBrowser.loadResource` serves the images the worker loaded and an empty image for
every other name (remote, outside the vault, a FIFO, a device, too large), so Qt never falls
back to reading a file on its own.  Links open in the system browser, and only when clicked;
``tag``/``path`` links ask the window to add a filter.  Names and titles from the vault are shown
with :func:`~explorer.display.safe_text` (a bidi override cannot disguise them).

Where links lead comes from :mod:`explorer.gui.preview.note_links`: in the window from the index,
through the vault's session; for a pane on its own, from the vault's folder.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import shiboken6
from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QPoint,
    QRegularExpression,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QContextMenuEvent,
    QDesktopServices,
    QImage,
    QKeySequence,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.gui.core.session import VaultSession
from explorer.gui.core.theme import is_dark, tints
from explorer.gui.core.workers import BACKGROUND, run_in_pool
from explorer.gui.preview.chunk_strip import GROUP, ChunkStrip, ChunkTextDialog, read_note_chunks
from explorer.gui.preview.images import NoteImages, load_images, refusal
from explorer.gui.preview.note_links import LinksOf, NoteLinks
from explorer.preview.document import load_note
from explorer.preview.explain import ARITHMETIC_URL, explain_html
from explorer.preview.links import VaultLinks
from explorer.preview.markdown import image_sources, replace_images
from explorer.preview.note import BEST_ANCHOR, opened_from_link_html, parse_filter_url, render_note
from explorer.preview.obsidian import (
    anchor_name,
    parse_callout_url,
    parse_missing_url,
    parse_note_url,
)
from explorer.preview.style import Colours, document_css
from explorer.search.explain.explanation import Explanation, hit_explanation
from explorer.search.explain.note_dates import NoteDates, note_dates
from explorer.search.explain.scoring import ExplainContext
from explorer.search.fusion.results import Hit
from explorer.search.lists.chunk_scores import ChunkView, NoteChunks
from explorer.search.query.query import Query
from explorer.vault.obsidian import is_obsidian_vault

#: The reader's group of the preview's questions about the shown note's dates.
DATES_GROUP = "preview-dates"

#: The most of the preview's height the explain block takes (it scrolls beyond that).
EXPLAIN_SHARE = 0.55
#: What a rendered note that links to other notes or files has in its HTML.
_LINKED = re.compile(r'href="vault-(?:note|missing):')
#: The words of a chunk's first line the preview looks for to find the chunk in the rendered
#: note (markup and link syntax are gone there; the words are not).
_FIND_WORDS = 6


def palette_colours(palette: QPalette) -> Colours:
    t = tints(palette)
    dark = is_dark(palette)
    return Colours(
        highlight=t.highlight.name(),
        highlight_text=t.highlight_text.name(),
        chunk=t.chunk.name(),
        muted=palette.color(QPalette.ColorRole.PlaceholderText).name(),
        code="#2b2b2e" if dark else "#f2f2f2",
        fts=t.fts_bar.name(),
        vector=t.vector_bar.name(),
        recency=t.recency_bar.name(),
        dark=dark,
        surface=palette.color(QPalette.ColorRole.Base).name(),
    )


class NoteBrowser(QTextBrowser):
    """A ``QTextBrowser`` that loads nothing itself: it shows the images it is given."""

    #: Alt+Left / Alt+Right while the note has the focus (``True``: forward).  The browser's own
    #: history is unused (the note is set as HTML), so its slots ask the pane's.
    historyRequested = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vault: Path | None = None
        self.images = NoteImages()  # the shown note's images, loaded off the GUI thread
        # The latest names answered with nothing (tests look at it; bounded: a note may name
        # thousands, and every re-render asks again).
        self.blocked: deque[str] = deque(maxlen=1000)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.history_actions: list[QAction] = []  # Back and Forward, set by the pane
        self.note_actions: list[QAction] = []  # Open in Obsidian, set by the pane

    def top_position(self) -> int | None:
        """The place in the text at the top of the view (``None`` at the very top): what the
        reader reads, kept when the text reflows (:meth:`show_position`)."""
        if self.verticalScrollBar().value() <= 0:
            return None
        return self.cursorForPosition(QPoint(0, 0)).position()

    def show_position(self, position: int | None) -> None:
        """Scroll so that ``position`` of the text is at the top of the view."""
        bar = self.verticalScrollBar()
        if position is None:
            bar.setValue(0)
            return
        cursor = QTextCursor(self.document())
        cursor.setPosition(max(0, min(position, self.document().characterCount() - 1)))
        bar.setValue(bar.value() + self.cursorRect(cursor).top())

    def resizeEvent(self, event: QResizeEvent) -> None:
        # The text reflows: the passage read stays at the top, not the scroll bar's pixels.
        position = self.top_position()
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.show_position(position)

    def context_menu(self, pos: QPoint) -> QMenu:
        """The note's context menu: Back and Forward first, then what opens the note elsewhere
        (those of its actions that are visible), then the usual copy and select."""
        menu = self.createStandardContextMenu(pos)
        first = menu.actions()[0] if menu.actions() else None
        menu.insertActions(first, self.history_actions)  # type: ignore[arg-type]
        menu.insertSeparator(first)  # type: ignore[arg-type]
        shown = [action for action in self.note_actions if action.isVisible()]
        if shown:
            menu.insertActions(first, shown)  # type: ignore[arg-type]
            menu.insertSeparator(first)  # type: ignore[arg-type]
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.context_menu(event.pos())
        menu.exec(event.globalPos())
        menu.deleteLater()

    def backward(self) -> None:
        self.historyRequested.emit(False)

    def forward(self) -> None:
        self.historyRequested.emit(True)

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        url = name if isinstance(name, QUrl) else QUrl(name)
        if url.isRelative() and self.document() is not None:
            url = self.document().baseUrl().resolved(url)
        if type == int(QTextDocument.ResourceType.ImageResource):
            image = self.images.get(url) if self.vault is not None else None
            if image is not None:
                return image
            self.blocked.append(url.toString())
            return QImage()  # shown as nothing; never "no answer", which makes Qt read the file
        self.blocked.append(url.toString())
        return QByteArray()  # style sheets, linked documents: notes have none to load


@dataclass(frozen=True)
class _Rendered:
    path: str
    html: str
    error: str | None = None
    images: NoteImages = field(default_factory=NoteImages)
    title: str | None = None
    links: VaultLinks | None = None


@dataclass
class _Place:
    """One stop of the preview's history: a note, how it was reached, where the reader was."""

    path: str
    hit: tuple[Hit, Query | None, ExplainContext] | None = None  # shown as this search hit
    via: str | None = None  # the note whose link opened it
    anchor: str | None = None  # the heading (or ``^block``) to scroll to when first shown
    scroll: int | None = None  # where the reader was when they left it
    toggled: frozenset[str] = frozenset()  # callouts the reader folded or unfolded

    def key(self) -> tuple[object, ...]:
        """What the rendered HTML depends on (besides the note and the palette)."""
        hit = self.hit[0] if self.hit is not None else None
        return (self.path, hit, self.toggled)


#: The preview's narrowest, in average characters.
MIN_CHARS = 34


class PreviewPane(QWidget):
    """Explain block above, the rendered note below (in a splitter), with a history.

    A hit selected in the results starts a new trail; a link in the note (or :meth:`open_note`)
    goes further along it, and Back/Forward (Alt+Left/Alt+Right) walk it, each note at the
    scroll position the reader left it at."""

    filterRequested = Signal(str, str)  # kind ("tag" | "path"), value
    #: The vault-relative path of the note the preview shows, each time it shows another one
    #: (a hit selected, a link followed, Back or Forward).
    note_opened = Signal(str)
    #: A sentence for the status bar (an unresolved link was clicked…).
    message = Signal(str)
    #: Open in Obsidian, on the shown note's vault-relative path (Obsidian vaults only).
    obsidianRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # A column of a few words is no preview: the panels beside the window give way first.
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * MIN_CHARS)
        self.explain = QTextBrowser(self)
        self.explain.setObjectName("explain")
        self.explain.setOpenLinks(False)
        self.explain.setPlaceholderText("Select a hit to see why it ranks where it does.")
        self.explain.anchorClicked.connect(self._explain_link_clicked)
        #: Whether the explain block shows the fused score's arithmetic (the formula with its
        #: numbers), or only the score and a link that shows it: the ranks and the evidence
        #: fit a narrow pane, the arithmetic is read when wanted.
        self.arithmetic = False
        #: The explanation the explain block shows (``None``: a note opened from a link).
        self.explanation: Explanation | None = None
        #: Whether the explain block is sized to its text; no longer once the reader drags
        #: the handle between it and the note (their choice stays).
        self.fit_explain = True
        layout_of_explain = self.explain.document().documentLayout()
        # Fitted once the layout pass that changed the text's size is over: a splitter told
        # new sizes from inside its own share-out applies them in part (a gap under the block).
        layout_of_explain.documentSizeChanged.connect(
            lambda _size: QTimer.singleShot(0, self._fit_explain)
        )
        self.note = NoteBrowser(self)
        self.note.setObjectName("note")
        self.note.setPlaceholderText("The selected note is shown here.")
        self.note.anchorClicked.connect(self._link_clicked)
        self.note.historyRequested.connect(self._history_key)
        self.title = QLabel(self)
        self.title.setObjectName("previewTitle")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setWordWrap(True)
        self.back_action = QAction("Back", self)
        self.back_action.setIconText("◀")
        self.back_action.setShortcut(QKeySequence("Alt+Left"))
        self.back_action.setToolTip("Back to the previous note (Alt+Left)")
        self.back_action.triggered.connect(self.back)
        self.forward_action = QAction("Forward", self)
        self.forward_action.setIconText("▶")
        self.forward_action.setShortcut(QKeySequence("Alt+Right"))
        self.forward_action.setToolTip("Forward (Alt+Right)")
        self.forward_action.triggered.connect(self.forward)
        for action in (self.back_action, self.forward_action):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.setEnabled(False)
            self.addAction(action)
        self.note.history_actions = [self.back_action, self.forward_action]
        self.obsidian_action = QAction("Open in O&bsidian", self)
        self.obsidian_action.setToolTip("Open the shown note in the Obsidian app")
        self.obsidian_action.setVisible(False)  # until an Obsidian vault is opened
        self.obsidian_action.triggered.connect(self._open_in_obsidian)
        self.note.note_actions = [self.obsidian_action]
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(2)
        for action, name in ((self.back_action, "back"), (self.forward_action, "forward")):
            button = QToolButton(self)
            button.setObjectName(name)
            button.setDefaultAction(action)
            button.setAutoRaise(True)
            top.addWidget(button)
        top.addWidget(self.title, 1)
        #: When the shown note was modified and created, and where creation comes from.
        self.dates = QLabel(self)
        self.dates.setObjectName("previewDates")
        self.dates.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.dates.setWordWrap(True)
        self.dates.setEnabled(False)  # drawn muted, as the note's other facts
        self.dates.hide()  # until the index has answered for the shown note
        self.chunk_strip = ChunkStrip(self)
        self.chunk_strip.hide()  # until the shown hit's chunks are read
        self.chunk_strip.chunkClicked.connect(self.scroll_to_chunk)
        self.chunk_strip.chunkOpened.connect(self.open_chunk)
        self.chunk_dialog: ChunkTextDialog | None = None
        #: Whether the chunks of the shown hit are still being read.
        self.chunks_pending = False
        self._chunks_key: tuple[str, int] | None = None
        note_area = QWidget(self)
        beside = QHBoxLayout(note_area)
        beside.setContentsMargins(0, 0, 0, 0)
        beside.setSpacing(2)
        beside.addWidget(self.note, 1)
        beside.addWidget(self.chunk_strip)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.explain)
        self.splitter.addWidget(note_area)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([120, 600])
        self.splitter.splitterMoved.connect(self._explain_sized_by_reader)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.dates)
        layout.addWidget(self.splitter, 1)
        self._renders = f"preview-render-{id(self)}"  # its group of BACKGROUND's jobs
        self._place: _Place | None = None
        self._origin: _Place | None = None  # the hit the current trail started from
        self._back: list[_Place] = []
        self._forward: list[_Place] = []
        self.shown_path: str | None = None
        self._shown_key: tuple[object, ...] | None = None
        self._shown_html = ""
        self.vault: Path | None = None
        self.session: VaultSession | None = None
        self.links = NoteLinks(self)  # where links lead, kept current
        self.links.notesChanged.connect(self.notes_changed)
        self._apply_css()

    # ------------------------------------------------------------------ showing

    def set_vault(self, vault: Path, session: VaultSession | None = None) -> None:
        """Show notes of ``vault``; with ``session`` (the window's), links lead to the notes
        its index holds, read through it, else to the notes in the vault's folder."""
        self.vault = vault
        self.session = session
        self.links.set_vault(vault, session)
        self.note.vault = vault
        self.obsidian_action.setVisible(is_obsidian_vault(vault))
        self.clear()

    def notes_changed(self, paths: Iterable[str] = ()) -> None:
        """Notes were added, changed, renamed or deleted: links are resolved afresh, and the
        shown note is rendered again (where the reader is) if it is one of ``paths`` or has
        links or embeds, which may lead elsewhere now."""
        paths = set(paths)
        self.links.changed(paths)
        touched = self.shown_path is not None and self.shown_path in paths
        if touched or _LINKED.search(self._shown_html):
            self.refresh()

    def clear(self) -> None:
        BACKGROUND.supersede(self._renders)
        self._place = self._origin = None
        self._back.clear()
        self._forward.clear()
        self._update_actions()
        self.shown_path = None
        self.obsidian_action.setEnabled(False)
        self._shown_key = None
        self._shown_html = ""
        self.title.clear()
        self.explain.clear()
        self.note.clear()
        self.note.images = NoteImages()
        self._chunks_key = None
        self.chunks_pending = False
        self.chunk_strip.clear()
        if self.chunk_dialog is not None:
            self.chunk_dialog.close()

    @property
    def history(self) -> tuple[list[str], str | None, list[str]]:
        """The paths behind, shown and ahead (nearest last, then nearest first)."""
        shown = self._place.path if self._place is not None else None
        ahead = [p.path for p in reversed(self._forward)]
        return [p.path for p in self._back], shown, ahead

    def show_hit(self, hit: Hit, query: Query | None, ctx: ExplainContext) -> None:
        """Explain ``hit`` now; render its note in the background.  A new hit starts a new
        trail; the hit the reader followed links from, selected again (a re-search after a
        change), is kept up to date without taking them back."""
        current = (hit, query, ctx)
        place, origin = self._place, self._origin
        if origin is not None and origin.path == hit.path and place is not origin:
            origin.hit = current
            return
        if place is not None and place is origin and place.path == hit.path:
            place.hit = current
        else:
            self._back.clear()
            self._forward.clear()
            place = self._origin = _Place(hit.path, current)
        self._go(place)

    def reopen_hit(self, hit: Hit, query: Query | None, ctx: ExplainContext) -> None:
        """The reader chose again the hit they had followed links from: show it again, as the
        next step of the history (Back returns to the note the links led to).  Nothing happens
        when the preview already shows it, or when ``hit`` is not the hit the trail began at
        (a new hit comes through :meth:`show_hit`)."""
        origin, current = self._origin, self._place
        if origin is None or current is None or origin.path != hit.path or current is origin:
            return
        origin.hit = (hit, query, ctx)
        self._leave_for_new_step()
        self._go(origin)

    @Slot(str)
    def open_note(self, path: str, heading: str | None = None) -> None:
        """Show the note ``path`` (vault-relative) at ``heading`` (a heading's text, or
        ``^id`` for a block), as the next step of the history."""
        if self.vault is None:
            return
        normal = posixpath.normpath(path) if path else ""
        if not normal or normal.startswith(("../", "/")) or normal in (".", ".."):
            self.message.emit(f"Not a note of this vault: {safe_text(path)}")
            return
        path = normal
        current = self._leave_for_new_step()
        if current is not None and current.path == path:
            place = _Place(path, current.hit, current.via, heading, None, current.toggled)
        else:
            place = _Place(path, via=current.path if current is not None else None, anchor=heading)
        self._go(place)

    def _leave_for_new_step(self) -> _Place | None:
        """The shown place goes on the Back list where the reader left it, and Forward is
        emptied (a new step of the history begins); returns that place."""
        current = self._place
        if current is not None:
            current.scroll = self.note.verticalScrollBar().value()
            self._back.append(current)
        self._forward.clear()
        return current

    @Slot()
    def back(self) -> None:
        """The note shown before this one, where the reader left it."""
        self._step(self._back, self._forward)

    @Slot()
    def forward(self) -> None:
        self._step(self._forward, self._back)

    def _step(self, source: list[_Place], target: list[_Place]) -> None:
        if not source or self._place is None:
            return
        self._place.scroll = self.note.verticalScrollBar().value()
        target.append(self._place)
        self._go(source.pop())

    def _history_key(self, forward: bool) -> None:
        if forward:
            self.forward()
        else:
            self.back()

    def _open_in_obsidian(self) -> None:
        if self.shown_path is not None:
            self.obsidianRequested.emit(self.shown_path)

    def _update_actions(self) -> None:
        self.back_action.setEnabled(bool(self._back))
        self.forward_action.setEnabled(bool(self._forward))

    def _go(self, place: _Place, keep_scroll: bool = False) -> None:
        """Make ``place`` the shown one: explain it now, render it if its HTML differs."""
        self._place = place
        self._update_actions()
        colours = palette_colours(self.palette())
        if place.hit is not None:
            self.title.setText(f"<b>{html.escape(safe_text(place.hit[0].title))}</b>")
        else:
            self.title.setText(f"<b>{html.escape(safe_text(PurePosixPath(place.path).stem))}</b>")
        self._explain(place, colours)
        self._ask_chunks(place)
        self._ask_dates(place.path)
        if place.key() == self._shown_key and not keep_scroll:
            self._position(place)  # the same note rendered the same: only move to the spot
            return
        self._render(place, keep_scroll)

    def _explain(self, place: _Place, colours: Colours) -> None:
        if place.hit is not None:
            hit, query, ctx = place.hit
            self.explanation = hit_explanation(hit, ctx, query.raw if query is not None else "")
            self.explain.setHtml(
                explain_html(self.explanation, colours, arithmetic=self.arithmetic)
            )
        else:
            self.explanation = None
            self.explain.setHtml(opened_from_link_html(place.path, place.via, colours))

    def set_arithmetic(self, shown: bool) -> None:
        """Show the fused score's arithmetic in the explain block, or only the score."""
        if shown == self.arithmetic:
            return
        self.arithmetic = shown
        if self._place is not None:
            self._explain(self._place, palette_colours(self.palette()))

    def _explain_link_clicked(self, url: QUrl) -> None:
        if url.toString() == ARITHMETIC_URL:
            self.set_arithmetic(not self.arithmetic)

    def _render(self, place: _Place, keep_scroll: bool) -> None:
        if self.vault is None:
            return
        request = BACKGROUND.supersede(self._renders)
        self.links.fetch(
            lambda links_of, generation: self._render_with(
                request, place, keep_scroll, links_of, generation
            )
        )

    def _render_with(
        self,
        request: int,
        place: _Place,
        keep_scroll: bool,
        links_of: LinksOf,
        generation: int | None,
    ) -> None:
        """Render ``place`` on a pool thread, its links from ``links_of`` (run there too, and
        kept for the next render: :meth:`NoteLinks.keep`)."""
        if not shiboken6.isValid(self) or not BACKGROUND.is_latest(self._renders, request):
            return  # closed, or a newer render is on its way
        vault = self.vault
        if vault is None:
            return
        colours = palette_colours(self.palette())
        query = place.hit[1] if place.hit is not None else None
        hit = place.hit[0] if place.hit is not None else None
        path = place.path
        toggled = place.toggled

        def work() -> _Rendered:
            links = links_of()
            try:
                doc = load_note(vault, path)
            except OSError as exc:
                reason = exc.strerror or exc
                return _Rendered(path, "", f"cannot read {safe_text(path)}: {reason}", links=links)
            rendered = render_note(doc, hit, query, colours, links, toggled)
            base = (vault / path).parent
            images = load_images(vault, base, image_sources(rendered))
            rendered = replace_images(rendered, lambda src: refusal(images, base, src))
            return _Rendered(path, rendered, images=images, title=doc.title, links=links)

        def done(result: _Rendered) -> None:
            if not shiboken6.isValid(self):  # the pane was closed while the note was read
                return
            self.links.keep(vault, result.links, generation)
            self._rendered(place, keep_scroll, result)

        run_in_pool(work, on_result=done, group=self._renders, request=request)

    def _rendered(self, place: _Place, keep_scroll: bool, result: _Rendered) -> None:
        if place is not self._place:
            return  # a newer selection is on its way
        opened = result.path != self.shown_path
        self._shown_key = place.key()
        if result.error:
            self.note.setPlainText(result.error)
            self.shown_path = result.path
            self._shown_html = ""
        elif result.path == self.shown_path and result.html == self._shown_html:
            # The same note, rendered the same: the reader stays where they are, unless this
            # place has a spot of its own (Back to where they were, a heading).
            keep_scroll = keep_scroll or (place.scroll is None and place.anchor is None)
        else:
            scroll = self.note.verticalScrollBar().value()
            self.note.images = result.images  # before the HTML, whose layout asks for them
            if self.vault is not None:
                base = (self.vault / result.path).parent
                self.note.document().setBaseUrl(QUrl.fromLocalFile(str(base) + "/"))
            self.note.setHtml(result.html)
            self._shown_html = result.html
            self.shown_path = result.path
            if keep_scroll:
                self.note.verticalScrollBar().setValue(scroll)
        if place.hit is None and result.title:
            self.title.setText(f"<b>{html.escape(safe_text(result.title))}</b>")
        if not keep_scroll:
            self._position(place)
        self.obsidian_action.setEnabled(True)
        if opened:
            self.note_opened.emit(result.path)

    def _position(self, place: _Place) -> None:
        """Scroll to where ``place`` should be read: where the reader left it, else its
        heading or block, else the best chunk of its hit, else the top."""
        bar = self.note.verticalScrollBar()
        if place.scroll is not None:
            bar.setValue(place.scroll)
        elif place.anchor and self._has_anchor(anchor_name(place.anchor)):
            self.note.scrollToAnchor(anchor_name(place.anchor))
        elif place.hit is not None and self._has_anchor(BEST_ANCHOR):
            self.note.scrollToAnchor(BEST_ANCHOR)
        else:
            bar.setValue(0)

    def _has_anchor(self, name: str) -> bool:
        return f'name="{name}"' in self._shown_html

    def _ask_dates(self, path: str) -> None:
        """Read when ``path`` was modified and created on the reader's thread."""
        session = self.session
        if session is None:
            self.dates.hide()
            return
        reply = session.query(lambda c: note_dates(c.db.conn, path), group=DATES_GROUP)
        reply.answered.connect(lambda dates: self._dates_read(path, dates))
        reply.failed.connect(lambda _exc: self._dates_read(path, None))

    def _dates_read(self, path: str, dates: NoteDates | None) -> None:
        if not shiboken6.isValid(self) or self._place is None or self._place.path != path:
            return  # another note is shown now
        self.dates.setVisible(dates is not None)
        self.dates.setText(dates.line() if dates is not None else "")

    # ------------------------------------------------------------------ the chunk strip

    def _ask_chunks(self, place: _Place) -> None:
        """Read the chunks of ``place``'s hit for the strip on the reader's thread (a note
        opened from a link, or a search without vectors, has no strip)."""
        ctx = place.hit[2] if place.hit is not None else None
        session, vault = self.session, self.vault
        model = ctx.model if ctx is not None and ctx.query_vector is not None else None
        if session is None or vault is None or ctx is None or model is None:
            self._chunks_key = None
            self.chunks_pending = False
            self.chunk_strip.clear()
            return
        key = (place.path, id(ctx.query_vector))
        if key == self._chunks_key:
            return
        self._chunks_key = key
        self.chunks_pending = True
        self.chunk_strip.clear()
        path, vector = place.path, ctx.query_vector
        reply = session.query(
            lambda c: read_note_chunks(c, vault, path, vector, model), group=GROUP
        )
        reply.answered.connect(lambda result: self._chunks_read(key, result))
        reply.failed.connect(lambda _exc: self._chunks_read(key, None))

    def _chunks_read(self, key: tuple[str, int], chunks: NoteChunks | None) -> None:
        if not shiboken6.isValid(self) or key != self._chunks_key:
            return  # another note (or query) is shown now
        self.chunks_pending = False
        self.chunk_strip.set_chunks(chunks)

    def _chunk(self, seq: int) -> ChunkView | None:
        chunks = self.chunk_strip.chunks
        if chunks is None:
            return None
        return next((c for c in chunks.chunks if c.seq == seq), None)

    @Slot(int)
    def scroll_to_chunk(self, seq: int) -> None:
        """Scroll the note to the chunk ``seq`` of the strip: the boxed passage for the best
        chunk, else the first words of the chunk where they are in the rendered note (the one
        nearest its place, if they occur more than once), else its share of the note."""
        chunk = self._chunk(seq)
        chunks = self.chunk_strip.chunks
        if chunk is None or chunks is None:
            return
        hit = self._place.hit[0] if self._place is not None and self._place.hit else None
        if (
            hit is not None
            and hit.best_chunk == (chunk.start, chunk.end)
            and self._has_anchor(BEST_ANCHOR)
        ):
            self.note.scrollToAnchor(BEST_ANCHOR)
            return
        share = (chunk.start - chunks.body_start) / max(1, chunks.length - chunks.body_start)
        bar = self.note.verticalScrollBar()
        found = self._find_chunk(chunk, share)
        if found is not None:
            bar.setValue(bar.value() + self.note.cursorRect(found).top() - 4)
        else:
            bar.setValue(round(share * (bar.maximum() + bar.pageStep())))

    def _find_chunk(self, chunk: ChunkView, share: float) -> QTextCursor | None:
        """Where the first words of ``chunk`` are in the rendered note."""
        text = chunk.embedded
        if chunk.title_added is not None:
            text = text[len(chunk.title_added) + 1 :]
        words: list[str] = []
        for line in text.splitlines():
            words = re.findall(r"\w+", line)[:_FIND_WORDS]
            if len(words) >= 2 or (words and len(words[0]) > 3):
                break
        if not words:
            return None
        pattern = QRegularExpression(r"\W+".join(re.escape(w) for w in words))
        doc = self.note.document()
        size = max(1, doc.characterCount())
        best: QTextCursor | None = None
        cursor = doc.find(pattern, 0)
        for _ in range(50):  # a phrase in the note fifty times: the nearest of those
            if cursor.isNull():
                break
            if best is None or abs(cursor.position() / size - share) < abs(
                best.position() / size - share
            ):
                best = QTextCursor(cursor)
            cursor = doc.find(pattern, cursor)
        return best

    @Slot(int)
    def open_chunk(self, seq: int) -> None:
        """Show the text embedded for the chunk ``seq`` of the strip, in the chunk dialog."""
        chunk, chunks = self._chunk(seq), self.chunk_strip.chunks
        if chunk is None or chunks is None:
            return
        if self.chunk_dialog is None:
            self.chunk_dialog = ChunkTextDialog(self)
        self.chunk_dialog.show_chunk(chunks, chunk)
        self.chunk_dialog.show()
        self.chunk_dialog.raise_()

    def refresh(self) -> None:
        """Render the shown note again (after a palette change or a change of the note),
        where the reader is — unless the place is not shown yet (a re-search's hit whose
        render this one supersedes): it is then scrolled to its spot, the best passage."""
        place = self._place
        if place is not None:
            self._go(place, keep_scroll=place.key() == self._shown_key)

    def _fit_explain(self) -> None:
        """Give the explain block the height of its text (up to :data:`EXPLAIN_SHARE` of the
        pane), so that no nested scroll bar cuts its last line; the note gets the rest."""
        total = sum(self.splitter.sizes())
        if total <= 0 or not self.fit_explain:
            return
        frame = 2 * self.explain.frameWidth()
        text = int(self.explain.document().size().height()) + frame + 2
        least = 2 * self.explain.fontMetrics().height() + frame  # room for the placeholder
        wanted = max(least, min(text, int(total * EXPLAIN_SHARE)))
        if self.splitter.sizes()[0] != wanted:
            self.splitter.setSizes([wanted, total - wanted])

    def _explain_sized_by_reader(self, _position: int, _index: int) -> None:
        self.fit_explain = False

    # ------------------------------------------------------------------ links and palette

    def _link_clicked(self, url: QUrl) -> None:
        text = url.toString(QUrl.ComponentFormattingOption.FullyEncoded)
        parsed = parse_filter_url(text)
        if parsed is not None:
            self.filterRequested.emit(*parsed)
            return
        note = parse_note_url(text)
        if note is not None:
            path, heading = note
            self.open_note(path or (self.shown_path or ""), heading)
            return
        missing = parse_missing_url(text)
        if missing is not None:
            self.message.emit(f"No note named “{safe_text(missing)}” in this vault")
            return
        callout = parse_callout_url(text)
        if callout is not None and self._place is not None:
            self._place.toggled = self._place.toggled ^ {callout}
            self._go(self._place, keep_scroll=True)
            return
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            return
        if url.hasFragment() and not url.path():
            self.note.scrollToAnchor(url.fragment())
            return
        resolved = self.note.document().baseUrl().resolved(url)
        if resolved.isLocalFile() and self.vault is not None:
            target = Path(resolved.toLocalFile())
            try:
                target.resolve().relative_to(self.vault.resolve())
            except (ValueError, OSError):
                return
            if target.exists():
                QDesktopServices.openUrl(resolved)

    def _apply_css(self) -> None:
        self.note.document().setDefaultStyleSheet(document_css(palette_colours(self.palette())))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_css()
            self.refresh()
