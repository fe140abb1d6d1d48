"""The explorer window: search field, mode switch, fusion controls, results, preview, status.

The search bar asks for a search (150 ms after typing, at once on Enter); the vault's
:class:`~explorer.gui.core.session.VaultSession` fetches both lists on its search thread and the
window keeps them as :class:`~explorer.search.fusion.results.Candidates`.  Every change of the
fusion controls or of the mode re-fuses those cached lists on the spot with
:func:`~explorer.search.fusion.fusion.fuse` (no new search) and marks how rows moved.  The live
index runs from the moment a vault is open; its events re-run the query when a change may affect
it.  Nothing here waits for the model, the index or the disk.

A pinned baseline (:mod:`explorer.gui.results.compare_bar`) is fused from the same cached lists
on every change and compared with what is shown
(:func:`~explorer.search.answers.compare.compare_responses`).
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QIcon,
    QKeySequence,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.resources import icon_path
from explorer.gui.core.search_flow import SearchFlow
from explorer.gui.core.session import VaultSession
from explorer.gui.core.theme import apply_theme, chosen_theme
from explorer.gui.panels.facets_panel import FacetsPanel
from explorer.gui.panels.fusion_controls import FusionControls
from explorer.gui.panels.quality_panel import QualityPanel
from explorer.gui.preview.around import AroundPanel
from explorer.gui.preview.preview import PreviewPane
from explorer.gui.results.compare_bar import CompareBar
from explorer.gui.results.distributions import DistributionsPanel
from explorer.gui.results.results_model import Column, ResultsModel, ResultsProxy
from explorer.gui.results.results_view import ResultsView
from explorer.gui.statusbar.banner import Banner
from explorer.gui.statusbar.index_status import IndexStatus
from explorer.gui.statusbar.legend import Legend
from explorer.gui.statusbar.no_close_match import NoCloseMatch
from explorer.gui.statusbar.stall import StallMonitor
from explorer.gui.statusbar.summary import summary_text
from explorer.gui.window import settings as opt
from explorer.gui.window.actions import Action, make_actions
from explorer.gui.window.comparing import Comparing
from explorer.gui.window.dialogs import WindowDialogs
from explorer.gui.window.grading import Grading
from explorer.gui.window.history import SearchHistory
from explorer.gui.window.index_follow import IndexFollow
from explorer.gui.window.menus import build_menus
from explorer.gui.window.model_menu import ModelMenu
from explorer.gui.window.models import Models
from explorer.gui.window.note_actions import NoteActions
from explorer.gui.window.parts import WindowParts
from explorer.gui.window.placement import fit_restored, keep_on_screen, place_first
from explorer.gui.window.saved_menu import SavedMenu
from explorer.gui.window.search_bar import MODE_BUTTONS, SearchBar
from explorer.gui.window.searches import Searches
from explorer.gui.window.selection import Selection
from explorer.gui.window.settings import Settings
from explorer.gui.window.sort_control import SortControl
from explorer.gui.window.vault_commands import VaultCommands
from explorer.gui.window.vault_state import VaultStates
from explorer.home import HomeUnknown, expand_home
from explorer.index.model_choice import choose_model
from explorer.live import (
    Health,
)
from explorer.search.answers.facets import holds_filter, toggled_query
from explorer.search.answers.shown import Shown
from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import Mode, SearchOptions
from explorer.search.query.quoting import filter_text
from explorer.vault.obsidian import is_obsidian_vault

log = logging.getLogger(__name__)

RESULT_LIMIT = 100
#: The size the first window would like: shrunk to the screen's available area when larger.
WANTED_SIZE = QSize(1360, 820)


class MainWindow(WindowParts):
    """The one window of the application."""

    resultsShown = Signal(object)  # SearchResponse, each time the table changes
    dialogs: WindowDialogs

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
        self._launch = provider  # the provider it starts with (then the models controller's)
        self.data_dir = data_dir
        self.settings = settings or Settings()
        self.watch = watch
        self.vault: Path | None = None
        self.session: VaultSession | None = None
        self.dialogs = WindowDialogs(self)  # Skipped Files, Tune on Judgments, Why Not
        #: The geometry the window was placed at (first size or restored, fitted to the
        #: screen), until it is shown and its real frame checked (:meth:`_keep_on_screen`).
        self.placed: QRect | None = None

        self.setWindowTitle("Vault Explorer")
        if icon_path().exists():
            self.setWindowIcon(QIcon(str(icon_path())))
        self._build_widgets()
        # The controllers: each does one part of the window's work with what it is given.
        self.selection = Selection(
            self.table,
            self.model,
            self.flow,
            self.preview,
            self.distributions,
            self.search_field,
            self,
        )
        self.vault_states = VaultStates(
            self.settings, self, self.search_field, self.sort_control, self.table, self.set_query
        )
        say = self.statusBar().showMessage
        self.grading = Grading(self.quality, self.flow, self.model, say, self)
        self.comparing = Comparing(
            self.flow, self.compare_bar, self.table, self.fusion, self.options, self.set_mode, self
        )
        self.searches = Searches(
            self.history,
            self.search_field,
            self.options,
            fusion=self.fusion,
            sort=self.sort_control,
            set_mode=self.set_mode,
            set_query=self.set_query,
            focus=self.focus_search,
            say=say,
            window=self,
        )
        self.notes = NoteActions(lambda: self.vault, say, self.searches.remember, self)
        self.vaults = VaultCommands(
            self.open_vault, lambda: self.vault, lambda: self.session, self.settings, say, self
        )
        self._actions = make_actions(self)
        self.menus = build_menus(self, self._actions)
        self.saved_menu = SavedMenu(
            self.menus.saved,
            self.history,
            self.searches.run,
            [self.action(Action.SAVE_SEARCH), self.action(Action.MANAGE_SAVED)],
        )
        self.model_menu = ModelMenu(self, self.menus.search)
        self.sort_control.add_toggle(self.action(Action.FACETS))
        self._connect_signals()
        self._build_shortcuts()
        self.stall = StallMonitor(self)
        self.follow = IndexFollow(
            self.index_status,
            self.banner,
            self.stall,
            provider=lambda: self.provider,
            mode=self.mode,
            response=lambda: self.response,
            settled=self.live_settled,
            say=say,
            parent=self,
        )
        self.models = Models(
            self._launch,
            fixed=fixed_model,
            data_dir=data_dir,
            status=self.index_status,
            stall=self.stall,
            around=self.around,
            update_banner=self.follow.update_banner,
            refresh=lambda: self.flow.schedule_refresh(None, 0),
            parent=self,
        )
        if stall_monitor:
            self.stall.start()
        self.placed = place_first(self, WANTED_SIZE)
        self._restore_settings()
        self.models.changed()  # how the model stands now

    # ================================================================== construction

    def _build_widgets(self) -> None:
        """Every widget, built in steps (none of them connected yet: :meth:`_connect_signals`)."""
        central = QWidget(self)
        search_row = self._init_search(central)
        left = self._init_results(central)
        self.preview = PreviewPane(central)
        self._init_layout(central, search_row, left)
        self._init_docks()
        self.index_status = IndexStatus(self.statusBar())
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
        self.around = AroundPanel(self._launch.name, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.around)
        self.facets = FacetsPanel(self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.facets)
        self.facets.hide()  # View ▸ Facets (Ctrl+Shift+F), or the Facets button by the sort

    def _connect_signals(self) -> None:
        """The signals between the widgets (the session's are wired when a vault opens, the
        model bridge's when a provider is used)."""
        self.search_bar.searchRequested.connect(self.search_now)
        self.search_bar.modeChanged.connect(self._mode_changed)
        self.search_bar.downPressed.connect(self.table.enter)  # Down: into the results
        self.search_bar.downPressed.connect(self.searches.remember)
        self.search_field.returnPressed.connect(self.searches.remember)
        self.search_bar.historyRequested.connect(lambda: self.history.show_menu(self.search_field))
        self.history.recalled.connect(self.searches.recall)
        self.history.problem.connect(self.searches.show_problem)
        self.sort_control.changed.connect(self._sort_changed)
        self.facets.toggled.connect(self.toggle_filter)
        self.fusion.changed.connect(self._fusion_changed)
        self.flow.searchStarted.connect(lambda: self.summary.setText("searching…"))
        self.flow.showing.connect(self._show)
        self.flow.failed.connect(self._search_failed)

        self.table.clicked.connect(self.searches.remember)
        self.table.openRequested.connect(self.notes.open_note)
        self.table.copyRequested.connect(self.notes.copy_path)
        self.table.whyRequested.connect(lambda hit: self.dialogs.show_why_not(hit.path))
        self.table.gradeRequested.connect(self.grading.grade)
        self.table.obsidianRequested.connect(lambda hit: self.notes.open_in_obsidian(hit.path))
        self.table.leaveRequested.connect(self.focus_search)  # Esc: back to the query

        self.preview.filterRequested.connect(self.add_filter)
        self.preview.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.preview.obsidianRequested.connect(self.notes.open_in_obsidian)
        self.preview.note_opened.connect(self.around.show_note)
        self.around.openRequested.connect(self.preview.open_note)

        self.quality.queryActivated.connect(self.set_query)

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
        self.table.setColumnHidden(Column.BASE, self.flow.shown.baseline is None)
        self.menus.themes[chosen_theme(s.get(opt.THEME))].setChecked(True)
        self.preview.set_arithmetic(s.get(opt.ARITHMETIC))

    def save_settings(self) -> None:
        self.vault_states.keep(self.vault)
        s = self.settings
        s.set(opt.GEOMETRY, self.saveGeometry())
        s.set(opt.SPLITTER, self.splitter.saveState())
        s.set(opt.HEADER, self.table.header_state())
        s.set(opt.ARITHMETIC, self.preview.arithmetic)
        s.set_search_options(self.options())
        s.sync()

    def action(self, key: Action) -> QAction:
        """The menu action declared as ``key``."""
        return self._actions[key]

    # ================================================================== the session's parts

    @property
    def provider(self) -> EmbedderProvider:
        """The meaning model's provider (the open vault's choice, else the window's own)."""
        return self.models.provider

    @property
    def health(self) -> Health | None:
        return self.session.health if self.session is not None else None

    @property
    def response(self) -> SearchResponse | None:
        """What the table shows."""
        return self.flow.shown.response

    def live_settled(self) -> bool:
        """Whether the live index is idle: start-up reconcile done, nothing left to embed."""
        return self.session is not None and self.session.settled()

    # ================================================================== vaults

    def open_vault(self, path: Path, *, query: str | None = None) -> None:
        """Switch to ``path``: close the old vault (in the background), open this one as it
        was left (its query, sort and panels), or on ``query`` sorted by relevance."""
        try:
            path = expand_home(path).resolve()
        except HomeUnknown as exc:
            QMessageBox.warning(self, "Open Vault", safe_text(str(exc)))
            return
        if not path.is_dir():
            QMessageBox.warning(self, "Open Vault", f"Not a folder: {safe_text(str(path))}")
            return
        self.vault_states.keep(self.vault)
        self._close_session()
        self.models.use(self.models.provider_for(path))
        self.vault = path
        self.vault_states.restore(path, query)
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
        session.liveEvent.connect(self.follow.live_event)
        session.healthChanged.connect(self.follow.health_changed)
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
        self.follow.closed()

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
        self.follow.update_banner()

    def _show(self, shown: Shown, compare: bool, new_query: bool) -> None:
        """Show the query on screen: the table, the comparison, the panels below it."""
        response, baseline = shown.response, shown.baseline
        assert response is not None  # the flow shows what its lists answer
        self.selection.before(response, new_query)
        if baseline is not None:
            self.compare_bar.show_comparison(baseline, shown.comparison)
        self.grading.show()
        self.model.set_response(
            response, compare=compare, baseline=shown.comparison, order=self.flow.order
        )
        self.facets.show_results(response.query, [hit.path for hit in response.hits])
        self.no_match.show_for(response)
        self.distributions.show_response(response, shown.candidates)
        self.table.setColumnHidden(Column.BASE, baseline is None)
        self.legend.update_legend(self.model.tinted or not response.hits)
        self.selection.restore()
        summary, empty = summary_text(response)
        self.summary.setText(summary)
        self._show_empty(empty)
        self.follow.update_banner()
        self.resultsShown.emit(response)

    def _show_empty(self, text: str | None) -> None:
        """The line over an empty result (``None``: there is none)."""
        self.empty.setText(text or "")
        self.empty.setVisible(text is not None)

    def _mode_changed(self, _mode: str) -> None:
        self.flow.settings_changed(compare=False)
        self.follow.update_banner()

    def _fusion_changed(self) -> None:
        if self.flow.shown.lists is not None:
            self.flow.show_fused(compare=True)
        self.quality.schedule()  # the judged queries' scores under the new settings

    def add_filter(self, kind: str, value: str) -> None:
        """Add ``tag:``/``path:`` to the query (a click in the preview) and search."""
        token = filter_text(kind, value)
        text = self.search_field.text().strip()
        if not holds_filter(text, token):  # however the query writes it (quotes, case)
            self.set_query(f"{text} {token}".strip())
            self.searches.remember()

    def toggle_filter(self, token: str) -> None:
        """A facet's click: add its filter ``token`` to the query, or remove it when the query
        holds it already, and search."""
        self.set_query(toggled_query(self.search_field.text(), token))
        self.searches.remember()  # a query made by a click is one the person asked for

    def _sort_changed(self, _sort: str) -> None:
        """A new order of the hits: the table shows the rows in it (its arrow on the column
        sorted by) and the kept lists are shown in it (no new search)."""
        self.table.show_order(self.sort_control.sort())
        self.flow.settings_changed(compare=False)

    # ================================================================== history, saved searches

    # ================================================================== live index

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
        self.follow.update_banner()
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
        self.models.close()
        self.dialogs.close()
        self.hide()
        self._close_session(wait=True)
        super().closeEvent(event)
