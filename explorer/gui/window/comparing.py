"""The pinned baseline the results are compared with: pinned from the settings on screen, a
pair of settings pinned and tried in one click, unpinned (a controller of the main window,
given what it needs; the comparison itself is the search flow's)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from explorer.gui.core.search_flow import SearchFlow
from explorer.gui.panels.fusion_controls import FusionControls
from explorer.gui.results.compare_bar import CompareBar, Pair
from explorer.gui.results.results_model import Column
from explorer.gui.results.results_view import ResultsView
from explorer.search.query.options import SearchOptions


class Comparing(QObject):
    """Pins and unpins the baseline of ``flow``, shown by ``bar`` and the table's Base column."""

    def __init__(
        self,
        flow: SearchFlow,
        bar: CompareBar,
        table: ResultsView,
        fusion: FusionControls,
        options: Callable[[], SearchOptions],
        set_mode: Callable[[str], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.flow = flow
        self.bar = bar
        self.table = table
        self.fusion = fusion
        self.options = options
        self.set_mode = set_mode
        bar.pinRequested.connect(self.pin)
        bar.unpinRequested.connect(self.unpin)
        bar.pairRequested.connect(self.compare_pair)

    def pin(self) -> None:
        """Compare every result from now on with the settings on screen (Ctrl+B)."""
        self._pin(self.options())

    def unpin(self) -> None:
        """Back to the plain results: no Base column, moves at the last step (Ctrl+Shift+B)."""
        self.bar.unpinned()
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
        self.bar.show_comparison(baseline, None)
        self.table.setColumnHidden(Column.BASE, False)
        self.flow.pin(baseline)
