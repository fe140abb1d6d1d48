"""Search ▸ Saved Searches: the vault's saved searches, run with one click; Save Search… and the
small dialog that runs and deletes them.

A saved search is the query with every setting it ran with (mode, fusion and its settings,
depth, floors, sort; :class:`~explorer.search.query.options.SearchOptions`), kept by name in the
vault's :class:`~explorer.search.answers.saved.SearchStore` beside the index (the command line runs
the same ones with ``search --saved NAME``; the MCP server lists them).  Running one puts its query
and settings back on screen and searches.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.gui.window.history import SearchHistory, menu_text
from explorer.search.answers.saved import SavedSearch


def saved_tip(saved: SavedSearch) -> str:
    """A saved search's query and the settings that differ from the defaults, one line each."""
    changed = saved.settings()
    return safe_text(saved.query) + (f"\n{safe_text(changed)}" if changed else "")


class SavedMenu:
    """The Saved Searches submenu, filled each time it opens; ``run`` runs a chosen one."""

    def __init__(
        self,
        menu: QMenu,
        history: SearchHistory,
        run: Callable[[SavedSearch], None],
        extra: list[QAction],
    ) -> None:
        """``extra``: the actions (Save Search…, Manage…) listed under the saved ones."""
        self.menu = menu
        self.history = history
        self.run = run
        self.extra = extra
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(self.fill)
        self.fill()

    def fill(self) -> None:
        self.menu.clear()
        saved = self.history.saved()
        for name, search in saved.items():
            # The query in the shortcut column: what runs, beside its name.
            action = self.menu.addAction(f"{menu_text(name)}\t{menu_text(search.query, 40)}")
            action.setToolTip(saved_tip(search))
            action.setData(name)
            action.triggered.connect(lambda _=False, s=search: self.run(s))
        if not saved:
            self.menu.addAction("(no saved searches yet)").setEnabled(False)
        self.menu.addSeparator()
        for extra_action in self.extra:
            self.menu.addAction(extra_action)

    def names(self) -> list[str]:
        """The saved searches the menu lists, as it lists them."""
        self.fill()
        return [str(a.data()) for a in self.menu.actions() if a.data()]


class SavedSearchesDialog(QDialog):
    """Search ▸ Manage Saved Searches…: run or delete the vault's saved searches."""

    runRequested = Signal(object)  # SavedSearch

    def __init__(self, history: SearchHistory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Saved Searches")
        self.resize(560, 360)
        self.history = history
        self.list = QListWidget(self)
        # A line longer than the list ends in "…" (its tooltip holds it all), not behind a
        # horizontal scroll bar.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.itemActivated.connect(lambda _item: self.run_selected())
        self.run_button = QPushButton("&Run", self)
        self.delete_button = QPushButton("&Delete", self)
        self.run_button.clicked.connect(self.run_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.run_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.delete_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        note = QLabel("Kept beside the vault's index, never in the vault.", self)
        note.setObjectName("muted")
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addWidget(note)
        layout.addWidget(buttons)
        history.savedChanged.connect(self.refill)
        self.refill()

    def refill(self) -> None:
        current = self.selected()
        self.list.clear()
        for name, search in self.history.saved().items():
            changed = search.settings()
            line = f"{menu_text(name)}  —  {menu_text(search.query)}"
            item = QListWidgetItem(line + (f"   ({safe_text(changed)})" if changed else ""))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(saved_tip(search))
            self.list.addItem(item)
            if name == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        has = self.list.count() > 0
        self.run_button.setEnabled(has)
        self.delete_button.setEnabled(has)

    def lines(self) -> list[str]:
        """The list's lines, as shown."""
        return [self.list.item(r).text() for r in range(self.list.count())]

    def shown_lines(self) -> list[str]:
        """The list's lines as they show: cut to the room they are drawn in, ending in "…";
        a list that scrolls sideways draws them whole and its viewport clips them."""
        metrics = self.list.fontMetrics()
        view = self.list.viewport().width()
        scrolls = self.list.horizontalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        shown = []
        for row in range(self.list.count()):
            item = self.list.item(row)
            rect = self.list.visualItemRect(item)
            room = rect.width() if scrolls else min(rect.width(), view - rect.left())
            line = metrics.elidedText(item.text(), self.list.textElideMode(), room)
            while line and rect.left() + metrics.horizontalAdvance(line) > view:
                line = line[:-1]
            shown.append(line)
        return shown

    def names(self) -> list[str]:
        rows = range(self.list.count())
        return [str(self.list.item(r).data(Qt.ItemDataRole.UserRole)) for r in rows]

    def selected(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def select(self, name: str) -> None:
        for row, known in enumerate(self.names()):
            if known == name:
                self.list.setCurrentRow(row)

    def run_selected(self) -> None:
        name = self.selected()
        if name is not None and name in self.history.saved():
            self.runRequested.emit(self.history.saved()[name])

    def delete_selected(self) -> None:
        name = self.selected()
        if name is not None:
            self.history.delete(name)
