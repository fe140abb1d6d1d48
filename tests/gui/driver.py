"""A small driver the window tests talk to the window through, instead of reaching into it.

``drive(window, qtbot)`` (or :class:`WindowDriver`) answers what a person does and sees:
search, the rows, the selection, the preview, the status line, the menus' actions.  When the
window's insides move, this file follows and the tests stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from weakref import WeakKeyDictionary

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QAction, QPalette, QTextCursor
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox, QTextBrowser, QWidget
from pytestqt.qtbot import QtBot

from explorer.gui.panels.quality_panel import QualityPanel
from explorer.gui.panels.skipped_dialog import SkippedDialog
from explorer.gui.panels.sweep_panel import SweepPanel
from explorer.gui.panels.why_not import WhyNotDialog
from explorer.gui.results.delegates import TEXT_MARGIN, elided
from explorer.gui.results.results_model import Column, ResultsModel, Role
from explorer.gui.statusbar.stall import StallMonitor
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import MainWindow
from explorer.gui.window.saved_menu import SavedSearchesDialog
from explorer.live import LiveIndex
from explorer.live.health import Health
from explorer.live.reader import IndexReader
from explorer.search.answers.compare import Comparison
from explorer.search.explain.explanation import Explanation
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

    def focus_search(self) -> None:
        """Put the focus in the search field (as a click in it does)."""
        self.window.search_field.setFocus()

    def focus_results(self) -> None:
        """Put the focus in the results (as a click in the table does)."""
        self.window.table.setFocus()

    def type(self, text: str) -> None:
        """Type ``text`` into the search field, key by key."""
        self._bot().keyClicks(self.window.search_field, text)

    def paste(self, text: str) -> None:
        """Put ``text`` in the search field at once (as a paste does), without searching."""
        self.window.search_field.setText(text)

    def field_selection(self) -> str:
        """The selected text of the search field."""
        return self.window.search_field.selectedText()

    def press(self, key: Qt.Key, modifier: Qt.KeyboardModifier | None = None) -> None:
        """Press ``key`` in the window (its shortcuts answer)."""
        self._key(self.window, key, modifier)

    def press_in_results(
        self, key: Qt.Key | str, modifier: Qt.KeyboardModifier | None = None
    ) -> None:
        """Press ``key`` in the results table."""
        self._key(self.window.table, key, modifier)

    def _key(
        self, widget: QWidget, key: Qt.Key | str, modifier: Qt.KeyboardModifier | None
    ) -> None:
        if modifier is None:
            self._bot().keyClick(widget, key)
        else:
            self._bot().keyClick(widget, key, modifier)

    def search_waiting(self) -> bool:
        """Whether a typed query waits for the typing to pause before it is searched."""
        return self.window.debounce.isActive()

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

    def _control(self, name: str) -> QComboBox | QSpinBox | QDoubleSpinBox:
        fusion = self.window.fusion
        controls: dict[str, QComboBox | QSpinBox | QDoubleSpinBox] = {
            "fusion": fusion.method_box,
            "k": fusion.k_box,
            "w_fts": fusion.w_fts_box,
            "w_vec": fusion.w_vec_box,
            "depth": fusion.depth_box,
            "min_sim": fusion.min_sim_box,
            "min_rel": fusion.min_rel_box,
            "recency": fusion.recency_box,
            "half_life": fusion.half_life_box,
        }
        return controls[name]

    def set_control(self, name: str, value: float | str) -> None:
        """Set the fusion control of the search setting ``name`` ("w_fts", "fusion"…) to
        ``value``, as a person does (the window re-fuses at once)."""
        control = self._control(name)
        if isinstance(control, QComboBox):
            control.setCurrentIndex(control.findData(value))
        elif isinstance(control, QSpinBox):
            control.setValue(int(value))
        else:
            control.setValue(float(value))

    def apply_preset(self, name: str) -> None:
        """Choose ``name`` in the fusion controls' Presets menu."""
        menu = self.window.fusion.preset_button.menu()
        assert menu is not None
        chosen = [action for action in menu.actions() if action.text() == name]
        assert chosen, f"no preset {name!r}: {[a.text() for a in menu.actions()]}"
        chosen[0].trigger()

    def control_enabled(self, name: str) -> bool:
        """Whether the fusion control of ``name`` can be changed (not greyed)."""
        return self._control(name).isEnabled()

    def control_tip(self, name: str) -> str:
        return self._control(name).toolTip()

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

    def results_palette(self) -> QPalette:
        """The palette the results are painted with."""
        return self.window.table.palette()

    def column_width(self, column: Column) -> int:
        """How wide the results' ``column`` is on screen (0 when hidden)."""
        table = self.window.table
        return 0 if table.isColumnHidden(column) else table.columnWidth(column)

    def field_width(self) -> int:
        """How wide the query field is on screen."""
        return self.window.search_field.width()

    def preview_width(self) -> int:
        return self.window.preview.width()

    def data(self, row: int, role: Role | Qt.ItemDataRole, column: Column = Column.RANK) -> object:
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

    def hit_menu(self, hit: Hit) -> list[QAction]:
        """The results' context menu on ``hit``."""
        return self.window.table.grade_menu(hit).actions()

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

    def explain_text(self) -> str:
        """The explain block above the preview, as shown."""
        return self.window.preview.explain.toPlainText()

    def explanation(self) -> Explanation | None:
        """The explanation the explain block shows (``None``: none, or a note opened from a
        link)."""
        return self.window.preview.explanation

    def explain_gap(self) -> int:
        """The pixels between the explain block's bottom and the note's top, besides the
        handle between them (0: the note starts where the block ends)."""
        splitter = self.window.preview.splitter
        explain, note = splitter.widget(0), splitter.widget(1)
        assert explain is not None and note is not None
        return note.y() - explain.geometry().bottom() - 1 - splitter.handleWidth()

    def explain_scrolls(self) -> bool:
        """Whether the explain block shows a scroll bar of its own."""
        return self.window.preview.explain.verticalScrollBar().isVisible()

    def click_explain_link(self, text: str) -> None:
        """Click the link that reads ``text`` in the explain block (scrolled into view)."""
        self._click_text(self.window.preview.explain, text)

    def _click_text(self, browser: QTextBrowser, text: str) -> None:
        """Click (press and release) in the middle of the first ``text`` of ``browser``."""
        found = browser.document().find(text)
        assert not found.isNull(), f"{text!r} is not in {browser.objectName()!r}"
        middle = QTextCursor(browser.document())
        middle.setPosition((found.selectionStart() + found.selectionEnd()) // 2)
        browser.setTextCursor(middle)
        browser.ensureCursorVisible()
        rect = browser.cursorRect(middle)
        where = QPoint(rect.x(), rect.center().y())
        self._bot().mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=where)

    def explain_overflow(self) -> int:
        """How many pixels of the explain block's text are out of its view (0: it all shows)."""
        explain = self.window.preview.explain
        text = explain.document().size().height()
        return max(0, int(text) - explain.viewport().height())

    def preview_history(self) -> tuple[list[str], str | None, list[str]]:
        """The notes behind the preview's, its own and those ahead (Back and Forward)."""
        return self.window.preview.history

    def preview_title(self) -> str:
        """The title over the preview (rich text)."""
        return self.window.preview.title.text()

    def click_in_preview(self, text: str) -> None:
        """Click in the middle of the first ``text`` of the note shown (a tag, a folder)."""
        self._click_text(self.window.preview.note, text)

    def note_menu(self) -> list[QAction]:
        """The preview's context menu, as a right click in the note opens it."""
        note = self.window.preview.note
        return note.context_menu(note.viewport().rect().center()).actions()

    def click_preview_link(self, url: str) -> None:
        """Click the link to ``url`` in the preview (a breadcrumb's folder, a tag)."""
        self.window.preview.note.anchorClicked.emit(QUrl(url))

    def status(self) -> str:
        """The status bar's passing message."""
        return self.window.statusBar().currentMessage()

    def summary(self) -> str:
        return self.window.summary.text()

    def empty_text(self) -> str:
        """What the results' place says when there are none to show ("" while it is hidden)."""
        empty = self.window.empty
        return empty.text() if empty.isVisible() else ""

    def banner(self) -> str:
        """The banner's message while it shows, else ``""``."""
        return self.window.banner.message()

    def compare_text(self) -> str:
        """The compare bar's line (plain text)."""
        return self.window.compare_bar.text()

    def banner_visible(self) -> bool:
        return self.window.banner.isVisible()

    def repin(self) -> None:
        """The compare bar's Re-pin: the settings on screen become the baseline."""
        self.window.compare_bar.repin_button.click()

    def compare_pair(self, index: int) -> None:
        """Compare ▸ the ``index``-th pair of settings (one side pinned, the other shown)."""
        self.window.compare_bar.pair_actions[index].trigger()

    def results_model(self) -> ResultsModel:
        """The results' item model (for Qt's model tester)."""
        return self.window.model

    def compare_visible(self) -> bool:
        return self.window.compare_bar.isVisible()

    def no_match_visible(self) -> bool:
        """Whether the "no close match" line shows over the results."""
        return self.window.no_match.isVisible()

    def no_match_over_results(self) -> bool:
        """Whether the "no close match" line is placed over the results (not under them)."""
        return self.window.no_match.y() < self.window.table.y()

    def rows_muted(self) -> bool:
        """Whether the rows are drawn muted (no hit is a close match)."""
        return self.window.model.muted

    def no_match_text(self) -> str:
        return self.window.no_match.text()

    def index_counts(self) -> str:
        """The status bar's counts (notes, vectors, pending)."""
        return self.window.index_status.counts.text()

    def progress_words(self) -> str:
        """What the status bar's progress bar says while it shows ("Embedding 64 of 3,961 ·
        …"), else ``""``."""
        progress = self.window.index_status.progress
        return progress.words() if progress.isVisible() else ""

    def model_status(self) -> str:
        """The status bar's model ("model: … (ready)")."""
        return self.window.index_status.model.text()

    def watcher_status(self) -> str:
        return self.window.index_status.watcher.text()

    def skipped_link(self) -> str:
        """The status bar's "N skipped" while it shows, else ``""``."""
        skipped = self.window.index_status.skipped
        return skipped.text() if skipped.isVisible() else ""

    def click_skipped(self) -> None:
        """Click the status bar's "N skipped"."""
        self._bot().mouseClick(self.window.index_status.skipped, Qt.MouseButton.LeftButton)

    def health(self) -> Health | None:
        """The open vault's health, as the window last heard it."""
        return self.window.health

    def legend_note(self) -> tuple[str, bool]:
        """The legend's note beside it ("(tints mark Hybrid results)") and whether it shows
        whole."""
        note = self.window.legend.note
        return note.text(), note.width() >= note.sizeHint().width()

    def stall_monitor(self) -> StallMonitor:
        """The window's stall monitor (gaps of the GUI thread's event loop)."""
        return self.window.stall

    def reader(self) -> IndexReader:
        """The open vault's reader (its thread, its connection)."""
        session = self.window.session
        assert session is not None, "no vault open"
        return session.reader

    # ------------------------------------------------------------------ the layout

    def splitter_sizes(self) -> list[int]:
        """The widths of the results pane and the preview."""
        return self.window.splitter.sizes()

    def set_splitter_sizes(self, sizes: list[int]) -> None:
        """Drag the handle between the results and the preview to give them ``sizes``."""
        self.window.splitter.setSizes(sizes)

    def results_least_width(self) -> int:
        """The least width of the results pane (what the splitter cannot go below)."""
        results = self.window.splitter.widget(0)
        assert results is not None
        return results.minimumSizeHint().width()

    def set_column_width(self, column: Column, width: int) -> None:
        """Drag the edge of the results' ``column`` to make it ``width`` wide."""
        self.window.table.horizontalHeader().resizeSection(column, width)

    def column_hidden(self, column: Column) -> bool:
        return self.window.table.isColumnHidden(column)

    def search_has_focus(self) -> bool:
        return self.window.search_field.hasFocus()

    def table_has_focus(self) -> bool:
        return self.window.table.hasFocus()

    def quality_panel(self) -> QualityPanel:
        """View ▸ Quality Panel (shown or not)."""
        return self.window.quality

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
        self.check(Action.FACETS, True)

    def show_around(self, shown: bool) -> None:
        """View ▸ Around This Note, checked or not."""
        self.check(Action.AROUND, shown)

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

    def close_history_menu(self) -> None:
        """Esc on the history menu: it closes."""
        self.window.history.menu.hide()

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

    def check(self, key: Action, checked: bool) -> None:
        """Check (or uncheck) the menu action ``key``, as a person does when it is not."""
        action = self.window.action(key)
        if action.isChecked() != checked:
            action.trigger()

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
