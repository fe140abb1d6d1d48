"""The vault's recent and saved searches as the window uses them: a query kept when the person
acts on it, a recent one recalled, the one on screen saved, a saved one run (a controller of the
main window, given what it needs)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget

from explorer.display import safe_text
from explorer.gui.panels.fusion_controls import FusionControls
from explorer.gui.window.history import SearchHistory
from explorer.gui.window.sort_control import SortControl
from explorer.search.answers.saved import SavedSearch
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import QueryError

Say = Callable[[str, int], None]


def chosen(options: SearchOptions) -> SearchOptions:
    """``options`` as a person chose them: the window's own number of rows is not a setting
    (a saved search listed "(limit=100)")."""
    return replace(options, limit=SearchOptions().limit)


class Searches(QObject):
    """The recent and saved searches of the open vault (``history``), for the query in
    ``field`` under the settings ``options()`` gives."""

    def __init__(
        self,
        history: SearchHistory,
        field: QLineEdit,
        options: Callable[[], SearchOptions],
        *,
        fusion: FusionControls,
        sort: SortControl,
        set_mode: Callable[[str], None],
        set_query: Callable[[str], None],
        focus: Callable[[], None],
        say: Say,
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self.history = history
        self.field = field
        self.options = options
        self.fusion = fusion
        self.sort = sort
        self.set_mode = set_mode
        self.set_query = set_query
        self.focus = focus
        self.say = say
        self.window = window  # the dialogs' parent

    def remember(self) -> None:
        """Keep the field's query among the vault's recent ones (Enter, moving into the
        results, opening a note, a click that made the query: see
        :mod:`~explorer.gui.window.history`)."""
        self.history.remember(self.field.text(), chosen(self.options()))

    def recall(self, query: str) -> None:
        """A recent query chosen from the history: search it with the settings on screen."""
        self.set_query(query)
        self.focus()

    def show_problem(self, line: str) -> None:
        """What reading the store dropped, or why a write failed, in the status bar."""
        self.say(safe_text(line), 10_000)

    def save(self, name: str | None = None) -> bool:
        """Search ▸ Save Search…: keep the query and the settings on screen as ``name`` (asked
        for when not given); whether it was saved."""
        if self.history.store is None:
            self.say("Open a vault to save its searches", 5000)
            return False
        if name is None:
            name, ok = QInputDialog.getText(
                self.window, "Save Search", "Name of the search:", text=self.field.text()[:60]
            )
            if not ok:
                return False
        try:
            self.history.save(name, self.field.text(), chosen(self.options()))
        except (QueryError, OSError) as exc:
            QMessageBox.warning(self.window, "Save Search", safe_text(str(exc)))
            return False
        self.say(f"Saved search “{safe_text(name.strip())}”", 5000)
        return True

    def run(self, saved: SavedSearch) -> None:
        """Run a saved search: its settings on screen (mode, fusion, sort), then its query."""
        options = saved.options
        self.fusion.set_options(options)
        self.sort.set_sort(options.sort)
        self.set_mode(options.mode)
        self.set_query(saved.query)
        self.remember()
