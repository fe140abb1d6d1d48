"""The index panel: files that were not indexed (and why), warnings, and the index's facts.

Paths and reasons come from the vault: shown with :func:`~explorer.display.safe_text`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.live import Health


class SkippedDialog(QDialog):
    """Lists the skipped files and the notes with warnings of a :class:`Health` in one table."""

    def __init__(self, health: Health | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Index — skipped files")
        self.resize(760, 420)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(["Path", "Kind", "Reason"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.set_health(health)

    def set_health(self, health: Health | None) -> None:
        skipped = health.skipped if health is not None else ()
        warnings = health.warnings if health is not None else ()
        rows = [(s.path, "skipped", s.reason) for s in skipped]
        rows += [(w.path, "warning", w.warning) for w in warnings]
        self.table.setRowCount(len(rows))
        for r, values in enumerate(rows):
            for c, value in enumerate(values):
                self.table.setItem(r, c, QTableWidgetItem(safe_text(value)))
        if health is None:
            self.summary.setText("The index has not reported yet.")
            return
        database = safe_text(health.database)
        self.summary.setText(
            f"{len(skipped)} file(s) skipped, {len(warnings)} with warnings. Index: {database}"
        )

    def rows(self) -> list[tuple[str, str, str]]:
        out = []
        for r in range(self.table.rowCount()):
            cells = [self.table.item(r, c) for c in range(3)]
            out.append(tuple(c.text() if c else "" for c in cells))
        return out  # type: ignore[return-value]
