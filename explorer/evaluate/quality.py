"""The window's Quality dock in numbers: nDCG@10 and the first relevant rank of every judged
query in every mode, from one run of the queries
(:mod:`explorer.gui.panels.quality_panel` shows them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.evaluate.metrics import first_relevant_rank, ndcg_at_k
from explorer.evaluate.runner import QueryRun, rankings
from explorer.evaluate.scoring import summarise
from explorer.evaluate.settings import CUTOFF, EvalSettings


@dataclass(frozen=True, slots=True)
class QualityRow:
    query: str
    judged: int  # notes judged for the query (grade 0 included)
    relevant: int  # of which graded above 0
    ndcg: dict[str, float | None]  # None: nothing relevant judged yet, no score
    first: dict[str, int | None]  # 1-based rank of the first relevant hit, None: not found


@dataclass(frozen=True, slots=True)
class QualityReport:
    rows: list[QualityRow]
    mean: dict[str, float]  # over the queries with a relevant note, as eval averages
    scored: int
    in_top: dict[str, int]  # scored queries with a relevant hit in the top 10, per mode
    semantic: bool  # every query had its vector list
    rejected: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def score(
    judgments: Mapping[str, Mapping[str, int]], run: QueryRun, settings: EvalSettings
) -> QualityReport:
    """nDCG@10 and first relevant rank of every judged query in every mode, from ``run``."""
    ranked = rankings(run, settings)
    rows: list[QualityRow] = []
    for query, grades in judgments.items():
        relevant = sum(1 for g in grades.values() if g > 0)
        ndcg: dict[str, float | None] = {}
        first: dict[str, int | None] = {}
        for mode in settings.modes:
            hits = ranked[mode].get(query, [])
            ndcg[mode] = ndcg_at_k(hits, grades, CUTOFF) if relevant else None
            first[mode] = first_relevant_rank(hits, grades)
        rows.append(QualityRow(query, len(grades), relevant, ndcg, first))
    scored = [row for row in rows if row.relevant]
    averaged = summarise(ranked, judgments) if scored else {}  # eval's own means
    mean = {mode: averaged[mode][f"ndcg@{CUTOFF}"] if scored else 0.0 for mode in settings.modes}
    in_top = {
        mode: sum(1 for row in scored if (row.first[mode] or CUTOFF + 1) <= CUTOFF)
        for mode in settings.modes
    }
    return QualityReport(
        rows, mean, len(scored), in_top, not run.degraded, dict(run.rejected), run.seconds
    )
