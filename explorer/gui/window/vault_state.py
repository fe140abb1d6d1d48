"""Each vault as it was left: its query, the order of its hits and the panels' layout, kept in
the settings when the vault is left and shown again when it is opened (a controller of the main
window, given what it needs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QLineEdit, QMainWindow

from explorer.gui.results.results_view import ResultsView
from explorer.gui.window.settings import Settings, VaultState
from explorer.gui.window.sort_control import SortControl


class VaultStates:
    """Keeps and restores what ``window`` shows of each vault in ``settings``."""

    def __init__(
        self,
        settings: Settings,
        window: QMainWindow,
        field: QLineEdit,
        sort: SortControl,
        table: ResultsView,
        set_query: Callable[..., None],
    ) -> None:
        self.settings = settings
        self.window = window
        self.field = field
        self.sort = sort
        self.table = table
        self.set_query = set_query

    def keep(self, vault: Path | None) -> None:
        """Remember what ``vault`` (the open one) shows, for the next time it is opened."""
        if vault is None:
            return
        state = VaultState(
            query=self.field.text(), sort=self.sort.sort(), panels=self.window.saveState()
        )
        self.settings.set_vault_state(str(vault), state)

    def restore(self, vault: Path, query: str | None) -> None:
        """Show ``vault`` as it was left; a ``query`` given (``--query``) starts by relevance."""
        state = self.settings.vault_state(str(vault))
        if not state.panels.isEmpty():
            self.window.restoreState(state.panels)
        self.sort.set_sort("relevance" if query is not None else state.sort)
        self.table.show_order(self.sort.sort())
        self.set_query(state.query if query is None else query, search=False)
