"""The chunk strip beside the preview: the vector side of the shown hit, chunk by chunk.

The note runs from the strip's top (where its body starts) to its bottom; each chunk the index
cut it into is a band at its place, shaded by the query's cosine to it (from pale, the note's
weakest chunk, to full amber, its best), with a mark at every cut.  A filled triangle points at
the best chunk (which is also outlined), a hollow one at the runner-up.  Its tooltip
gives the chunk's cosine and its rank among every chunk of the vault for the query; a click
asks the preview to scroll to the chunk, a double-click (or the context menu) opens
:class:`ChunkTextDialog`: the exact text that was embedded and what was left out.

What the strip shows is computed on the window's reader thread (:func:`read_note_chunks`,
asked through :meth:`~explorer.gui.core.session.VaultSession.query` in its own group, so a newer
selection supersedes it), from the query vector the search kept: no model call.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy.typing as npt
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QContextMenuEvent, QHelpEvent, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMenu,
    QTextBrowser,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.gui.core.theme import tints, washed
from explorer.live.reader import ReadContext
from explorer.preview.document import load_note
from explorer.preview.style import shown
from explorer.search.lists.chunk_scores import ChunkView, NoteChunks, note_chunks, word_pieces_of

#: The strip's width in pixels: a gutter for the marks, then the bands.
STRIP_WIDTH = 22
GUTTER = 7
#: The thinnest a band is drawn, however short its chunk.
MIN_BAND = 3
#: Bands at least this tall on average get a line across at each cut (thinner ones a tick in
#: the gutter: lines across would hide their shades).
LINED_BAND = 7
#: The query group the strip asks in (a newer selection supersedes the older request).
GROUP = "chunk-strip"


def read_note_chunks(
    ctx: ReadContext, vault: Path, path: str, query_vector: npt.ArrayLike, model: str
) -> NoteChunks | None:
    """The chunks of ``path`` for the query (on the reader's thread): the matrix of ``model``
    brought up to date, the note read from disk as it is now (what was left out is said only
    when it is still what was indexed), the model's word pieces when it is loaded."""
    vectors = ctx.vectors(model)
    vectors.refresh(ctx.db)
    try:
        doc = load_note(vault, path)
        source = (doc.text, doc.body_start) if doc.readable else None
    except OSError:
        source = None
    embedder = ctx.provider.peek() if ctx.provider.name == model else None
    pieces = word_pieces_of(embedder) if embedder is not None else None
    return note_chunks(ctx.db.conn, vectors, query_vector, path, source=source, pieces=pieces)


def chunk_summary(chunks: NoteChunks, chunk: ChunkView) -> str:
    """What a band's tooltip says, plain text, one fact a line."""
    lines = [
        f"Chunk {chunk.seq + 1} of {len(chunks.chunks)} · characters {chunk.start}–{chunk.end}"
    ]
    if chunk.cosine is None:
        lines.append("no vector yet (waiting to be embedded)")
    else:
        lines.append(
            f"cosine {chunk.cosine:.3f} · rank {chunk.rank} of the vault's "
            f"{chunks.vault_chunks} chunks for this query"
        )
    best, second = chunks.best, chunks.runner_up
    if best is not None and chunk.seq == best.seq:
        place = f"rank {chunks.note_rank}" if chunks.note_rank is not None else "unranked"
        lines.append(f"the note's best chunk: the vector list ranks the note by it ({place})")
    elif second is not None and chunk.seq == second.seq:
        lines.append("the note's runner-up chunk")
    if chunk.cut_by_model:
        lines.append(f"cut by the model: {chunk.pieces} word pieces, it reads {chunk.limit}")
    if chunk.left_out:
        lines.append("left out: " + "; ".join(chunk.left_out))
    lines.append("Click: go to it · Double-click: the text that was embedded")
    return "\n".join(lines)


class ChunkStrip(QWidget):
    """One band per chunk of the shown note, at its place, shaded by the query's cosine."""

    #: A band was clicked: scroll the preview to the chunk (its ``seq``).
    chunkClicked = Signal(int)
    #: A band was double-clicked (or its menu chosen): show the text embedded for it.
    chunkOpened = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chunkStrip")
        self.setFixedWidth(STRIP_WIDTH)
        self.setMouseTracking(True)
        self.chunks: NoteChunks | None = None
        self.setToolTip("")  # tooltips come from the band under the pointer

    def sizeHint(self) -> QSize:
        return QSize(STRIP_WIDTH, 200)

    def set_chunks(self, chunks: NoteChunks | None) -> None:
        """Show ``chunks`` (``None``: nothing, the strip hidden)."""
        self.chunks = chunks if chunks is not None and chunks.chunks else None
        self.setVisible(self.chunks is not None)
        self.update()

    def clear(self) -> None:
        self.set_chunks(None)

    # ------------------------------------------------------------------ geometry

    def band_rects(self) -> list[tuple[ChunkView, QRect]]:
        """Each chunk and where its band is drawn (top to bottom, in the note's order)."""
        chunks = self.chunks
        if chunks is None:
            return []
        top, span = chunks.body_start, max(1, chunks.length - chunks.body_start)
        height = max(1, self.height())
        out = []
        for chunk in chunks.chunks:
            y0 = round((chunk.start - top) / span * height)
            y1 = round((chunk.end - top) / span * height)
            y0 = max(0, min(y0, height - MIN_BAND))
            width = self.width() - GUTTER
            out.append((chunk, QRect(GUTTER, y0, width, max(MIN_BAND, y1 - y0))))
        return out

    def chunk_at(self, pos: QPoint) -> ChunkView | None:
        """The chunk whose band is under ``pos`` (the later one where two overlap)."""
        found = None
        for chunk, rect in self.band_rects():
            if rect.top() <= pos.y() <= rect.bottom():
                found = chunk
        return found

    # ------------------------------------------------------------------ drawing

    def shade(self, chunk: ChunkView) -> QColor:
        """The band's colour: the base mixed with amber by the cosine, from the note's weakest
        chunk (or 0, if it is below) to its best (full amber); a chunk without a vector, none.
        The numbers are in the tooltip: the shades show where in the note the query matches."""
        chunks, base = self.chunks, self.palette().base().color()
        best = chunks.best if chunks is not None else None
        if chunk.cosine is None or best is None or best.cosine is None or chunks is None:
            return base
        low = max(0.0, min(c.cosine for c in chunks.chunks if c.cosine is not None))
        if best.cosine <= low:
            share = 1.0 if chunk.cosine >= best.cosine else 0.0
        else:
            share = max(0.0, min(1.0, (chunk.cosine - low) / (best.cosine - low)))
        amber = tints(self.palette()).vector_bar
        share = 0.1 + 0.9 * share**1.5  # the strongest stand out from the rest
        return washed(amber, base, keep=share)

    def paintEvent(self, _event: object) -> None:
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.base())
        chunks = self.chunks
        if chunks is None:
            return
        best, second = chunks.best, chunks.runner_up
        rects = self.band_rects()
        for chunk, rect in rects:
            painter.fillRect(rect, self.shade(chunk))
        text = palette.text().color()
        cut = QColor(text)
        cut.setAlpha(90)
        painter.setPen(QPen(cut, 1))
        lined = self.height() >= LINED_BAND * len(rects)
        for _chunk, rect in rects[1:]:  # where the note was cut
            left = rect.left() if lined else GUTTER - 3
            right = rect.right() if lined else GUTTER - 1
            painter.drawLine(left, rect.top(), right, rect.top())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for chunk, rect in rects:
            if best is not None and chunk.seq == best.seq:
                self._mark(painter, rect, text, filled=True)
                painter.setPen(QPen(text, 1))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(rect.adjusted(0, 0, -1, -1))
            elif second is not None and chunk.seq == second.seq:
                self._mark(painter, rect, text, filled=False)
        painter.end()

    @staticmethod
    def _mark(painter: QPainter, rect: QRect, colour: QColor, *, filled: bool) -> None:
        """A triangle in the gutter pointing at ``rect``: filled for the best chunk, hollow
        for the runner-up."""
        y = rect.center().y()
        points = [QPointF(0.5, y - 4.5), QPointF(0.5, y + 4.5), QPointF(GUTTER - 1.0, y)]
        painter.setPen(QPen(colour, 1))
        painter.setBrush(colour if filled else Qt.BrushStyle.NoBrush)
        painter.drawPolygon(points)

    # ------------------------------------------------------------------ the pointer

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            chunk = self.chunk_at(event.pos())
            if chunk is None or self.chunks is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), chunk_summary(self.chunks, chunk), self)
            return True
        return super().event(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        chunk = self.chunk_at(event.position().toPoint())
        if chunk is not None and event.button() == Qt.MouseButton.LeftButton:
            self.chunkClicked.emit(chunk.seq)
            return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        chunk = self.chunk_at(event.position().toPoint())
        if chunk is not None and event.button() == Qt.MouseButton.LeftButton:
            self.chunkOpened.emit(chunk.seq)
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        chunk = self.chunk_at(event.pos())
        if chunk is None:
            return
        menu = QMenu(self)
        menu.addAction(f"Go to chunk {chunk.seq + 1}", lambda: self.chunkClicked.emit(chunk.seq))
        menu.addAction("Show the text embedded…", lambda: self.chunkOpened.emit(chunk.seq))
        menu.exec(event.globalPos())
        menu.deleteLater()


def _shown(text: str) -> str:
    """``text`` as HTML text line by line (:func:`~explorer.preview.style.shown`), line ends
    kept."""
    return "\n".join(shown(line) for line in text.split("\n"))


def embedded_html(chunk: ChunkView, muted: str) -> str:
    """The text embedded for ``chunk`` as the dialog shows it: an added title muted, the part
    the model did not read struck through, every character of it there."""
    text = chunk.embedded
    read = len(text) if chunk.read is None else chunk.read
    parts = []
    at = 0
    if chunk.title_added is not None:
        at = len(chunk.title_added) + 1
        parts.append(f'<span style="color:{muted}">{_shown(text[:at])}</span>')
    parts.append(_shown(text[at : max(at, read)]))
    if read < len(text):
        parts.append(
            f'<span style="color:{muted}; text-decoration:line-through">'
            f"{_shown(text[read:])}</span>"
        )
    return f'<pre style="white-space:pre-wrap">{"".join(parts)}</pre>'


class ChunkTextDialog(QDialog):
    """The exact text embedded for one chunk, and what of the note's span was left out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chunkText")
        self.setModal(False)
        self.resize(560, 420)
        self.facts = QLabel(self)
        self.facts.setObjectName("chunkFacts")
        self.facts.setWordWrap(True)
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        self.text = QTextBrowser(self)
        self.text.setObjectName("chunkEmbedded")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.facts)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.chunk: ChunkView | None = None

    def show_chunk(self, chunks: NoteChunks, chunk: ChunkView) -> None:
        self.chunk = chunk
        muted = self.palette().placeholderText().color().name()
        name = safe_text(chunks.path)
        self.setWindowTitle(f"Chunk {chunk.seq + 1} of {len(chunks.chunks)} — {name}")
        facts = [html.escape(line) for line in chunk_summary(chunks, chunk).splitlines()[:-1]]
        said = []
        if chunk.title_added is not None:
            said.append(
                f"Where it stands, “{shown(chunk.title_added)}” (the note's title and "
                "the headings above it), was put in front of the chunk (muted below)."
            )
        if chunk.read is None:
            said.append("Whether the model cut it is not known (the model is not loaded).")
        elif chunk.cut_by_model:
            said.append(
                f"The model read {chunk.limit} of its {chunk.pieces} word pieces: the struck-out "
                "end below was not read."
            )
        else:
            said.append(f"The model read all of it ({chunk.pieces} of {chunk.limit} word pieces).")
        if chunks.changed:
            said.append("The note changed since it was indexed: what was left out is not said.")
        elif not chunk.left_out:
            said.append("Nothing of the note's characters in this span was left out.")
        said.append("Code blocks are embedded as they are written.")
        self.facts.setText("<br/>".join(facts + said))
        self.text.setHtml(embedded_html(chunk, muted))
