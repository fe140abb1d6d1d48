"""The score distributions of the query on screen, so a person sees at once whether rank 1
stands out or sits in the bulk.

Left, the vector list: the query's best-chunk cosine with every note of the vault as a histogram
(:class:`~explorer.index.vectors.CosineSpread`, computed by the search from the product it ranks
with), the mean as a dashed line, each hit the vector list found as an amber mark.  Right, the
lexical list: each candidate's bm25 as a blue tick on the strip of the pass that found it
(phrase, all words, any word), hits solid and the rest faded.  The selected hit's marks are
drawn in the selection colour.

:func:`distributions` turns a response and its lists into plain data (what the panel draws and
what tests check); :class:`DistributionsPanel` paints it with ``QPainter``, in one strip a few
lines high under the results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.gui.core.theme import tints
from explorer.index.vectors import SPREAD_BINS
from explorer.search.fusion.results import Candidates, SearchResponse
from explorer.search.lists.lexical import PASSES
from explorer.search.query.options import Mode

#: The width of one bin of the vault's cosine histogram (:data:`SPREAD_BINS` over [-1, 1]).
BIN_WIDTH = 2.0 / SPREAD_BINS
GAP = 16  # between the two plots
PAD = 3


@dataclass(frozen=True)
class Mark:
    """One note's score on a plot: ``hit`` when it is among the hits on screen."""

    path: str
    value: float
    hit: bool = True


@dataclass(frozen=True)
class Distributions:
    """What the panel draws for one response."""

    #: The vault's cosines for this query (``notes`` 0: no vector list).
    notes: int = 0
    mean: float = 0.0
    std: float = 0.0
    #: The histogram's bins from ``low`` to ``high`` (the empty ends of [-1, 1] left out).
    bins: tuple[int, ...] = ()
    low: float = 0.0
    high: float = 1.0
    #: The hits the vector list found, at their cosines.
    cosines: tuple[Mark, ...] = ()
    #: The lexical list's candidates at their bm25, by the pass that found them.
    bm25: dict[str, tuple[Mark, ...]] = field(default_factory=dict)

    @property
    def has_vector(self) -> bool:
        return self.notes > 0

    @property
    def has_lexical(self) -> bool:
        return any(self.bm25.values())

    @property
    def bm25_max(self) -> float:
        return max((m.value for marks in self.bm25.values() for m in marks), default=0.0)

    def bin_of(self, cosine: float) -> int:
        """The index in :attr:`bins` of the bin ``cosine`` falls in."""
        index = int((cosine - self.low) / BIN_WIDTH)
        return min(max(index, 0), len(self.bins) - 1)


def distributions(response: SearchResponse | None, candidates: Candidates | None) -> Distributions:
    """The vault's cosines and the lexical list's bm25 for ``response`` (fused from
    ``candidates``), with its hits marked; empty for a listing or no response."""
    if response is None or candidates is None or response.listing:
        return Distributions()
    mode = response.options.mode
    hits = {h.path for h in response.hits}
    bm25: dict[str, tuple[Mark, ...]] = {}
    if mode != Mode.SEMANTIC:
        by_pass: dict[str, list[Mark]] = {name: [] for name in PASSES}
        for path, score, _ in candidates.lexical[: response.options.depth]:
            tier = candidates.lexical_tiers.get(path, 0)
            by_pass[PASSES[min(tier, len(PASSES) - 1)]].append(Mark(path, score, path in hits))
        bm25 = {name: tuple(marks) for name, marks in by_pass.items()}
    spread = response.spread
    if mode == Mode.FTS or not response.semantic.available or spread is None or not spread.notes:
        return Distributions(bm25=bm25)
    counts = spread.histogram
    filled = [i for i, n in enumerate(counts) if n]
    first, last = (
        (max(filled[0] - 1, 0), min(filled[-1] + 1, len(counts) - 1)) if filled else (0, 0)
    )
    cosines = tuple(
        Mark(h.path, h.vector_score)
        for h in response.hits
        if h.vector_rank is not None and h.vector_score is not None
    )
    return Distributions(
        notes=spread.notes,
        mean=spread.mean,
        std=spread.std,
        bins=tuple(counts[first : last + 1]),
        low=-1.0 + first * BIN_WIDTH,
        high=-1.0 + (last + 1) * BIN_WIDTH,
        cosines=cosines,
        bm25=bm25,
    )


