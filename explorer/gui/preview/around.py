"""View ▸ Around This Note: for the note open in the preview, the notes that link to it and the
notes nearest to it in meaning.

Backlinks come from the index's links table (each with the line that links, the link's words
marked); related notes from the chunk vectors already stored
(:func:`explorer.search.answers.related.related`: no model call), each with its cosine, the ones not
linked either way in bold with a "not linked" badge (the neighbours worth a link), the linked
ones muted.  A click on either list opens that note in the preview, as the next step of its
history.

The panel is a dock beside the preview: it follows the preview (:attr:`PreviewPane.note_opened`)
and the session's live events (:meth:`AroundPanel.index_changed`: a note saved, vectors
embedded), and reads through the vault session
(:meth:`~explorer.gui.core.session.VaultSession.query`:
its reader's connection and vector matrix, :func:`read_around`).  Only the newest request's
answer is shown; nothing is read while the dock is hidden.
"""

from __future__ import annotations

import contextlib
import html
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAbstractTextDocumentLayout, QFont, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHeaderView,
    QLabel,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.gui.core.session import VaultSession
from explorer.gui.core.theme import tints
from explorer.index.links import backlinks
from explorer.live import LiveEvent, VectorsStored
from explorer.live.events import changes_results
from explorer.live.reader import ReadContext
from explorer.search.answers.related import LinkLookup, RelatedNotes, related, stored_links
from explorer.search.explain.explain import NoteNotIndexed

#: The reader's group of the dock's questions: a newer one supersedes the older.
GROUP = "around"
#: Related notes listed.
RELATED_LIMIT = 10
#: A change of the index is shown after this much quiet (saves come in bursts).
REFRESH_MS = 400
#: The item role holding an entry's note path, and the one holding a backlink's HTML.
PATH_ROLE = int(Qt.ItemDataRole.UserRole) + 1
HTML_ROLE = int(Qt.ItemDataRole.UserRole) + 2

#: The panel's narrowest (a backlink's line wraps to the panel's width).
MIN_WIDTH = 240
#: What a linked neighbour's badge says, by direction.
LINKED_BADGE = {"outgoing": "linked →", "incoming": "← links here", "both": "↔ linked"}
UNLINKED_BADGE = "not linked"


@dataclass(frozen=True, slots=True)
class BacklinkEntry:
    """A note that links to the shown one: where, and with which words."""

    source: str  # the linking note's path
    title: str  # its title
    line: str  # the line that links, as a reader sees it (links as their shown words)
    line_no: int  # 1-based
    shown: tuple[str, ...] = ()  # the shown words of its links to the note, on that line
    embed: bool = False


#: ``(conn, path) -> the backlinks of path``, or ``None`` when the index has no links table.
BacklinkLookup = Callable[[sqlite3.Connection, str], list[BacklinkEntry] | None]


def stored_backlinks(conn: sqlite3.Connection, path: str) -> list[BacklinkEntry] | None:
    """The notes linking to ``path`` (:func:`explorer.index.links.backlinks`), each line with
    the shown words of its links to ``path`` (one query for all); ``None`` when the index has
    no links table."""
    if not _has_table(conn, "links"):
        return None
    shown: dict[tuple[str, int], list[str]] = {}
    rows = conn.execute(
        "SELECT n.path, l.line, l.shown FROM links l JOIN notes n ON n.id = l.note_id "
        "WHERE l.to_id = (SELECT id FROM notes WHERE path = ?) ORDER BY l.seq",
        (path,),
    )
    for source, line, words in rows:
        shown.setdefault((str(source), int(line)), []).append(str(words))
    return [
        BacklinkEntry(
            b.path, b.title, b.text, b.line, tuple(shown.get((b.path, b.line), ())), b.embed
        )
        for b in backlinks(conn, path)
    ]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return row.fetchone() is not None


