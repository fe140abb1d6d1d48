"""The search bar: the query field (search as you type) and the mode switch.

The field asks for a search 150 ms after the last keystroke (a single-shot timer restarted by
each edit), at once on Enter, and at once when it is cleared (Esc or its clear button), which
lists the recent notes.  Down moves on to the results; Up (or Alt+Down, or the ▾ button at the
field's end) opens the vault's recent queries (:mod:`~explorer.gui.window.history`).  The mode
switch is three exclusive buttons (Hybrid / Lexical / Semantic, also Ctrl+1/2/3 on the window).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from explorer.search.query import syntax
from explorer.search.query.options import MODES, SearchOptions

DEBOUNCE_MS = 150
LABELS = {"hybrid": "Hybrid", "fts": "Lexical", "semantic": "Semantic"}
#: The mode buttons, left to right (Ctrl+1, 2, 3): the default mode first.
MODE_BUTTONS = tuple(
    (mode, LABELS[mode]) for mode in sorted(MODES, key=lambda m: m != SearchOptions().mode)
)
#: The least room of the query field, in average characters (its clear button included).
FIELD_CHARS = 28
#: The field's placeholders, longest first: it shows the longest its width holds whole (all of
#: the syntax is in the tooltip and in Help ▸ Query Syntax).
PLACEHOLDERS = (
    'Search notes — words, "a phrase", -exclude, tag:name, path:folder/',
    'Search notes — words, "a phrase", tag:name, path:folder/',
    "Search notes — words, tag:name, path:folder/",
    "Search notes",
)
TOOLTIP = (
    f"{syntax.forms()} (Help ▸ Query Syntax). Esc clears, ↓ goes to the results, ↑ or Alt+↓ "
    "lists your recent queries."
)


class SearchBar(QWidget):
    """Emits ``searchRequested`` when the query should run, ``modeChanged`` on a new mode."""

    searchRequested = Signal()
    modeChanged = Signal(str)
    downPressed = Signal()
    historyRequested = Signal()  # Up, Alt+Down or the ▾ button: the recent queries

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(DEBOUNCE_MS)
        self.debounce.timeout.connect(self.searchRequested)
        self.field = QLineEdit(self)
        self.field.setObjectName("search")
        self.field.setPlaceholderText(PLACEHOLDERS[-1])
        self.field.setToolTip(TOOLTIP)
        self.field.setClearButtonEnabled(True)
        # Never squeezed to a few letters ("ings stored on disk"): the panels give way first.
        self.field.setMinimumWidth(self.field.fontMetrics().averageCharWidth() * FIELD_CHARS)
        self.field.textEdited.connect(lambda _: self.debounce.start())
        self.field.textChanged.connect(self._text_changed)
        self.field.returnPressed.connect(self.searchRequested)
        self.field.installEventFilter(self)
        self.history_button = QToolButton(self)
        self.history_button.setObjectName("history")
        self.history_button.setArrowType(Qt.ArrowType.DownArrow)
        self.history_button.setAutoRaise(True)
        self.history_button.setToolTip("Recent queries of this vault (↑ or Alt+↓ in the field)")
        self.history_button.clicked.connect(self.historyRequested)

        self.group = QButtonGroup(self)
        self.buttons: dict[str, QPushButton] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        field_row = QHBoxLayout()
        field_row.setSpacing(0)
        field_row.addWidget(self.field, 1)
        field_row.addWidget(self.history_button)
        layout.addLayout(field_row, 1)
        switch = QHBoxLayout()
        switch.setSpacing(0)
        for number, (mode, label) in enumerate(MODE_BUTTONS, start=1):
            button = QPushButton(label, self)
            button.setObjectName(f"mode-{mode}")
            button.setCheckable(True)
            button.setToolTip(f"{label} search (Ctrl+{number})")
            self.group.addButton(button, number)
            self.buttons[mode] = button
            switch.addWidget(button)
        layout.addLayout(switch)
        self.buttons[MODE_BUTTONS[0][0]].setChecked(True)
        self.group.idToggled.connect(self._toggled)

    def text(self) -> str:
        return self.field.text()

    def mode(self) -> str:
        return next((m for m, b in self.buttons.items() if b.isChecked()), MODE_BUTTONS[0][0])

    def set_mode(self, mode: str) -> None:
        if mode in self.buttons:
            self.buttons[mode].setChecked(True)

    def focus(self) -> None:
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def _toggled(self, _id: int, checked: bool) -> None:
        if checked:
            self.modeChanged.emit(self.mode())

    def _text_changed(self, text: str) -> None:
        if not text and not self.debounce.isActive():
            self.debounce.start(0)  # cleared: the recent notes at once

    def _fit_placeholder(self) -> None:
        """The longest placeholder the field shows whole at its width, less the room of the
        clear button (about the field's height) and of the frame and padding."""
        field = self.field
        room = field.width() - field.height() - 24
        metrics = field.fontMetrics()
        text = next(
            (p for p in PLACEHOLDERS if metrics.horizontalAdvance(p) <= room), PLACEHOLDERS[-1]
        )
        if text != field.placeholderText():
            field.setPlaceholderText(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() in (QEvent.Type.Resize, QEvent.Type.FontChange):
            self._fit_placeholder()
        if watched is self.field and isinstance(event, QKeyEvent):
            if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape:
                self.field.clear()
                return True
            alt = bool(event.modifiers() & Qt.KeyboardModifier.AltModifier)
            if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Down:
                (self.historyRequested if alt else self.downPressed).emit()
                return True
            if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Up:
                self.historyRequested.emit()
                return True
        return super().eventFilter(watched, event)
