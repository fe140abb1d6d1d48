"""Ranking metrics over one ranked list of document ids and its relevance judgments.

The definitions follow what published numbers use, so that a score computed here can be put next
to a BEIR table or an MTEB leaderboard without a footnote:

* nDCG@k uses linear gain (gain = grade) and the ``1 / log2(rank + 1)`` discount, with the ideal
  DCG taken from all judged grades sorted in descending order; this is trec_eval's ``ndcg_cut``
  (hence pytrec_eval's and BEIR's) and, on binary judgments, sentence-transformers'
  ``InformationRetrievalEvaluator``.
* A document is relevant when its grade is > 0.  Grades below 0 count as 0.
* A document id that appears more than once in a ranking counts once, at its first position: the
  duplicates are removed before the cut-off, so a retriever that returns one note twice (say, two
  chunks of it) is scored on the distinct notes it showed, as the result list displays them.
* Queries without any relevant judgment are skipped when averaging, as BEIR does: they have no
  achievable score, and counting them as 0 would only scale every system down alike.

Everything is pure Python on small lists; the cost is negligible next to retrieval itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Qrels = Mapping[str, int]
"""Relevance judgments of one query: document id -> grade (0 = judged not relevant)."""


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"cut-off k must be at least 1, got {k}")


def distinct(ranked: Iterable[str]) -> list[str]:
    """``ranked`` without repeated ids, keeping each id at its first position."""
    return list(dict.fromkeys(ranked))


def rank_by_score(scores: Mapping[str, float]) -> list[str]:
    """Document ids by descending score, ties broken by ascending id.

    A fixed tie-break makes metrics reproducible: with equal scores (common for lexical
    retrievers on short queries) an arbitrary order would move nDCG from run to run.  Ascending id
    is what sentence-transformers' evaluator does, so the two agree on tied runs too.
    """
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


def _dcg(gains: Iterable[float]) -> float:
    # rank r (1-based) is discounted by log2(r + 1); enumerate gives i = r - 1.
    return sum(gain / math.log2(i + 2) for i, gain in enumerate(gains))


def ndcg_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Normalised discounted cumulative gain of the top ``k``, with gain = grade.

    Returns 0.0 when the query has no relevant document (the ideal DCG would be 0).
    """
    _check_k(k)
    ideal = _dcg(sorted((max(g, 0) for g in qrels.values()), reverse=True)[:k])
    if ideal <= 0.0:
        return 0.0
    gains = [max(qrels.get(doc_id, 0), 0) for doc_id in distinct(ranked)[:k]]
    return _dcg(gains) / ideal


def first_relevant_rank(ranked: Sequence[str], qrels: Qrels) -> int | None:
    """1-based rank of the first relevant document (after removing duplicates), or None."""
    for rank, doc_id in enumerate(distinct(ranked), start=1):
        if qrels.get(doc_id, 0) > 0:
            return rank
    return None


def mrr_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Reciprocal rank of the first relevant document if it is within the top ``k``, else 0."""
    _check_k(k)
    rank = first_relevant_rank(ranked, qrels)
    return 1.0 / rank if rank is not None and rank <= k else 0.0


def recall_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Share of the relevant documents found in the top ``k``; 0.0 when none is relevant."""
    _check_k(k)
    relevant = {doc_id for doc_id, grade in qrels.items() if grade > 0}
    if not relevant:
        return 0.0
    found = sum(1 for doc_id in distinct(ranked)[:k] if doc_id in relevant)
    return found / len(relevant)


def aggregate(per_query: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean of each metric over the queries that report it.

    A metric missing from some queries is averaged over those that have it, rather than raising,
    so per-query dicts from different configurations can still be summarised.
    """
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for metrics in per_query:
        for name, value in metrics.items():
            sums[name] = sums.get(name, 0.0) + value
            counts[name] = counts.get(name, 0) + 1
    return {name: sums[name] / counts[name] for name in sums}


def query_metrics(
    ranked: Sequence[str],
    qrels: Qrels,
    ks_recall: Sequence[int] = (1, 3, 10, 100),
    k: int = 10,
) -> dict[str, float]:
    """All the metrics of one query: ``ndcg@k``, ``mrr@k`` and ``recall@n`` for each n."""
    metrics = {f"ndcg@{k}": ndcg_at_k(ranked, qrels, k), f"mrr@{k}": mrr_at_k(ranked, qrels, k)}
    for n in ks_recall:
        metrics[f"recall@{n}"] = recall_at_k(ranked, qrels, n)
    return metrics


def per_query_metrics(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Qrels],
    ks_recall: Sequence[int] = (1, 3, 10, 100),
    k: int = 10,
) -> dict[str, dict[str, float]]:
    """Metrics of every judged query that has at least one relevant document.

    A judged query absent from ``run`` is scored as an empty ranking (all zeros).  BEIR, through
    pytrec_eval, would drop it instead; scoring it 0 keeps a retriever that fails on a query from
    looking better than one that returns poor results for it.
    """
    results: dict[str, dict[str, float]] = {}
    for qid, judgments in qrels.items():
        if not any(grade > 0 for grade in judgments.values()):
            continue
        results[qid] = query_metrics(run.get(qid, ()), judgments, ks_recall, k)
    return results


def evaluate_run(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Qrels],
    ks_recall: Sequence[int] = (1, 3, 10, 100),
    k: int = 10,
) -> dict[str, float]:
    """Mean ``ndcg@k``, ``mrr@k`` and ``recall@n`` over the queries with a relevant judgment.

    ``run`` maps a query id to its ranked document ids (best first).  Raises ValueError when no
    query has a relevant judgment, since a mean over nothing would read as a score of 0.
    """
    per_query = per_query_metrics(run, qrels, ks_recall, k)
    if not per_query:
        raise ValueError("no query has a relevant judgment (grade > 0); nothing to evaluate")
    return aggregate(list(per_query.values()))