@dataclass(frozen=True, slots=True)
class Around:
    path: str
    title: str
    backlinks: list[BacklinkEntry] | None  # None: the index stores no links
    related: RelatedNotes


def read_around(
    ctx: ReadContext,
    path: str,
    model: str,
    limit: int = RELATED_LIMIT,
    *,
    backlinks: BacklinkLookup = stored_backlinks,
    links: LinkLookup = stored_links,
) -> Around:
    """What is around ``path`` (the session's reader thread): its backlinks and its nearest
    notes by ``model``'s vectors, from the reader's shared matrix."""
    try:
        near = related(ctx.db, ctx.vectors(model), path, limit, links=links)
    except NoteNotIndexed:
        stem = PurePosixPath(path).stem
        near = RelatedNotes(path, stem, reason="this note is not in the index yet")
        return Around(path, stem, [], near)
    return Around(path, near.title, backlinks(ctx.db.conn, path), near)


# ----------------------------------------------------------------------------- showing a line


def line_html(line: str, shown: Sequence[str]) -> str:
    """The linking ``line`` as HTML: escaped, each of the ``shown`` words (the link's text)
    marked where it stands, longest first, whole words only."""
    words = sorted({w.strip() for w in shown if w.strip()}, key=len, reverse=True)
    text = safe_text(line)
    if not words:
        return html.escape(text)
    pattern = re.compile(
        "|".join(rf"(?<!\w){re.escape(safe_text(w))}(?!\w)" for w in words), re.IGNORECASE
    )
    out: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[pos : match.start()]))
        out.append(f"<b><u>{html.escape(match.group(0))}</u></b>")
        pos = match.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


class HtmlDelegate(QStyledItemDelegate):
    """Paints an item's :data:`HTML_ROLE` rich text (a backlink's title and its line), wrapped
    to the width of the view's column."""

    def __init__(self, view: QTreeWidget) -> None:
        super().__init__(view)
        self.view = view

    def _document(
        self, option: QStyleOptionViewItem, index: QModelIndex, width: int
    ) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(3)
        doc.setHtml(str(index.data(HTML_ROLE) or ""))
        doc.setTextWidth(max(80, width))
        return doc

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        if not isinstance(index, QModelIndex) or index.data(HTML_ROLE) is None:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else None
        opt.text = ""
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        doc = self._document(opt, index, opt.rect.width())
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(role))
        painter.save()
        painter.translate(opt.rect.topLeft())
        painter.setClipRect(QRectF(0, 0, opt.rect.width(), opt.rect.height()))
        doc.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        if not isinstance(index, QModelIndex) or index.data(HTML_ROLE) is None:
            return super().sizeHint(option, index)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        width = self.view.columnWidth(index.column()) or self.view.viewport().width()
        doc = self._document(opt, index, width)
        return QSize(max(80, width), int(doc.size().height()))


# ----------------------------------------------------------------------------- the dock


