"""Scores of the rankings an evaluation made: the mean metrics per mode, one row a judged query
(its first relevant rank and nDCG@10 per mode), and how often hybrid helped or hurt."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from explorer.evaluate.metrics import evaluate_run, first_relevant_rank, per_query_metrics
from explorer.evaluate.settings import CUTOFF, RECALL_KS, EvalError


def _versus(better_than: Callable[[Any, Any], bool], hybrid: Any, single: Any) -> str:
    if better_than(hybrid, single):
        return "helped"
    if better_than(single, hybrid):
        return "hurt"
    return "same"


def _rank_better(a: int | None, b: int | None) -> bool:
    """Rank ``a`` is better than ``b`` (None: no relevant document in the whole ranking)."""
    return a is not None and (b is None or a < b)


def _float_better(a: float, b: float) -> bool:
    return a > b + 1e-12


def per_query_rows(
    ranked: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
    texts: Mapping[str, str],
) -> list[dict[str, Any]]:
    """One row a judged query: first relevant rank and nDCG@10 per mode, hybrid's verdicts."""
    modes = list(ranked)
    metrics = {mode: per_query_metrics(ranked[mode], qrels, RECALL_KS, CUTOFF) for mode in modes}
    rows = []
    for qid, judgments in qrels.items():
        if not any(grade > 0 for grade in judgments.values()):
            continue
        row: dict[str, Any] = {
            "query_id": qid,
            "query": texts.get(qid, qid),
            "relevant": sum(1 for grade in judgments.values() if grade > 0),
        }
        for mode in modes:
            row[f"rank_{mode}"] = first_relevant_rank(ranked[mode].get(qid, ()), judgments)
        for mode in modes:
            row[f"ndcg_{mode}"] = round(metrics[mode][qid][f"ndcg@{CUTOFF}"], 6)
        if "hybrid" in modes:
            for single in ("fts", "semantic"):
                if single in modes:
                    row[f"vs_{single}"] = _versus(
                        _rank_better, row["rank_hybrid"], row[f"rank_{single}"]
                    )
        rows.append(row)
    return rows


def comparison(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """How often hybrid helped or hurt against each single list, by first relevant rank (the
    per-query file's verdicts), by first relevant rank within the top 10, and by nDCG@10."""
    out: dict[str, Any] = {}
    for single in ("fts", "semantic"):
        if not rows or f"vs_{single}" not in rows[0]:
            continue
        by_rank = {"helped": 0, "hurt": 0, "same": 0}
        by_top10 = dict(by_rank)
        by_ndcg = dict(by_rank)
        for row in rows:
            by_rank[row[f"vs_{single}"]] += 1
            cut = [
                r if r is not None and r <= CUTOFF else None
                for r in (row["rank_hybrid"], row[f"rank_{single}"])
            ]
            by_top10[_versus(_rank_better, cut[0], cut[1])] += 1
            by_ndcg[_versus(_float_better, row["ndcg_hybrid"], row[f"ndcg_{single}"])] += 1
        out[single] = {
            "firstRelevantRank": by_rank,
            f"firstRelevantRank@{CUTOFF}": by_top10,
            f"ndcg@{CUTOFF}": by_ndcg,
        }
    return out


def summarise(
    ranked: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
) -> dict[str, dict[str, float]]:
    """Mean metrics per mode."""
    try:
        return {mode: evaluate_run(ranked[mode], qrels, RECALL_KS, CUTOFF) for mode in ranked}
    except ValueError as exc:
        raise EvalError(str(exc)) from None
