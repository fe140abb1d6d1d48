"""A small driver the window tests talk to the window through, instead of reaching into it.

``drive(window, qtbot)`` (or :class:`WindowDriver`) answers what a person does and sees:
search, the rows, the selection, the preview, the status line, the menus' actions.  When the
window's insides move, this file follows and the tests stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from weakref import WeakKeyDictionary

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from explorer.gui.panels.skipped_dialog import SkippedDialog
from explorer.gui.panels.sweep_panel import SweepPanel
from explorer.gui.panels.why_not import WhyNotDialog
from explorer.gui.results.delegates import TEXT_MARGIN, elided
from explorer.gui.results.results_model import Column, Role
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import MainWindow
from explorer.gui.window.saved_menu import SavedSearchesDialog
from explorer.live import LiveIndex
from explorer.search.answers.compare import Comparison
from explorer.search.fusion.results import Hit, SearchResponse
from explorer.search.query.options import SearchOptions

Check = Callable[[MainWindow], None]


class WindowDriver:
    """One window, driven and read as a person would."""

    def __init__(self, window: MainWindow, qtbot: QtBot | None = None) -> None:
        self.window = window
        self.qtbot = qtbot

    def _bot(self) -> QtBot:
        assert self.qtbot is not None, "this driver was made without a qtbot: it cannot wait"
        return self.qtbot

    # ------------------------------------------------------------------ vaults and waiting

    def open_vault(self, path: Path, query: str | None = None) -> None:
        """Open ``path`` (on ``query``, as ``--query`` does; else on the vault's own)."""
        self.window.open_vault(path, query=query)

    def recent_vaults(self) -> list[str]:
        """File ▸ Open Recent, as it lists the vaults when opened."""
        menu = self.window.menus.recent
        menu.aboutToShow.emit()
        return [action.text() for action in menu.actions()]

    def live(self) -> LiveIndex | None:
        """The open vault's live index."""
        session = self.window.session
        return session.live if session is not None else None

    def reconcile(self) -> None:
        """File ▸ Reconcile: compare the index with the vault now."""
        self.window.vaults.reconcile()

    def wait_indexed(self, timeout: int = 20_000) -> None:
        """Wait until the live index is idle (start-up reconcile done, nothing left to embed)."""

        def idle() -> None:
            assert self.live() is not None
            assert self.window.live_settled()

        self._bot().waitUntil(idle, timeout=timeout)

    def wait_for_results(
        self, query: str, check: Check | None = None, timeout: int = 15_000
    ) -> SearchResponse:
        """Wait until the window shows the results of ``query`` (and ``check`` passes)."""

        def shown() -> None:
            response = self.window.response
            assert response is not None, "no results yet"
            assert response.query == query, f"showing {response.query!r}"
            assert not self.window.flow.searching
            if check is not None:
                check(self.window)

        self._bot().waitUntil(shown, timeout=timeout)
        response = self.window.response
        assert response is not None
        return response

    # ------------------------------------------------------------------ searching

    def search(
        self, text: str, check: Check | None = None, timeout: int = 15_000
    ) -> SearchResponse:
        """Search ``text`` at once (as Enter does) and wait for its results."""
        self.window.set_query(text)
        return self.wait_for_results(text, check, timeout)

    def set_query(self, text: str, *, search: bool = True) -> None:
        """Put ``text`` in the search field (and by default search it), without waiting."""
        self.window.set_query(text, search=search)

    def query(self) -> str:
        return self.window.search_field.text()

    def mode(self) -> str:
        return self.window.mode()

    def set_mode(self, mode: str) -> None:
        self.window.set_mode(mode)

    def options(self) -> SearchOptions:
        """The search settings on screen."""
        return self.window.options()

    def set_options(self, options: SearchOptions, *, emit: bool = False) -> None:
        """Set the fusion controls to ``options`` (``emit``: as if the user had)."""
        self.window.fusion.set_options(options, emit=emit)

    def response(self) -> SearchResponse | None:
        """What the table shows."""
        return self.window.response

    def searching(self) -> bool:
        """Whether a search is on its way."""
        return self.window.flow.searching

    def comparison(self) -> Comparison | None:
        """The pinned baseline against what is shown."""
        return self.window.flow.shown.comparison

    def baseline(self) -> SearchOptions | None:
        return self.window.flow.shown.baseline

    # ------------------------------------------------------------------ the results

    def rows(self) -> list[str]:
        """The paths of the rows, in view order (after sorting)."""
        proxy = self.window.proxy
        return [str(proxy.index(row, 0).data(Role.PATH)) for row in range(proxy.rowCount())]

    def row_count(self) -> int:
        return self.window.proxy.rowCount()

    def cell(self, row: int, column: Column) -> str:
        """The text shown at a view row (after sorting) and column."""
        return str(self.window.proxy.index(row, column).data())

    def shown_cell(self, row: int, column: Column) -> str:
        """The text a cell shows at its width (cut, where it must be, as the table cuts it)."""
        table = self.window.table
        width = table.columnWidth(column) - 2 * TEXT_MARGIN
        return elided(self.cell(row, column), column, table.fontMetrics(), width)

    def column_width(self, column: Column) -> int:
        """How wide the results' ``column`` is on screen (0 when hidden)."""
        table = self.window.table
        return 0 if table.isColumnHidden(column) else table.columnWidth(column)

    def field_width(self) -> int:
        """How wide the query field is on screen."""
        return self.window.search_field.width()

    def preview_width(self) -> int:
        return self.window.preview.width()

    def data(self, row: int, role: Role, column: Column = Column.RANK) -> object:
        return self.window.proxy.index(row, column).data(role)

    def row_of(self, path: str) -> int:
        """The view row of ``path``, or -1."""
        for row in range(self.row_count()):
            if self.data(row, Role.PATH) == path:
                return row
        return -1

    def record_opened(self) -> list[QUrl]:
        """From now on, the URLs the window opens (a note, Obsidian) are listed, not opened."""
        opened: list[QUrl] = []
        self.window.notes.open_url = opened.append
        return opened

    def open_note(self, hit: Hit) -> None:
        """Enter on ``hit``: open its note."""
        self.window.notes.open_note(hit)

    def copy_path(self, path: str) -> None:
        """Ctrl+C on the hit of ``path``: copy its note's full path."""
        model = self.window.model
        hit = model.hit(model.row_of(path))
        assert hit is not None, f"no hit {path!r}"
        self.window.notes.copy_path(hit)

    def select(self, row: int) -> None:
        """Select view row ``row`` (as a click does)."""
        self.window.table.select_row(row)

    def current_hit(self) -> Hit | None:
        return self.window.table.current_hit()

    # ------------------------------------------------------------------ what else shows

    def preview_path(self) -> str | None:
        """The note the preview shows."""
        return self.window.preview.shown_path

    def preview_dates(self) -> str:
        """The line of dates under the preview's title ("" while none shows)."""
        dates = self.window.preview.dates
        return dates.text() if dates.isVisible() else ""

    def preview_text(self) -> str:
        """The preview's text as shown."""
        return self.window.preview.note.toPlainText()

    def click_preview_link(self, url: str) -> None:
        """Click the link to ``url`` in the preview (a breadcrumb's folder, a tag)."""
        self.window.preview.note.anchorClicked.emit(QUrl(url))

    def status(self) -> str:
        """The status bar's passing message."""
        return self.window.statusBar().currentMessage()

    def summary(self) -> str:
        return self.window.summary.text()

    def empty_text(self) -> str:
        """What the results' place says when there are none to show."""
        return self.window.empty.text()

    def banner(self) -> str:
        """The banner's message while it shows, else ``""``."""
        return self.window.banner.message()

    def compare_text(self) -> str:
        """The compare bar's line (plain text)."""
        return self.window.compare_bar.text()

    def banner_visible(self) -> bool:
        return self.window.banner.isVisible()

    def compare_visible(self) -> bool:
        return self.window.compare_bar.isVisible()

    def no_match_visible(self) -> bool:
        """Whether the "no close match" line shows over the results."""
        return self.window.no_match.isVisible()

    def no_match_text(self) -> str:
        return self.window.no_match.text()

    def index_counts(self) -> str:
        """The status bar's counts (notes, vectors, pending)."""
        return self.window.index_status.counts.text()

    def column_hidden(self, column: Column) -> bool:
        return self.window.table.isColumnHidden(column)

    def search_has_focus(self) -> bool:
        return self.window.search_field.hasFocus()

    def table_has_focus(self) -> bool:
        return self.window.table.hasFocus()

    def quality_rows(self) -> list[list[str]]:
        """The Quality panel's rows, as shown."""
        return self.window.quality.rows()

    # ------------------------------------------------------------------ sort and facets

    def sort(self) -> str:
        return self.window.sort_control.sort()

    def set_sort(self, sort: str) -> None:
        """Choose ``sort`` in the sort control, as a person does."""
        box = self.window.sort_control.box
        box.setCurrentIndex(box.findData(sort))

    def sort_arrow(self) -> Column | None:
        """The column whose header shows the sort arrow, if any does."""
        header = self.window.table.horizontalHeader()
        if not header.isSortIndicatorShown():
            return None
        return Column(header.sortIndicatorSection())

    def show_facets(self) -> None:
        """View ▸ Facets, checked."""
        action = self.window.action(Action.FACETS)
        if not action.isChecked():
            action.trigger()

    def show_around(self, shown: bool) -> None:
        """View ▸ Around This Note, checked or not."""
        action = self.window.action(Action.AROUND)
        if action.isChecked() != shown:
            action.trigger()

    def panel_visible(self, name: str) -> bool:
        """Whether the dock ``name`` ("facets", "around", "quality") shows."""
        return bool(getattr(self.window, name).isVisible())

    def facets(self) -> dict[str, list[tuple[str, int, bool]]]:
        """The facets panel's groups: title → (value, count, active), as listed."""
        return self.window.facets.values()

    def click_facet(self, group: str, value: str) -> None:
        """Click ``value`` under ``group`` in the facets panel."""
        tree = self.window.facets.tree
        item = self.window.facets.item(group, value)
        assert item is not None, f"no facet {value!r} under {group!r}: {self.facets()}"
        tree.scrollToItem(item)
        rect = tree.visualItemRect(item)
        self._bot().mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    # ------------------------------------------------------------------ history, saved searches

    def press_in_field(self, key: Qt.Key, modifier: Qt.KeyboardModifier | None = None) -> None:
        """Press ``key`` in the search field (it takes the focus first)."""
        field = self.window.search_field
        field.setFocus()
        if modifier is None:
            self._bot().keyClick(field, key)
        else:
            self._bot().keyClick(field, key, modifier)

    def recent_queries(self) -> list[str]:
        """The vault's recent queries, newest first (what the history menu lists)."""
        return self.window.history.recent()

    def searches_written(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the recent and saved searches' writes under way
        (off the GUI thread); whether they all ended."""
        return self.window.history.wait_written(timeout)

    def history_menu_visible(self) -> bool:
        return self.window.history.menu.isVisible()

    def history_menu(self) -> list[str]:
        """The entries of the history menu, as listed (the menu filled as it opens)."""
        return [a.toolTip() for a in self.window.history.menu.actions() if a.isEnabled()]

    def recall(self, query: str) -> None:
        """Choose ``query`` in the history menu."""
        for action in self.window.history.menu.actions():
            if action.isEnabled() and action.toolTip() == query:
                action.trigger()
                self.window.history.menu.hide()
                return
        raise AssertionError(f"{query!r} is not in the history menu: {self.history_menu()}")

    def save_search(self, name: str) -> bool:
        """Search ▸ Save Search… with ``name`` typed."""
        return self.window.searches.save(name)

    def saved_names(self) -> list[str]:
        """Search ▸ Saved Searches, as it lists them when opened."""
        return self.window.saved_menu.names()

    def run_saved(self, name: str) -> None:
        """Choose ``name`` in Search ▸ Saved Searches."""
        self.window.saved_menu.fill()
        for action in self.window.saved_menu.menu.actions():
            if action.data() == name:
                action.trigger()
                return
        raise AssertionError(f"no saved search {name!r}: {self.saved_names()}")

    def saved_dialog(self) -> SavedSearchesDialog:
        """Search ▸ Manage Saved Searches…, opened."""
        self.window.action(Action.MANAGE_SAVED).trigger()
        dialog = self.window.dialogs.saved
        assert dialog is not None
        return dialog

    # ------------------------------------------------------------------ the dialogs

    def skipped_dialog(self) -> SkippedDialog | None:
        """File ▸ Skipped Files…, once opened."""
        return self.window.dialogs.skipped

    def tune_panel(self) -> SweepPanel | None:
        """View ▸ Tune on Judgments…, once opened."""
        return self.window.dialogs.tune

    def why_not(self) -> WhyNotDialog | None:
        """Search ▸ Why Not This Note…, once opened."""
        return self.window.dialogs.why_not

    # ------------------------------------------------------------------ the menus

    def action(self, key: Action) -> QAction:
        return self.window.action(key)

    def trigger(self, key: Action) -> None:
        """Choose the menu action ``key``."""
        self.window.action(key).trigger()


_DRIVERS: WeakKeyDictionary[MainWindow, WindowDriver] = WeakKeyDictionary()


def drive(window: MainWindow, qtbot: QtBot | None = None) -> WindowDriver:
    """The driver of ``window`` (one a window; ``qtbot`` given once is kept)."""
    driver = _DRIVERS.get(window)
    if driver is None:
        driver = _DRIVERS[window] = WindowDriver(window, qtbot)
    elif qtbot is not None:
        driver.qtbot = qtbot
    return driver
