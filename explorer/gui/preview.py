"""The preview pane: the selected note rendered, its best chunk in view, its rank explained.

Reading and rendering run on a pool thread (a big note must not freeze the window), and so does
loading the note's images (:mod:`explorer.gui.images`: regular files inside the vault, bounded);
the HTML is set on the GUI thread.  The note browser loads nothing itself:
:meth:`NoteBrowser.loadResource` serves the images the worker loaded and an empty image for
every other name (remote, outside the vault, a FIFO, a device, too large), so Qt never falls
back to reading a file on its own.  Links open in the system browser, and only when clicked;
``tag``/``path`` links ask the window to add a filter.  Names and titles from the vault are shown
with :func:`~explorer.display.safe_text` (a bidi override cannot disguise them).
"""

from __future__ import annotations

import html
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QImage, QPalette, QTextDocument
from PySide6.QtWidgets import QLabel, QSplitter, QTextBrowser, QVBoxLayout, QWidget

from explorer.display import safe_text
from explorer.gui.images import NoteImages, load_images, refusal
from explorer.gui.render import (
    BEST_ANCHOR,
    Colours,
    ExplainContext,
    document_css,
    explain_html,
    image_sources,
    load_note,
    parse_filter_url,
    render_note,
    replace_images,
)
from explorer.gui.theme import is_dark, tints
from explorer.gui.workers import Latest, run_in_pool
from explorer.search.hybrid import Hit
from explorer.search.query import Query


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
    )


class NoteBrowser(QTextBrowser):
    """A ``QTextBrowser`` that loads nothing itself: it shows the images it is given."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vault: Path | None = None
        self.images = NoteImages()  # the shown note's images, loaded off the GUI thread
        # The latest names answered with nothing (tests look at it; bounded: a note may name
        # thousands, and every re-render asks again).
        self.blocked: deque[str] = deque(maxlen=1000)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

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


class PreviewPane(QWidget):
    """Explain block above, the rendered note below (in a splitter)."""

    filterRequested = Signal(str, str)  # kind ("tag" | "path"), value
    #: The vault-relative path of the note the preview shows, each time it shows another one.
    note_opened = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.explain = QTextBrowser(self)
        self.explain.setObjectName("explain")
        self.explain.setOpenLinks(False)
        self.explain.setPlaceholderText("Select a hit to see why it ranks where it does.")
        self.note = NoteBrowser(self)
        self.note.setObjectName("note")
        self.note.setPlaceholderText("The selected note is shown here.")
        self.note.anchorClicked.connect(self._link_clicked)
        self.title = QLabel(self)
        self.title.setObjectName("previewTitle")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setWordWrap(True)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.explain)
        self.splitter.addWidget(self.note)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([120, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.splitter, 1)
        self._latest = Latest()
        self._current: tuple[Hit, Query | None, ExplainContext] | None = None
        self.shown_path: str | None = None
        self._shown_html = ""
        self.vault: Path | None = None
        self._apply_css()

    # ------------------------------------------------------------------ showing

    def set_vault(self, vault: Path) -> None:
        self.vault = vault
        self.note.vault = vault
        self.clear()

    def clear(self) -> None:
        self._latest.next()
        self._current = None
        self.shown_path = None
        self._shown_html = ""
        self.title.clear()
        self.explain.clear()
        self.note.clear()
        self.note.images = NoteImages()

    def show_hit(self, hit: Hit, query: Query | None, ctx: ExplainContext) -> None:
        """Explain ``hit`` now; render its note in the background."""
        self._current = (hit, query, ctx)
        colours = palette_colours(self.palette())
        self.title.setText(f"<b>{html.escape(safe_text(hit.title))}</b>")
        self.explain.setHtml(explain_html(hit, ctx, colours))
        self._render(hit.path, hit, query)

    @Slot(str)
    def open_note(self, path: str, heading: str | None = None) -> None:
        """Show the note ``path`` (vault-relative), not as a search hit (first version: the
        heading and the history come next)."""
        self._current = None
        self.title.setText(f"<b>{html.escape(safe_text(path))}</b>")
        self.explain.setHtml("Opened from a link: not a search hit, no ranking to explain.")
        self._render(path, None, None)

    def _render(self, path: str, hit: Hit | None, query: Query | None) -> None:
        colours = palette_colours(self.palette())
        if self.vault is None:
            return
        request = self._latest.next()
        vault = self.vault

        def work() -> _Rendered:
            try:
                doc = load_note(vault, path)
            except OSError as exc:
                reason = exc.strerror or exc
                return _Rendered(path, "", f"cannot read {safe_text(path)}: {reason}")
            rendered = render_note(doc, hit, query, colours)
            base = (vault / path).parent
            images = load_images(vault, base, image_sources(rendered))
            rendered = replace_images(rendered, lambda src: refusal(images, base, src))
            return _Rendered(path, rendered, images=images)

        run_in_pool(work, on_result=lambda r: self._rendered(request, r))

    def _rendered(self, request: int, result: _Rendered) -> None:
        if not self._latest.is_current(request):
            return  # a newer selection is on its way
        if result.path != self.shown_path:
            self.note_opened.emit(result.path)
        if result.error:
            self.note.setPlainText(result.error)
            self.shown_path = result.path
            return
        if result.path == self.shown_path and result.html == self._shown_html:
            return  # the same note, rendered the same: keep the reader's scroll position
        self.note.images = result.images  # before the HTML, whose layout asks for them
        if self.vault is not None:
            base = (self.vault / result.path).parent
            self.note.document().setBaseUrl(QUrl.fromLocalFile(str(base) + "/"))
        self.note.setHtml(result.html)
        self._shown_html = result.html
        self.shown_path = result.path
        if f'name="{BEST_ANCHOR}"' in result.html:
            self.note.scrollToAnchor(BEST_ANCHOR)
        else:
            self.note.verticalScrollBar().setValue(0)

    def refresh(self) -> None:
        """Render the current hit again (after a palette change or a change of the note)."""
        if self._current is not None:
            self.show_hit(*self._current)

    # ------------------------------------------------------------------ links and palette

    def _link_clicked(self, url: QUrl) -> None:
        text = url.toString()
        parsed = parse_filter_url(text)
        if parsed is not None:
            self.filterRequested.emit(*parsed)
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
