"""The explorer window: search field, mode switch, fusion controls, results, preview, status.

The search bar asks for a search (150 ms after typing, at once on Enter); the vault's
:class:`~explorer.gui.core.session.VaultSession` fetches both lists on its search thread and the
window keeps them as :class:`~explorer.search.results.Candidates`.  Every change of the fusion
controls or of the mode re-fuses those cached lists on the spot with
:func:`~explorer.search.fusion.fuse` (no new search) and marks how rows moved.  The live index
runs from the moment a vault is open; its events re-run the query when a change may affect
it.  Nothing here waits for the model, the index or the disk.

A pinned baseline (:mod:`explorer.gui.results.compare_bar`) is fused from the same cached lists
on every change and compared with what is shown
(:func:`~explorer.search.compare.compare_responses`).
"""

from __future__ import annotations

import html
import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
    QIcon,
    QKeySequence,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider, ModelState, shared_provider
from explorer.gui.core.model_bridge import ModelBridge
from explorer.gui.core.resources import icon_path, sample_vault
from explorer.gui.core.search_flow import SearchFlow
from explorer.gui.core.session import VaultSession
from explorer.gui.core.theme import apply_theme, chosen_theme
from explorer.gui.panels.facets_panel import FacetsPanel
from explorer.gui.panels.fusion_controls import FusionControls
from explorer.gui.panels.quality_panel import QualityPanel
from explorer.gui.preview.around import AroundPanel
from explorer.gui.preview.preview import PreviewPane
from explorer.gui.results.compare_bar import CompareBar, Pair
from explorer.gui.results.distributions import DistributionsPanel
from explorer.gui.results.results_model import Column, ResultsModel, ResultsProxy, Role
from explorer.gui.results.results_view import ResultsView
from explorer.gui.statusbar.banner import Banner, banner_text, notes_text, problem_text
from explorer.gui.statusbar.index_status import IndexStatus, model_text
from explorer.gui.statusbar.legend import Legend
from explorer.gui.statusbar.no_close_match import NoCloseMatch
from explorer.gui.statusbar.stall import StallMonitor
from explorer.gui.statusbar.summary import summary_text
from explorer.gui.window import settings as opt
from explorer.gui.window.actions import Action, make_actions
from explorer.gui.window.dialogs import WindowDialogs
from explorer.gui.window.history import SearchHistory
from explorer.gui.window.menus import build_menus
from explorer.gui.window.model_menu import ModelMenu
from explorer.gui.window.placement import fit_restored, keep_on_screen, place_first
from explorer.gui.window.saved_menu import SavedMenu
from explorer.gui.window.search_bar import MODE_BUTTONS, SearchBar
from explorer.gui.window.settings import Settings
from explorer.gui.window.sort_control import SortControl
from explorer.home import HomeUnknown, expand_home
from explorer.index.model_choice import choose_model, chosen_model
from explorer.live import (
    EmbedDone,
    ErrorEvent,
    Health,
    LiveEvent,
    LiveIndex,
    NoticeEvent,
    SyncEvent,
)
from explorer.live.problems import Problem
from explorer.preview.explain import ExplainContext
from explorer.search.compare import Comparison
from explorer.search.facets import toggled_query
from explorer.search.options import Mode, SearchOptions
from explorer.search.query import QueryError
from explorer.search.quoting import filter_text
from explorer.search.results import Hit, SearchResponse
from explorer.search.saved import SavedSearch
from explorer.search.shown import Shown
from explorer.vault.obsidian import is_obsidian_vault, open_uri

log = logging.getLogger(__name__)

RESULT_LIMIT = 100
#: The size the first window would like: shrunk to the screen's available area when larger.
WANTED_SIZE = QSize(1360, 820)


