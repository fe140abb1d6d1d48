"""The selected hit and the preview beside it: which hit is selected when the results change
(the reader's, kept while the list re-ranks; a new answer's top hit), and the preview showing
it with its explanation (a controller of the main window, given what it needs)."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QModelIndex, QObject
from PySide6.QtWidgets import QLineEdit

from explorer.gui.core.search_flow import SearchFlow
from explorer.gui.preview.preview import PreviewPane
from explorer.gui.results.distributions import DistributionsPanel
from explorer.gui.results.results_model import ResultsModel
from explorer.gui.results.results_view import ResultsView
from explorer.search.explain.scoring import ExplainContext
from explorer.search.fusion.results import Hit, SearchResponse
from explorer.search.query.options import Mode


class Selection(QObject):
    """Follows ``table``'s selection into ``preview`` (and ``distributions``' mark)."""

    def __init__(
        self,
        table: ResultsView,
        model: ResultsModel,
        flow: SearchFlow,
        preview: PreviewPane,
        distributions: DistributionsPanel,
        field: QLineEdit,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.table = table
        self.model = model
        self.flow = flow
        self.preview = preview
        self.distributions = distributions
        self.field = field
        table.selectionModel().selectionChanged.connect(self.changed)
        table.clicked.connect(self.clicked)

    def before(self, response: SearchResponse, new_query: bool) -> None:
        """``response`` is about to be shown: which hit to select in it.  A new query, or the
        whole answer replacing the words' answer (the model was loading), follows its top hit;
        the same query re-ranked (vectors arriving, a setting) keeps the note read."""
        whole = response.semantic.available and not self.model.tinted
        if new_query or (whole and response.options.mode == Mode.HYBRID):
            self.table.chosen_path = None
        else:
            hit = self.table.current_hit()
            self.table.chosen_path = hit.path if hit is not None else self.table.chosen_path

    def restore(self) -> None:
        """Select the hit chosen if it is still there, else the first row."""
        if not self.model.rowCount():
            self.preview.clear()
            return
        had_focus = self.field.hasFocus()
        self.table.select_path(self.table.chosen_path)
        if had_focus:
            self.field.setFocus()

    def changed(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        hit = self.table.current_hit()
        self.distributions.select(hit.path if hit is not None else None)
        if hit is None or self.flow.shown.response is None:
            self.preview.clear()
            return
        self.preview.show_hit(hit, self.flow.shown.query, self._context(hit))

    def clicked(self, _index: QModelIndex) -> None:
        """A click on the selected hit after following links in the preview shows it again
        (a click that changes the selection is handled by :meth:`changed`)."""
        hit = self.table.current_hit()
        if hit is None or self.flow.shown.response is None or self.preview.shown_path == hit.path:
            return
        self.preview.reopen_hit(hit, self.flow.shown.query, self._context(hit))

    def _context(self, hit: Hit) -> ExplainContext:
        rank = self.model.rank_of(hit.path) or self.model.row_of(hit.path) + 1
        context = self.flow.explain_context(hit, rank)
        assert context is not None  # a hit is selected: a response is shown
        return context
