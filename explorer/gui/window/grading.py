"""Grades of the hits for the query on screen: a key or the menu grades a hit, and the Grade
column shows the query's grades (a controller of the main window, given what it needs; the
grades are kept by the Quality panel's judging)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from explorer.gui.core.search_flow import SearchFlow
from explorer.gui.panels.quality_panel import QualityPanel
from explorer.gui.results.results_model import ResultsModel
from explorer.search.fusion.results import Hit


class Grading(QObject):
    """Grades hits of ``flow``'s query in ``quality``'s judgments; shows them in ``model``."""

    def __init__(
        self,
        quality: QualityPanel,
        flow: SearchFlow,
        model: ResultsModel,
        say: Callable[[str, int], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.quality = quality
        self.flow = flow
        self.model = model
        self.say = say
        quality.judging.changed.connect(self.show)
        quality.judging.saved.connect(lambda text: say(text, 10_000))

    def grade(self, hit: Hit, grade: int | None) -> None:
        """Keys 0–3 (Delete: None) on a hit: save its grade for the shown query at once."""
        refused = self.quality.grade(self.flow.graded_query, hit, grade)
        if refused is not None:  # else it shows at once; ``saved`` tells when it is on disk
            self.say(refused, 10_000)

    def show(self) -> None:
        """The Grade column: the shown query's grades (and its unjudged top hits flagged)."""
        grades, judged = self.quality.grades(self.flow.graded_query)
        self.model.set_grades(grades, judged=judged)