class DistributionsPanel(QWidget):
    """The two plots side by side, a few lines high (see the module's docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("distributions")
        self.data = Distributions()
        self.selected: str | None = None
        # Never wider than the results pane makes it: the plots scale to the room they get.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setToolTip(
            "Left: this query's cosine with every note of the vault, the hits the vector list "
            "found marked (amber), the mean dashed: does the top hit stand out of the bulk?\n"
            "Right: the lexical list's bm25 by the pass that found each note (hits solid).\n"
            "The selected hit is marked in the selection colour."
        )

    def show_response(self, response: SearchResponse | None, candidates: Candidates | None) -> None:
        self.data = distributions(response, candidates)
        self.update()

    def select(self, path: str | None) -> None:
        if path != self.selected:
            self.selected = path
            self.update()

    # ------------------------------------------------------------------ geometry

    def _small(self) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
        return font

    def sizeHint(self) -> QSize:
        line = QFontMetrics(self._small()).height()
        return QSize(360, 5 * line + 2 * PAD)

    def minimumSizeHint(self) -> QSize:
        return QSize(120, self.sizeHint().height())

    def plots(self) -> tuple[QRectF, QRectF]:
        """The vector plot's and the lexical plot's areas (inside captions and labels)."""
        line = QFontMetrics(self._small()).height()
        half = (self.width() - GAP) / 2
        top, bottom = PAD + line, self.height() - PAD - line
        vector = QRectF(PAD, top, half - 2 * PAD, bottom - top)
        label = QFontMetrics(self._small()).horizontalAdvance("all words") + 6
        lexical = QRectF(half + GAP + label, top, half - label - PAD, bottom - top)
        return vector, lexical

    def x_of_cosine(self, cosine: float) -> float:
        area = self.plots()[0]
        span = self.data.high - self.data.low
        return area.left() + (cosine - self.data.low) / span * area.width() if span > 0 else 0.0

    def x_of_bm25(self, score: float) -> float:
        area = self.plots()[1]
        top = self.data.bm25_max
        return area.left() + (score / top if top > 0 else 0.0) * area.width()

    def y_of_pass(self, name: str) -> float:
        area = self.plots()[1]
        row = area.height() / len(PASSES)
        return area.top() + (PASSES.index(name) + 0.5) * row

    # ------------------------------------------------------------------ painting

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setFont(self._small())
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        faint = QColor(text)
        faint.setAlpha(90)
        vector_area, lexical_area = self.plots()
        line = QFontMetrics(self._small()).height()
        if self.data.has_vector:
            self._paint_vector(painter, vector_area, line, text, faint)
        else:
            self._caption(painter, vector_area, line, "Vector list: none for this result", faint)
        if self.data.has_lexical:
            self._paint_lexical(painter, lexical_area, line, text, faint)
        else:
            self._caption(painter, lexical_area, line, "Lexical list: no candidates", faint)
        painter.end()

    def _caption(
        self, painter: QPainter, area: QRectF, line: int, text: str, colour: QColor
    ) -> None:
        painter.setPen(colour)
        left = area.left() if area.left() < self.width() / 2 else self.width() / 2 + GAP
        box = QRectF(left, PAD, self.width() / 2 - GAP / 2 - PAD, line)
        shown = QFontMetrics(painter.font()).elidedText(
            text, Qt.TextElideMode.ElideRight, int(box.width())
        )
        painter.drawText(
            box, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown
        )

    def _paint_vector(
        self, painter: QPainter, area: QRectF, line: int, text: QColor, faint: QColor
    ) -> None:
        d = self.data
        self._caption(
            painter,
            area,
            line,
            f"Vector: cosine over {d.notes:,} notes · mean {d.mean:.2f} · σ {d.std:.2f}",
            text,
        )
        tallest = max(d.bins, default=0) or 1
        width = area.width() / max(len(d.bins), 1)
        for i, count in enumerate(d.bins):
            if count:
                height = max(1.0, count / tallest * area.height())
                bar = QRectF(area.left() + i * width, area.bottom() - height, width - 1, height)
                painter.fillRect(bar, faint)
        mean = QPen(text, 1, Qt.PenStyle.DashLine)
        painter.setPen(mean)
        x = self.x_of_cosine(d.mean)
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        colours = tints(self.palette())
        chosen = None
        for mark in d.cosines:
            if mark.path == self.selected:
                chosen = mark
                continue
            painter.setPen(QPen(colours.vector_bar, 2))
            x = self.x_of_cosine(mark.value)
            painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        if chosen is not None:
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 3))
            x = self.x_of_cosine(chosen.value)
            painter.drawLine(QPointF(x, area.top() - 2), QPointF(x, area.bottom() + 2))
        self._axis(painter, area, line, f"{d.low:.2f}", f"{d.high:.2f}", faint)

    def _paint_lexical(
        self, painter: QPainter, area: QRectF, line: int, text: QColor, faint: QColor
    ) -> None:
        d = self.data
        count = sum(len(marks) for marks in d.bm25.values())
        self._caption(painter, area, line, f"Lexical: bm25 by pass · {count:,} candidates", text)
        colours = tints(self.palette())
        row = area.height() / len(PASSES)
        tick = max(4.0, row - 4)
        faded = QColor(colours.fts_bar)
        faded.setAlpha(80)
        selection = self.palette().color(QPalette.ColorRole.Highlight)
        for name in PASSES:
            y = self.y_of_pass(name)
            painter.setPen(faint)
            label = QRectF(self.width() / 2 + GAP / 2, y - row / 2, area.left() - 6, row)
            label.setRight(area.left() - 6)
            painter.drawText(
                label, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), name
            )
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
            chosen = None
            for mark in d.bm25.get(name, ()):
                if mark.path == self.selected:
                    chosen = mark
                    continue
                painter.setPen(QPen(colours.fts_bar if mark.hit else faded, 2))
                x = self.x_of_bm25(mark.value)
                painter.drawLine(QPointF(x, y - tick / 2), QPointF(x, y + tick / 2))
            if chosen is not None:
                painter.setPen(QPen(selection, 3))
                x = self.x_of_bm25(chosen.value)
                painter.drawLine(QPointF(x, y - row / 2), QPointF(x, y + row / 2))
        self._axis(painter, area, line, "0", f"{d.bm25_max:.2f}", faint)

    @staticmethod
    def _axis(
        painter: QPainter, area: QRectF, line: int, low: str, high: str, colour: QColor
    ) -> None:
        painter.setPen(colour)
        box = QRectF(area.left(), area.bottom() + 1, area.width(), line)
        painter.drawText(box, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop), low)
        painter.drawText(box, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop), high)