class MainWindow(QMainWindow):
    """The one window of the application."""

    resultsShown = Signal(object)  # SearchResponse, each time the table changes
    vaultOpened = Signal(object)  # Path

    def __init__(
        self,
        provider: EmbedderProvider,
        *,
        data_dir: str | None = None,
        settings: Settings | None = None,
        watch: bool = True,
        stall_monitor: bool = True,
        fixed_model: bool = False,
    ) -> None:
        super().__init__()
        self.provider = provider
        #: The provider of a vault that has chosen no model (the one the window started with).
        self.launch_provider = provider
        #: The model was given with ``--model`` or the environment: vaults' choices do not apply.
        self.fixed_model = fixed_model
        self.data_dir = data_dir
        self.settings = settings or Settings()
        self.watch = watch
        self.vault: Path | None = None
        self.session: VaultSession | None = None
        self.last_event: LiveEvent | None = None
        self._model_state: ModelState | None = None
        self._problem: Problem | None = None  # what the banner says keeps the index behind
        self.open_url = QDesktopServices.openUrl  # tests replace it
        self.dialogs = WindowDialogs(self)  # Skipped Files, Tune on Judgments, Why Not
        #: The geometry the window was placed at (first size or restored, fitted to the
        #: screen), until it is shown and its real frame checked (:meth:`_keep_on_screen`).
        self.placed: QRect | None = None

        self.setWindowTitle("Vault Explorer")
        if icon_path().exists():
            self.setWindowIcon(QIcon(str(icon_path())))
        self._build_widgets()
        self._actions = make_actions(self)
        self.menus = build_menus(self, self._actions)
        self.saved_menu = SavedMenu(
            self.menus.saved,
            self.history,
            self.run_saved,
            [self.action(Action.SAVE_SEARCH), self.action(Action.MANAGE_SAVED)],
        )
        self.model_menu = ModelMenu(self, self.menus.search)
        self.sort_control.add_toggle(self.action(Action.FACETS))
        self._connect_signals()
        self.recent_menu = self.menus.recent
        self._build_shortcuts()
        self.stall = StallMonitor(self)
        if stall_monitor:
            self.stall.start()
        self.placed = place_first(self, WANTED_SIZE)
        self._restore_settings()
        # The model's state is reported when it changes (on the loader's thread, queued here).
        self.model_bridge = ModelBridge(self.provider, self)
        self.model_bridge.stateChanged.connect(
            self._model_changed, Qt.ConnectionType.QueuedConnection
        )
        self._model_changed()  # how it stands now

    # ================================================================== construction

    def _build_widgets(self) -> None:
        """Every widget, built in steps (none of them connected yet: :meth:`_connect_signals`)."""
        central = QWidget(self)
        search_row = self._init_search(central)
        left = self._init_results(central)
        self._init_preview(central)
        self._init_layout(central, search_row, left)
        self._init_docks()
        self._init_status_bar()
        self.resize(WANTED_SIZE)
        self.splitter.setSizes([760, 420])
        self.resizeDocks([self.around, self.facets], [300, 220], Qt.Orientation.Horizontal)

    def _init_search(self, central: QWidget) -> QHBoxLayout:
        """The search bar, the fusion controls, the summary, the flow and the compare bar."""
        self.search_bar = SearchBar(central)
        self.search_field = self.search_bar.field
        self.debounce = self.search_bar.debounce
        self.sort_control = SortControl(central)
        self.history = SearchHistory(self)  # the vault's recent and saved searches
        self.fusion = FusionControls(central)
        self.summary = QLabel(central)
        self.summary.setObjectName("summary")
        # The query on screen: searched, re-fused and kept current by the flow.
        self.flow = SearchFlow(self.search_field.text, self.options, self)
        self.refresh_timer = self.flow.refresh_timer
        self.compare_bar = CompareBar(central)
        # The summary sits by the mode switch: the fusion row is the window's widest (it wraps
        # onto two lines on a narrow window rather than widen the window's minimum).
        search_row = QHBoxLayout()
        search_row.setSpacing(10)
        search_row.addWidget(self.search_bar, 1)
        search_row.addWidget(self.sort_control)
        search_row.addWidget(self.summary)
        self.fusion.append(self.compare_bar.pin_button)  # wraps with the controls
        self.banner = Banner(central)
        return search_row

    def _init_results(self, central: QWidget) -> QWidget:
        """The results table over its model, with what shows around it; returns the left side."""
        self.model = ResultsModel(self)
        self.proxy = ResultsProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = ResultsView(central)
        self.table.setModel(self.proxy)
        self.table.configure_header()
        self.table.place_base_column()
        self.legend = Legend(central)
        self.no_match = NoCloseMatch(central)
        self.distributions = DistributionsPanel(central)  # View ▸ Score Distributions
        self.empty = QLabel(central)
        self.empty.setObjectName("emptyState")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.hide()
        left = QWidget(central)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(4)
        left_layout.addWidget(self.no_match)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.empty)
        left_layout.addWidget(self.distributions)
        left_layout.addWidget(self.legend)
        return left

    def _init_preview(self, central: QWidget) -> None:
        self.preview = PreviewPane(central)

    def _init_layout(self, central: QWidget, search_row: QHBoxLayout, left: QWidget) -> None:
        """The results and the preview side by side under the search rows."""
        self.splitter = QSplitter(Qt.Orientation.Horizontal, central)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.preview)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.setSpacing(6)
        layout.addLayout(search_row)
        layout.addWidget(self.fusion)
        layout.addWidget(self.banner)
        layout.addWidget(self.compare_bar)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

    def _init_docks(self) -> None:
        """View ▸ Quality Panel (hidden at first), View ▸ Around This Note: backlinks and
        related notes of the note in the preview, and View ▸ Facets beside the results."""
        self.quality = QualityPanel(self.data_dir, self.options, self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.quality)
        self.quality.hide()
        self.around = AroundPanel(self.provider.name, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.around)
        self.facets = FacetsPanel(self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.facets)
        self.facets.hide()  # View ▸ Facets (Ctrl+Shift+F), or the Facets button by the sort

    def _init_status_bar(self) -> None:
        self.index_status = IndexStatus(self.statusBar())

    def _connect_signals(self) -> None:
        """The signals between the widgets (the session's are wired when a vault opens, the
        model bridge's when a provider is used)."""
        self.search_bar.searchRequested.connect(self.search_now)
        self.search_bar.modeChanged.connect(self._mode_changed)
        self.search_bar.downPressed.connect(self.table.enter)  # Down: into the results
        self.search_bar.downPressed.connect(self.remember_query)
        self.search_field.returnPressed.connect(self.remember_query)
        self.search_bar.historyRequested.connect(lambda: self.history.show_menu(self.search_field))
        self.history.recalled.connect(self.recall)
        self.history.problem.connect(
            lambda line: self.statusBar().showMessage(safe_text(line), 10_000)
        )
        self.sort_control.changed.connect(self._sort_changed)
        self.facets.toggled.connect(self.toggle_filter)
        self.fusion.changed.connect(self._fusion_changed)
        self.flow.searchStarted.connect(lambda: self.summary.setText("searching…"))
        self.flow.showing.connect(self._show)
        self.flow.failed.connect(self._search_failed)
        self.compare_bar.pinRequested.connect(self.pin_baseline)
        self.compare_bar.unpinRequested.connect(self.unpin_baseline)
        self.compare_bar.pairRequested.connect(self.compare_pair)

        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.clicked.connect(self._row_clicked)
        self.table.clicked.connect(self.remember_query)
        self.table.openRequested.connect(self.open_note)
        self.table.copyRequested.connect(self.copy_path)
        self.table.whyRequested.connect(lambda hit: self.dialogs.show_why_not(hit.path))
        self.table.gradeRequested.connect(self.grade)
        self.table.obsidianRequested.connect(lambda hit: self.open_in_obsidian(hit.path))
        self.table.leaveRequested.connect(self.focus_search)  # Esc: back to the query

        self.preview.filterRequested.connect(self.add_filter)
        self.preview.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.preview.obsidianRequested.connect(self.open_in_obsidian)
        self.preview.note_opened.connect(self.around.show_note)
        self.around.openRequested.connect(self.preview.open_note)

        self.quality.queryActivated.connect(self.set_query)
        self.quality.judging.changed.connect(self._show_grades)
        self.quality.judging.saved.connect(lambda text: self.statusBar().showMessage(text, 10_000))

        self.index_status.skippedClicked.connect(self.dialogs.show_skipped)
        self.index_status.modelOffered.connect(self.model_menu.choose)

    def _build_shortcuts(self) -> None:
        for keys in ("Ctrl+K", "Ctrl+L"):
            QShortcut(QKeySequence(keys), self).activated.connect(self.focus_search)
        for number, (mode, _) in enumerate(MODE_BUTTONS, start=1):
            shortcut = QShortcut(QKeySequence(f"Ctrl+{number}"), self)
            shortcut.activated.connect(lambda m=mode: self.set_mode(m))

    def _restore_settings(self) -> None:
        s = self.settings
        for option, restore in (
            (opt.GEOMETRY, self.restoreGeometry),
            (opt.SPLITTER, self.splitter.restoreState),
            (opt.HEADER, self.table.restore_header),
        ):
            state = s.get(option)
            if not state.isEmpty() and restore(state) and option is opt.GEOMETRY:
                self.placed = fit_restored(self)
        options = s.search_options()
        for notice in s.notices:  # a bad saved value: its default, and one line saying so
            log.warning("%s", safe_text(notice))
            self.statusBar().showMessage(safe_text(notice), 15_000)
        self.fusion.set_options(options)
        self.sort_control.set_sort(options.sort)
        self.set_mode(options.mode)
        self.table.setColumnHidden(Column.BASE, self.baseline is None)
        self.menus.themes[chosen_theme(s.get(opt.THEME))].setChecked(True)

    def save_settings(self) -> None:
        s = self.settings
        s.set(opt.GEOMETRY, self.saveGeometry())
        s.set(opt.SPLITTER, self.splitter.saveState())
        s.set(opt.HEADER, self.table.header_state())
        s.set_search_options(self.options())
        s.set(opt.LAST_QUERY, self.search_field.text())
        s.sync()

    def action(self, key: Action) -> QAction:
        """The menu action declared as ``key``."""
        return self._actions[key]

    # ================================================================== the session's parts

    @property
    def live(self) -> LiveIndex | None:
        return self.session.live if self.session is not None else None

    @property
    def health(self) -> Health | None:
        return self.session.health if self.session is not None else None

    @property
    def searching(self) -> bool:
        return self.flow.searching

    @property
    def shown(self) -> Shown:
        """The query on screen (lists, settings, baseline; the rest derived)."""
        return self.flow.shown

    @property
    def response(self) -> SearchResponse | None:
        """What the table shows."""
        return self.shown.response

    @property
    def baseline(self) -> SearchOptions | None:
        """The pinned settings, compared with."""
        return self.shown.baseline

    @property
    def comparison(self) -> Comparison | None:
        """The baseline against what is shown."""
        return self.shown.comparison

    def live_settled(self) -> bool:
        """Whether the live index is idle: start-up reconcile done, nothing left to embed."""
        return self.session is not None and self.session.settled()

    # ================================================================== vaults

    def open_vault(self, path: Path) -> None:
        """Switch to ``path``: close the old vault (in the background), open this one."""
        try:
            path = expand_home(path).resolve()
        except HomeUnknown as exc:
            QMessageBox.warning(self, "Open Vault", safe_text(str(exc)))
            return
        if not path.is_dir():
            QMessageBox.warning(self, "Open Vault", f"Not a folder: {safe_text(str(path))}")
            return
        self._close_session()
        self._use_provider(self._provider_for(path))
        self.vault = path
        self.history.open_vault(path, self.data_dir)
        self.settings.remember_vault(str(path))
        self.settings.sync()
        self.setWindowTitle(f"{safe_text(path.name)} — Vault Explorer")
        self.table.obsidian_vault = is_obsidian_vault(path)
        self.model.clear()
        self.no_match.show_for(None)
        self.distributions.show_response(None, None)
        self.index_status.counts.setText("opening index…")
        session = VaultSession(path, self.data_dir, self.provider, watch=self.watch, parent=self)
        session.opened.connect(self._session_opened)
        session.openFailed.connect(self._session_failed)
        session.liveEvent.connect(self._live_event)
        session.healthChanged.connect(self._health_changed)
        if session.live is not None and self.action(Action.PAUSE_EMBEDDING).isChecked():
            session.live.pause_embedding()  # File ▸ Pause Embedding holds for every vault
        self.session = session
        self.preview.set_vault(path, session)  # its links from the session's index
        self.flow.attach(session)
        session.open()
        self.vaultOpened.emit(path)

    def use_model(self, name: str) -> None:
        """Read this vault's meaning with the model ``name`` from now on: the choice is
        remembered for the vault (the commands use it too) and the vault is opened again."""
        if self.vault is None:
            return
        choose_model(self.vault, name, self.data_dir)
        self.open_vault(self.vault)

    def _provider_for(self, vault: Path) -> EmbedderProvider:
        """The provider of the model ``vault`` has chosen, else the window's own."""
        chosen = None if self.fixed_model else chosen_model(vault, self.data_dir)
        if chosen is None or chosen == self.launch_provider.name:
            return self.launch_provider
        return shared_provider(chosen)

    def _use_provider(self, provider: EmbedderProvider) -> None:
        if provider is self.provider:
            return
        self.model_bridge.close()
        self.model_bridge.deleteLater()
        self.provider = provider
        self.around.model = provider.name
        self.model_bridge = ModelBridge(provider, self)
        self.model_bridge.stateChanged.connect(
            self._model_changed, Qt.ConnectionType.QueuedConnection
        )
        self._model_state = None
        self._model_changed()

    def open_sample_vault(self) -> None:
        self.open_vault(sample_vault())

    def _close_session(self, wait: bool = False) -> None:
        self.debounce.stop()
        self.flow.detach()
        self.quality.close_vault(wait=wait)
        self.around.close_vault()
        self.facets.close_vault()
        self.history.close_vault()
        if self.session is not None:
            session, self.session = self.session, None
            for signal in (session.liveEvent, session.healthChanged):
                signal.disconnect()
            session.close(wait=wait)
            session.deleteLater()
        self.index_status.hide_progress()
        self._problem = None  # that index's

    def _session_opened(self, notices: list[str]) -> None:
        if self.session is not None:
            self.quality.open_vault(self.session)
            self.around.open_vault(self.session)
            self.facets.open_vault(self.session)
        for notice in notices:
            self.statusBar().showMessage(safe_text(notice), 10_000)
        self.search_now()

    def _session_failed(self, message: str) -> None:
        self.index_status.counts.setText("index unavailable")
        shown = safe_text(message)
        self._show_empty(f"The index could not be opened: {html.escape(shown)}")
        QMessageBox.critical(self, "Vault Explorer", f"The index could not be opened:\n{shown}")

    def choose_vault(self) -> None:
        start = str(self.vault.parent) if self.vault else str(Path.home())
        chosen = QFileDialog.getExistingDirectory(self, "Open Vault", start)
        if chosen:
            self.open_vault(Path(chosen))

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.get(opt.RECENT_VAULTS)
        for entry in recent:
            action = self.recent_menu.addAction(safe_text(entry))
            action.setEnabled(Path(entry).is_dir())
            action.triggered.connect(lambda _=False, p=entry: self.open_vault(Path(p)))
        if not recent:
            self.recent_menu.addAction("(none)").setEnabled(False)

    def reconcile(self) -> None:
        if self.session is not None:
            self.session.reconcile()
            self.statusBar().showMessage("Reconciling the index with the vault…", 3000)

    # ================================================================== searching

    def mode(self) -> str:
        return self.search_bar.mode()

    def set_mode(self, mode: str) -> None:
        self.search_bar.set_mode(mode)

    def options(self) -> SearchOptions:
        """The search settings on screen: the mode switch, the fusion controls and the sort."""
        base = SearchOptions(
            mode=Mode(self.mode()), limit=RESULT_LIMIT, sort=self.sort_control.sort()
        )
        return self.fusion.options(base)

    def set_query(self, text: str, *, search: bool = True) -> None:
        """Put ``text`` in the search field and (by default) search it at once."""
        self.search_field.setText(text)
        if search:
            self.search_now()

    def search_now(self) -> None:
        """Search the field's text now (Enter, the debounce timer, a refresh).  Before the
        index is open this does nothing: the search runs as soon as it is."""
        self.debounce.stop()
        self.flow.search_now()

    def _search_failed(self, shown: Shown) -> None:
        self.model.clear()
        self.facets.show_results(shown.raw or "", [])
        self.no_match.show_for(None)
        self.distributions.show_response(None, None)
        if shown.baseline is not None:
            self.compare_bar.show_comparison(shown.baseline, None, "no result to compare")
        self.preview.clear()
        self.summary.setText("")
        self._show_empty(html.escape(safe_text(shown.error or "search failed")))
        self._update_banner()

    def _show(self, shown: Shown, compare: bool, new_query: bool) -> None:
        """Show the query on screen: the table, the comparison, the panels below it."""
        if new_query:
            self.table.chosen_path = None  # a new query: follow its top hit
        response, baseline = shown.response, shown.baseline
        assert response is not None  # the flow shows what its lists answer
        if baseline is not None:
            self.compare_bar.show_comparison(baseline, shown.comparison)
        self._show_grades()
        self.model.set_response(
            response, compare=compare, baseline=shown.comparison, order=self.flow.order
        )
        self.facets.show_results(response.query, [hit.path for hit in response.hits])
        self.no_match.show_for(response)
        self.distributions.show_response(response, shown.candidates)
        self.table.setColumnHidden(Column.BASE, baseline is None)
        self.legend.update_legend(self.model.tinted or not response.hits)
        self._restore_selection()
        self._update_summary(response)
        self._update_banner()
        self.resultsShown.emit(response)

    # ================================================================== the baseline

    def pin_baseline(self) -> None:
        """Compare every result from now on with the settings on screen (Ctrl+B)."""
        self._pin(self.options())

    def unpin_baseline(self) -> None:
        """Back to the plain results: no Base column, moves at the last step (Ctrl+Shift+B)."""
        self.compare_bar.unpinned()
        self.table.setColumnHidden(Column.BASE, True)
        self.flow.pin(None)

    def compare_pair(self, pair: Pair) -> None:
        """Pin the first settings of ``pair`` and show the second (Compare ▸ …), one click."""
        baseline, tried = pair.settings(self.options())
        self.fusion.set_options(tried)
        self.flow.set_baseline(baseline)  # before the mode changes: its re-fuse compares
        self.set_mode(tried.mode)
        self._pin(baseline)

    def _pin(self, baseline: SearchOptions) -> None:
        self.compare_bar.show_comparison(baseline, None)
        self.table.setColumnHidden(Column.BASE, False)
        self.flow.pin(baseline)

    def _restore_selection(self) -> None:
        """Select the hit the user chose if it is still there, else the first row."""
        if not self.model.rowCount():
            self.preview.clear()
            return
        had_focus = self.search_field.hasFocus()
        self.table.select_path(self.table.chosen_path)
        if had_focus:
            self.search_field.setFocus()

    def _update_summary(self, response: SearchResponse) -> None:
        summary, empty = summary_text(response)
        self.summary.setText(summary)
        if empty is None:
            self.empty.hide()
        else:
            self._show_empty(empty)

    def _show_empty(self, text: str) -> None:
        self.empty.setText(text)
        self.empty.show()

    def _mode_changed(self, _mode: str) -> None:
        self.flow.settings_changed(compare=False)
        self._update_banner()

    def _fusion_changed(self) -> None:
        if self.shown.lists is not None:
            self.flow.refuse(compare=True)
        self.quality.schedule()  # the judged queries' scores under the new settings

    def add_filter(self, kind: str, value: str) -> None:
        """Add ``tag:``/``path:`` to the query (a click in the preview) and search."""
        token = filter_text(kind, value)
        text = self.search_field.text().strip()
        if token not in text.split():
            self.set_query(f"{text} {token}".strip())

    def toggle_filter(self, token: str) -> None:
        """A facet's click: add its filter ``token`` to the query, or remove it when the query
        holds it already, and search."""
        self.set_query(toggled_query(self.search_field.text(), token))

    def _sort_changed(self, _sort: str) -> None:
        """A new order of the hits: the table's header goes back to the # column (so the
        chosen order shows) and the kept lists are shown in it (no new search)."""
        self.table.sortByColumn(Column.RANK, Qt.SortOrder.AscendingOrder)
        self.flow.settings_changed(compare=False)

    # ================================================================== history, saved searches

    def remember_query(self) -> None:
        """Keep the field's query among the vault's recent ones (Enter, moving into the
        results, opening a note: see :mod:`~explorer.gui.window.history`)."""
        self.history.remember(self.search_field.text(), self.options())

    def recall(self, query: str) -> None:
        """A recent query chosen from the history: search it with the settings on screen."""
        self.set_query(query)
        self.focus_search()

    def save_search(self, name: str | None = None) -> bool:
        """Search ▸ Save Search…: keep the query and the settings on screen as ``name`` (asked
        for when not given); whether it was saved."""
        if self.history.store is None:
            self.statusBar().showMessage("Open a vault to save its searches", 5000)
            return False
        if name is None:
            name, ok = QInputDialog.getText(
                self, "Save Search", "Name of the search:", text=self.search_field.text()[:60]
            )
            if not ok:
                return False
        try:
            self.history.save(name, self.search_field.text(), self.options())
        except (QueryError, OSError) as exc:
            QMessageBox.warning(self, "Save Search", safe_text(str(exc)))
            return False
        self.statusBar().showMessage(f"Saved search “{safe_text(name.strip())}”", 5000)
        return True

    def run_saved(self, saved: SavedSearch) -> None:
        """Run a saved search: its settings on screen (mode, fusion, sort), then its query."""
        options = saved.options
        self.fusion.set_options(options)
        self.sort_control.set_sort(options.sort)
        self.set_mode(options.mode)
        self.set_query(saved.query)

    # ================================================================== live index

    def _live_event(self, event: LiveEvent) -> None:
        """What the window itself does with the live index's events (the flow re-searches,
        the panels and the preview follow the session, the progress bar follows the health)."""
        self.last_event = event
        if isinstance(event, SyncEvent | EmbedDone):
            self.stall.mark(f"{event.kind}: {event.message}")
        if isinstance(event, ErrorEvent | NoticeEvent) and event.message:
            self.statusBar().showMessage(safe_text(event.message), 8000)

    def _health_changed(self, health: Health) -> None:
        self.index_status.follow(health, model_text(self.provider), settled=self.live_settled())
        if health.problem != self._problem:
            self._problem = health.problem
            self._update_banner()

    def set_embedding_paused(self, paused: bool) -> None:
        """File ▸ Pause Embedding: hold (or resume) the embedding of this vault's notes, and
        of any vault opened while it is checked."""
        if self.live is not None:
            self.live.pause_embedding(paused)

    def _model_changed(self, _state: ModelState | None = None) -> None:
        """The model's state changed (or may have): show it, and re-search when it arrived."""
        state = self.provider.state
        if state == self._model_state:
            return
        previous, self._model_state = self._model_state, state
        self.stall.mark(f"model {state.value}")
        self.index_status.model.setText(model_text(self.provider))
        if self.provider.error and state in (ModelState.FAILED, ModelState.DISABLED):
            self.index_status.model.setToolTip(safe_text(self.provider.error))
        self._update_banner()
        if previous is not None and state in (ModelState.READY, ModelState.FAILED):
            # The model arrived (or never will): hybrid results replace the lexical ones.
            self.flow.schedule_refresh(None, 0)

    def banner_text(self) -> str | None:
        """What keeps the index behind, then why semantic search is not in the result, then
        the query's notes."""
        texts = [
            problem_text(self._problem) if self._problem is not None else None,
            banner_text(self.mode(), self.provider, self.response),
            notes_text(self.response),
        ]
        return "<br>".join(t for t in texts if t) or None

    def _update_banner(self) -> None:
        text = self.banner_text()
        if text:
            self.banner.show_message(text)
        else:
            self.banner.hide()

    # ================================================================== selection and actions

    def _selection_changed(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        hit = self.table.current_hit()
        response = self.response
        self.distributions.select(hit.path if hit is not None else None)
        if hit is None or response is None:
            self.preview.clear()
            return
        self.preview.show_hit(hit, self.shown.query, self._explain_context(hit))

    def _explain_context(self, hit: Hit) -> ExplainContext:
        rank = self.model.rank_of(hit.path) or self.model.row_of(hit.path) + 1
        context = self.flow.explain_context(hit, rank)
        assert context is not None  # a hit is selected: a response is shown
        return context

    def _row_clicked(self, _index: QModelIndex) -> None:
        """A click on the selected hit after following links in the preview shows it again
        (a click that changes the selection is handled by :meth:`_selection_changed`)."""
        hit = self.table.current_hit()
        if hit is None or self.response is None or self.preview.shown_path == hit.path:
            return
        self.preview.reopen_hit(hit, self.shown.query, self._explain_context(hit))

    def grade(self, hit: Hit, grade: int | None) -> None:
        """Keys 0–3 (Delete: None) on a hit: save its grade for the shown query at once."""
        refused = self.quality.grade(self.flow.graded_query, hit, grade)
        if refused is not None:  # else it shows at once; ``saved`` tells when it is on disk
            self.statusBar().showMessage(refused, 10_000)

    def _show_grades(self) -> None:
        grades, judged = self.quality.grades(self.flow.graded_query)
        self.model.set_grades(grades, judged=judged)

    def open_note(self, hit: Hit) -> None:
        """Open the note in the system's default editor (Enter, double click)."""
        self.remember_query()
        if self.vault is not None:
            self.open_url(QUrl.fromLocalFile(str(self.vault / hit.path)))
            self.statusBar().showMessage(f"Opened {safe_text(hit.path)}", 3000)

    def open_in_obsidian(self, path: str) -> None:
        """Open the note in Obsidian (the results' and the preview's menus offer it for an
        Obsidian vault)."""
        if self.vault is not None:
            self.open_url(QUrl(open_uri(self.vault, path), QUrl.ParsingMode.StrictMode))
            self.statusBar().showMessage(f"Opened {safe_text(path)} in Obsidian", 3000)

    def copy_path(self, hit: Hit) -> None:
        """Copy the note's full path (Ctrl+C in the results)."""
        if self.vault is not None:
            path = str(self.vault / hit.path)
            QGuiApplication.clipboard().setText(path)
            self.statusBar().showMessage(f"Copied {safe_text(path)}", 3000)

    def focus_search(self) -> None:
        self.search_bar.focus()

    def set_theme(self, theme: str) -> None:
        self.settings.set(opt.THEME, theme)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, theme)
        self._palette_changed()

    def _palette_changed(self) -> None:
        self.model.refresh_palette()
        self.legend.update_legend(self.model.tinted or self.response is None)
        self._update_banner()
        self.preview.refresh()

    # ================================================================== events

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.placed is not None:
            QTimer.singleShot(0, self, self._keep_on_screen)  # not after the window is gone

    def _keep_on_screen(self) -> None:
        """Once shown, with the frame the platform reports, fit the window onto its screen
        (:func:`~explorer.gui.window.placement.keep_on_screen`)."""
        placed, self.placed = self.placed, None
        keep_on_screen(self, placed)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._palette_changed()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_settings()
        self.stall.stop()
        self.model_bridge.close()
        self.dialogs.close()
        self.hide()
        self._close_session(wait=True)
        super().closeEvent(event)

    # ================================================================== for tools and tests

    def shown_paths(self) -> list[str]:
        """Paths of the rows in view order (after sorting)."""
        return [str(self.proxy.index(r, 0).data(Role.PATH)) for r in range(self.proxy.rowCount())]

    def wait_state(self) -> dict[str, Any]:
        """What a tool waiting for the window to settle looks at (the screenshot, tests)."""
        response = self.response
        return {
            "time": time.time(),
            "query": response.query if response else None,
            "hits": len(response.hits) if response else 0,
            "semantic": response.semantic.available if response else None,
            "searching": self.searching,
            "model": self.provider.state.value,
            "pending": self.health.pending_embeddings if self.health else None,
            "settled": self.live_settled(),
            "preview": self.preview.shown_path,
        }
