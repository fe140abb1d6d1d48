"""The index panel: files that were not indexed (and why), warnings, and the index's facts.

Paths and reasons come from the vault: shown with :func:`~explorer.display.safe_text`.
"""

from __future__ import annotations

from typing import Any

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


class SkippedDialog(QDialog):
    """Lists ``health["skipped"]`` and ``health["warnings"]`` in one table."""

    def __init__(self, health: dict[str, Any] | None, parent: QWidget | None = None) -> None:
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

    def set_health(self, health: dict[str, Any] | None) -> None:
        health = health or {}
        skipped = list(health.get("skipped") or [])
        warnings = list(health.get("warnings") or [])
        rows = [(s["path"], "skipped", s["reason"]) for s in skipped]
        rows += [(w["path"], "warning", w["warning"]) for w in warnings]
        self.table.setRowCount(len(rows))
        for r, values in enumerate(rows):
            for c, value in enumerate(values):
                self.table.setItem(r, c, QTableWidgetItem(safe_text(str(value))))
        database = safe_text(str(health.get("database", "")))
        self.summary.setText(
            f"{len(skipped)} file(s) skipped, {len(warnings)} with warnings. Index: {database}"
            if health
            else "The index has not reported yet."
        )

    def rows(self) -> list[tuple[str, str, str]]:
        out = []
        for r in range(self.table.rowCount()):
            cells = [self.table.item(r, c) for c in range(3)]
            out.append(tuple(c.text() if c else "" for c in cells))
        return out  # type: ignore[return-value]
