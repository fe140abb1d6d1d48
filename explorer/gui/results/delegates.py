"""Painting the results: one delegate for every cell, and the per-row contribution bar.

The delegate reads each cell's text, tint and colour from the model's cache in one call
(:meth:`ResultsModel.cell`, the same values the display, background and foreground roles give)
instead of letting ``initStyleOption`` ask the model for eight roles one by one: a repaint of
the table is then a few hundred cheap calls, not two thousand, which matters while the
background threads compete for the interpreter.  The background (tint or selection) is drawn
by the style, like any item view cell; the text is elided per column (:func:`elided`: a path as
"folder/…/name.md", so its file name stays whole; its tooltip holds all of it).

The bar's full width is the top hit's fused score, so rows compare at a glance; the blue part is
the lexical contribution, the amber part the vector contribution (the same colours as the row
tints and the legend), and with the recency prior on a green part its contribution, a third
one; faded like the rows' tints when no hit is a close match.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from explorer.gui.core.theme import tints, washed
from explorer.gui.results.results_model import Column, ResultsModel, ResultsProxy, alignment
from explorer.search.fusion.results import Hit

Index = QModelIndex | QPersistentModelIndex

BAR_HEIGHT = 8
BAR_MARGIN = 6
TEXT_MARGIN = 5


def recency_share(hit: Hit | None, share: tuple[float, float]) -> float:
    """The recency prior's part of ``hit``'s bar, on the scale of the lists' parts ``share``
    (each a contribution over the top hit's score), 0 when the prior is off."""
    if hit is None:
        return 0.0
    prior = hit.contributions.get("recency", 0.0)
    lists = hit.contributions.get("fts", 0.0) + hit.contributions.get("vector", 0.0)
    if prior <= 0 or lists <= 0:
        return 0.0
    return prior * (share[0] + share[1]) / lists


def elide_path(path: str, metrics: QFontMetrics, width: int) -> str:
    """``path`` cut to ``width`` pixels where it must be: its middle folders first
    ("folder/…/name.md": where a note lives and what tells it from its neighbours), then its
    first folder ("fo…/name.md"), then all of it ("…/name.md"); where even the name does not
    fit, what the title column does not say comes first: the first folder, then the name's
    start, cut at its end ("ops/deploy-ru…", a top-level "deck-opti…"; the extension goes
    before the name does)."""
    if metrics.horizontalAdvance(path) <= width:
        return path
    folders, _, name = path.rpartition("/")
    first = folders.split("/", 1)[0]
    if folders and first != folders:
        shortened = f"{first}/…/{name}"
        if metrics.horizontalAdvance(shortened) <= width:
            return shortened
    tail = f"…/{name}"
    left = width - metrics.horizontalAdvance(tail)
    if folders and left >= metrics.horizontalAdvance(first[:2]):
        start = first
        while start and metrics.horizontalAdvance(start) > left:
            start = start[:-1]
        return f"{start}{tail}"
    if folders and left >= 0:
        return tail
    stem = PurePosixPath(name).stem or name
    if folders:
        folder = f"{first}/" if first == folders else f"{first}/…/"
        room = width - metrics.horizontalAdvance(folder)
        if room < metrics.horizontalAdvance(stem[:2] + "…"):  # no room for the name
            return metrics.elidedText(f"{first}/…", Qt.TextElideMode.ElideRight, width)
        return folder + metrics.elidedText(stem + "…", Qt.TextElideMode.ElideRight, room)
    return metrics.elidedText(stem + "…", Qt.TextElideMode.ElideRight, width)


def elided(text: str, column: int, metrics: QFontMetrics, width: int) -> str:
    """``text`` as a cell of ``column`` ``width`` pixels wide shows it: a path by
    :func:`elide_path`, any other text cut at its end ("…"; the tooltip holds all of it)."""
    if column == Column.PATH:
        return elide_path(text, metrics, width)
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class ResultsDelegate(QStyledItemDelegate):
    """Paints every cell of the results view from :class:`ResultsModel`'s cache."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self.view = view

    def _source(self, index: Index) -> tuple[ResultsModel, int] | None:
        model = index.model()
        if isinstance(model, ResultsProxy):
            source = model.sourceModel()
            if isinstance(source, ResultsModel):
                return source, model.mapToSource(index).row()
        if isinstance(model, ResultsModel):
            return model, index.row()
        return None

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        found = self._source(index)
        if found is None:
            super().paint(painter, option, index)
            return
        model, row = found
        column = index.column()
        text, brush, colour = model.cell(row, column)
        opt = QStyleOptionViewItem(option)
        if brush is not None:
            opt.backgroundBrush = brush
        view = self.view
        style = view.style()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, view)
        rect: QRect = opt.rect
        palette: QPalette = opt.palette
        if column == Column.SHARE:
            share = model.share(row)
            parts = (*share, recency_share(model.hit(row), share))
            self._paint_bar(painter, rect, parts, palette, selected, model.muted)
            return
        if not text:
            return
        painter.save()
        if selected:
            painter.setPen(palette.color(QPalette.ColorRole.HighlightedText))
        else:
            painter.setPen(colour or palette.color(QPalette.ColorRole.Text))
        inner = rect.adjusted(TEXT_MARGIN, 0, -TEXT_MARGIN, 0)
        shown = elided(text, column, opt.fontMetrics, inner.width())
        painter.drawText(inner, alignment(column), shown)
        painter.restore()

    @staticmethod
    def _paint_bar(
        painter: QPainter,
        rect: QRect,
        share: tuple[float, ...],
        palette: QPalette,
        selected: bool,
        muted: bool = False,
    ) -> None:
        """``share``: the lexical, vector and (if given) recency parts, as fractions of the
        width, painted side by side in that order."""
        parts = [max(0.0, min(1.0, float(x))) for x in share]
        if sum(parts) <= 0:
            return
        colours = tints(palette)
        fills = [colours.fts_bar, colours.vector_bar, colours.recency_bar]
        if muted:
            base = palette.color(QPalette.ColorRole.Base)
            fills = [washed(fill, base) for fill in fills]
        width = max(0, rect.width() - 2 * BAR_MARGIN)
        top = rect.top() + (rect.height() - BAR_HEIGHT) // 2
        x = rect.left() + BAR_MARGIN
        drawn = 0
        for part, fill in zip(parts, fills, strict=False):
            part_w = round(width * part)
            if part_w:
                painter.fillRect(QRect(x + drawn, top, part_w, BAR_HEIGHT), fill)
            drawn += part_w
        if selected:  # the bar's blue would melt into the selection colour without an outline
            painter.save()
            painter.setPen(palette.color(QPalette.ColorRole.HighlightedText))
            painter.drawRect(QRect(x - 1, top - 1, drawn + 1, BAR_HEIGHT + 1))
            painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        hint = super().sizeHint(option, index)
        if index.column() == Column.SHARE:
            return QSize(max(hint.width(), 90), hint.height())
        return hint