class AroundPanel(QDockWidget):
    """Backlinks and related notes of the note the preview shows."""

    #: A listed note was clicked: open it in the preview (vault-relative path).
    openRequested = Signal(str)
    #: What the panel now lists (an :class:`Around`), each time it is shown.
    shown = Signal(object)
    failed = Signal(str)

    def __init__(self, model: str, parent: QWidget | None = None) -> None:
        super().__init__("Around This Note", parent)
        self.setObjectName("aroundDock")
        self.model = model  # the name the vectors are tagged with (the provider's)
        self.session: VaultSession | None = None
        self.reads = 0  # answers asked for (tests)
        self.path: str | None = None  # the note followed (the preview's)
        self.around: Around | None = None  # what is listed
        self.error: str | None = None
        self._stale = False  # the listed answer is older than the index or the note

        body = QWidget(self)
        self.heading = QLabel(body)
        self.heading.setObjectName("aroundTitle")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.backlinks_label = QLabel("Backlinks", body)
        self.backlinks_label.setObjectName("backlinksLabel")
        self.backlinks = QTreeWidget(body)
        self.backlinks.setObjectName("backlinks")
        self.backlinks.setHeaderHidden(True)
        self.backlinks.setColumnCount(1)
        self.backlinks.setRootIsDecorated(False)
        self.backlinks.setWordWrap(True)
        self.backlinks.setUniformRowHeights(False)
        self.backlinks.setItemDelegate(HtmlDelegate(self.backlinks))
        # Rows wrap to the column: lay them out again when the panel's width changes.
        self.backlinks.header().sectionResized.connect(lambda *_: self.backlinks.doItemsLayout())
        self.related_label = QLabel("Related notes", body)
        self.related_label.setObjectName("relatedLabel")
        self.related = QTreeWidget(body)
        self.related.setObjectName("related")
        self.related.setColumnCount(3)
        self.related.setHeaderLabels(["Note", "Cosine", "Link"])
        self.related.setRootIsDecorated(False)
        header = self.related.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        for tree in (self.backlinks, self.related):
            tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
            tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            tree.itemClicked.connect(self._clicked)
            tree.itemActivated.connect(self._clicked)
        self.backlinks_label.setBuddy(self.backlinks)
        self.related_label.setBuddy(self.related)

        top = QWidget(body)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.backlinks_label)
        top_layout.addWidget(self.backlinks, 1)
        bottom = QWidget(body)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.related_label)
        bottom_layout.addWidget(self.related, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, body)
        self.splitter.addWidget(top)
        self.splitter.addWidget(bottom)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 4, 6, 6)
        layout.setSpacing(4)
        layout.addWidget(self.heading)
        layout.addWidget(self.splitter, 1)
        body.setMinimumWidth(MIN_WIDTH)
        self.setWidget(body)

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self._read)
        self.visibilityChanged.connect(self._visibility_changed)
        self._fill(None)

    # ------------------------------------------------------------------ the vault

    def open_vault(self, session: VaultSession) -> None:
        """Follow ``session``'s vault: read through it, list again when its index changes."""
        self.close_vault()
        self.session = session
        session.liveEvent.connect(self._live_event)

    def close_vault(self) -> None:
        """Forget the vault (its session closes the connection)."""
        self.timer.stop()
        session, self.session = self.session, None
        if session is not None:
            with contextlib.suppress(RuntimeError, TypeError):  # the session may be gone
                session.drop(GROUP)  # an answer on its way is about that vault
                session.liveEvent.disconnect(self._live_event)
        self.path = None
        self.around = None
        self._fill(None)

    # ------------------------------------------------------------------ following

    def show_note(self, path: str) -> None:
        """The preview shows ``path``: list what is around it (now if the dock is shown)."""
        if path == self.path and not self._stale and self.around is not None:
            return
        self.path = path
        self._stale = True
        if self.isVisible():
            self.timer.stop()
            self._read()

    def _live_event(self, event: LiveEvent) -> None:
        # The note's own vectors stored (a first embedding may run for minutes before its
        # queue empties): its related notes can be listed now.
        own = isinstance(event, VectorsStored) and self.path in event.touched
        if changes_results(event) or own:
            self.index_changed()

    def index_changed(self) -> None:
        """The index changed (a note saved, vectors embedded): list again, after some quiet."""
        self._stale = True
        if self.path is not None and self.isVisible():
            self.timer.start()

    def _visibility_changed(self, visible: bool) -> None:
        if visible and self._stale and self.path is not None:
            self._read()

    def _read(self) -> None:
        session, path, model = self.session, self.path, self.model
        if session is None or path is None:
            return
        self._stale = False
        self.reads += 1
        if self.around is None or self.around.path != path:
            self.heading.setText(f"<b>{_escape(PurePosixPath(path).stem)}</b> — reading…")
        reply = session.query(lambda ctx: read_around(ctx, path, model), group=GROUP)
        reply.answered.connect(self._read_done)
        reply.failed.connect(self._read_failed)

    def _read_done(self, around: Around) -> None:
        self.around, self.error = around, None
        self._fill(around)
        self.shown.emit(around)

    def _read_failed(self, exc: Exception) -> None:
        self.around, self.error = None, safe_text(str(exc))
        self._fill(None)
        self.heading.setText(f"<b>Cannot list what is around this note</b> — {_escape(self.error)}")
        self.failed.emit(self.error)

    # ------------------------------------------------------------------ the lists

    def _fill(self, around: Around | None) -> None:
        self.backlinks.clear()
        self.related.clear()
        if around is None:
            self.heading.setText(
                "Open a note in the preview to see what links to it and what is near it in meaning."
            )
            self.backlinks_label.setText("Backlinks")
            self.related_label.setText("Related notes")
            return
        self.heading.setText(
            f"<b>{_escape(around.title)}</b><br><small>{_escape(around.path)}</small>"
        )
        self._fill_backlinks(around)
        self._fill_related(around.related)

    def _fill_backlinks(self, around: Around) -> None:
        found = around.backlinks
        if found is None:
            self.backlinks_label.setText("Backlinks — the index stores no links yet")
            return
        self.backlinks_label.setText(f"Backlinks ({len(found)})" if found else "No backlinks")
        for entry in found:
            item = QTreeWidgetItem([f"{entry.title} — {entry.line}"])
            item.setData(0, PATH_ROLE, entry.source)
            item.setData(
                0,
                HTML_ROLE,
                f"<b>{_escape(entry.title)}</b> <small>{_escape(entry.source)}:"
                f"{entry.line_no}{' · embeds it' if entry.embed else ''}</small><br>"
                f"{line_html(entry.line, entry.shown)}",
            )
            item.setToolTip(0, safe_text(f"{entry.source}, line {entry.line_no}"))
            self.backlinks.addTopLevelItem(item)

    def _fill_related(self, near: RelatedNotes) -> None:
        if near.reason is not None:
            self.related_label.setText(f"Related notes — {safe_text(near.reason)}")
            return
        unlinked = len(near.unlinked) if near.links_known else None
        count = f"{len(near.notes)}" + (f", {unlinked} not linked" if unlinked else "")
        self.related_label.setText(
            f"Related notes ({count})" if near.notes else "Related notes — none near in meaning"
        )
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
        accent = tints(self.palette()).vector_bar
        for note in near.notes:
            if not near.links_known:
                badge = ""
            elif note.linked:
                badge = LINKED_BADGE.get(note.direction or "", "linked")
            else:
                badge = UNLINKED_BADGE
            item = QTreeWidgetItem([safe_text(note.title), f"{note.cosine:.3f}", badge])
            item.setData(0, PATH_ROLE, note.path)
            item.setToolTip(0, safe_text(note.path))
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if near.links_known and not note.linked:
                font = QFont(item.font(0))
                font.setBold(True)
                for column in range(3):
                    item.setFont(column, font)
                item.setForeground(2, accent)
                item.setToolTip(2, "Near in meaning and not linked either way")
            elif note.linked:
                for column in range(3):
                    item.setForeground(column, muted)
            self.related.addTopLevelItem(item)

    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        path = item.data(0, PATH_ROLE)
        if path:
            self.openRequested.emit(str(path))

    # ------------------------------------------------------------------ for tests

    def listed(self) -> tuple[list[str], list[str]]:
        """The paths of the backlinks and of the related notes, as listed."""

        def paths(tree: QTreeWidget) -> list[str]:
            return [
                str(item.data(0, PATH_ROLE))
                for i in range(tree.topLevelItemCount())
                if (item := tree.topLevelItem(i)) is not None
            ]

        return paths(self.backlinks), paths(self.related)


def _escape(text: str) -> str:
    return html.escape(safe_text(text))
