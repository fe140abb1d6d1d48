"""The results table view: columns sized for numbers, the share bar, keyboard actions.

Enter (or a double click) asks to open the note; Ctrl+C asks to copy its path (instead of the
cell text ``QAbstractItemView`` would copy).  Arrows move through hits as in any table.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableView,
    QWidget,
)

from explorer.gui.delegates import ResultsDelegate
from explorer.gui.results_model import Column, ResultsProxy, Role
from explorer.search.hybrid import Hit

Index = QModelIndex | QPersistentModelIndex

#: Sample text of each fixed column: its width fits this (or the header label, if wider).
SAMPLES = {
    Column.RANK: "100",
    Column.MOVE: "↑100",
    Column.PATH: "meetings/2024-06-11-review.md",
    Column.FUSED: "0.00000",
    Column.FTS_RANK: "100",
    Column.VEC_RANK: "100",
    Column.FTS_CONTRIB: "0.00000",
    Column.VEC_CONTRIB: "0.00000",
    Column.SHARE: "▆▆▆▆▆▆▆",
}


class ResultsView(QTableView):
    """A table over a :class:`ResultsProxy`."""

    openRequested = Signal(object)  # Hit
    copyRequested = Signal(object)  # Hit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("results")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSortingEnabled(True)
        self.setWordWrap(False)
        self.setShowGrid(False)
        self.setAlternatingRowColors(False)  # the tints carry meaning; no zebra to confuse them
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.setItemDelegate(ResultsDelegate(self))
        self.doubleClicked.connect(self._activated)

    def configure_header(self) -> None:
        """Widths and stretch; call after the model is set."""
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionsMovable(True)
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        metrics = self.fontMetrics()
        model = self.model()
        for column, sample in SAMPLES.items():
            label = model.headerData(column, Qt.Orientation.Horizontal) if model else ""
            width = max(
                metrics.horizontalAdvance(sample) + 14,
                metrics.horizontalAdvance(str(label or "")) + 22,  # room for the sort arrow
            )
            header.resizeSection(column, width)
        header.setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(28)
        self.sortByColumn(Column.RANK, Qt.SortOrder.AscendingOrder)

    def current_hit(self) -> Hit | None:
        index = self.currentIndex()
        if not index.isValid():
            rows = self.selectionModel().selectedRows() if self.selectionModel() else []
            if not rows:
                return None
            index = rows[0]
        hit = index.data(Role.HIT)
        return hit if isinstance(hit, Hit) else None

    def select_row(self, row: int) -> None:
        """Select the proxy row ``row`` (and make it current) and bring it into view."""
        model = self.model()
        if model is None or not 0 <= row < model.rowCount():
            return
        index = model.index(row, Column.TITLE)
        self.setCurrentIndex(index)
        self.scrollTo(index)

    def proxy(self) -> ResultsProxy | None:
        model = self.model()
        return model if isinstance(model, ResultsProxy) else None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            hit = self.current_hit()
            if hit is not None:
                self.copyRequested.emit(hit)
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            hit = self.current_hit()
            if hit is not None:
                self.openRequested.emit(hit)
            event.accept()
            return
        super().keyPressEvent(event)

    def _activated(self, index: QModelIndex) -> None:
        hit = index.data(Role.HIT)
        if isinstance(hit, Hit):
            self.openRequested.emit(hit)
