"""The sort control beside the search field: the order of the hits shown
(``SearchOptions.sort``: relevance, the default, or modified, created, title, path).

A sort orders the best matches (the fused ranking cut to the limit), never chooses others; the
# column keeps each hit's fused rank, so how well a note matched stays in view.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolButton, QWidget

from explorer.search.fusion.order import SORTS

LABELS = {
    "relevance": "Relevance",
    "modified": "Modified",
    "created": "Created",
    "title": "Title",
    "path": "Path",
}
TIPS = {
    "relevance": "The fused order: the best match first",
    "modified": "Newest modified first (the # column keeps the fused rank)",
    "created": "Newest created first; notes without a known creation time last",
    "title": "Title from A to Z (the # column keeps the fused rank)",
    "path": "Path from A to Z (the # column keeps the fused rank)",
}


class SortControl(QWidget):
    """``Sort: [Relevance ▾]``; ``changed`` carries the sort chosen by the person."""

    changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.box = QComboBox(self)
        self.box.setObjectName("sort")
        for sort in SORTS:
            self.box.addItem(LABELS.get(sort, sort.capitalize()), sort)
            self.box.setItemData(
                self.box.count() - 1, TIPS.get(sort, ""), Qt.ItemDataRole.ToolTipRole
            )
        self.box.setToolTip("The order of the hits shown; the # column keeps the fused rank")
        label = QLabel("S&ort:", self)
        label.setBuddy(self.box)
        layout = self._layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(label)
        layout.addWidget(self.box)
        self.box.currentIndexChanged.connect(lambda _: self.changed.emit(self.sort()))

    def add_toggle(self, action: QAction) -> None:
        """A button for ``action`` after the box (View ▸ Facets: the panel beside the results)."""
        button = QToolButton(self)
        button.setObjectName("facetsButton")
        button.setDefaultAction(action)
        button.setText("Facets")
        self._layout.addSpacing(6)
        self._layout.addWidget(button)

    def sort(self) -> str:
        return str(self.box.currentData() or SORTS[0])

    def set_sort(self, sort: str, *, emit: bool = False) -> None:
        """Show ``sort`` (an unknown one shows relevance); ``emit``: as if chosen."""
        index = max(self.box.findData(sort), 0)
        if emit:
            self.box.setCurrentIndex(index)
            return
        self.box.blockSignals(True)
        try:
            self.box.setCurrentIndex(index)
        finally:
            self.box.blockSignals(False)
