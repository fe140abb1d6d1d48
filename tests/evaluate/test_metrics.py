"""Ranking metrics against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import importlib
import math
import random
from typing import Any

import pytest

from explorer.evaluate.metrics import (
    aggregate,
    distinct,
    evaluate_run,
    first_relevant_rank,
    mrr_at_k,
    ndcg_at_k,
    per_query_metrics,
    query_metrics,
    rank_by_score,
    recall_at_k,
)

# Discounts 1/log2(rank + 1):
#   rank 1: 1/log2(2) = 1
#   rank 2: 1/log2(3) = 0.6309298
#   rank 3: 1/log2(4) = 0.5
#   rank 4: 1/log2(5) = 0.4306766
#   rank 5: 1/log2(6) = 0.3868528
d1, d2, d3, d4, d5 = (1 / math.log2(r + 1) for r in range(1, 6))

GRADED = {"a": 3, "b": 2, "c": 1, "d": 0}
GRADED_RUN = ["d", "c", "a", "x", "b"]


def test_discounts_are_the_standard_ones() -> None:
    assert (d1, d3) == (1.0, 0.5)
    assert d2 == pytest.approx(0.6309298)
    assert d5 == pytest.approx(0.3868528)


def test_graded_ndcg_uses_linear_gain() -> None:
    # Gains by rank: d=0, c=1, a=3, x=0 (unjudged), b=2.
    # DCG@5 = 0*1 + 1*d2 + 3*d3 + 0*d4 + 2*d5 = 0.6309 + 1.5 + 0.7737 = 2.9046
    # Ideal: grades sorted 3, 2, 1, 0 -> IDCG@5 = 3*1 + 2*d2 + 1*d3 + 0*d4 = 4.7619
    # nDCG@5 = 2.9046 / 4.7619 = 0.6100
    assert ndcg_at_k(GRADED_RUN, GRADED, 5) == pytest.approx(
        (d2 + 3 * d3 + 2 * d5) / (3 + 2 * d2 + d3)
    )
    assert ndcg_at_k(GRADED_RUN, GRADED, 5) == pytest.approx(0.60998, abs=1e-5)
    # nDCG@3 = (1*d2 + 3*d3) / (3 + 2*d2 + 1*d3) = 2.1309 / 4.7619 = 0.4475
    assert ndcg_at_k(GRADED_RUN, GRADED, 3) == pytest.approx(0.44750, abs=1e-5)
    # nDCG@2 = (1*d2) / (3 + 2*d2) = 0.6309 / 4.2619 = 0.1480: the ideal is cut at k too.
    assert ndcg_at_k(GRADED_RUN, GRADED, 2) == pytest.approx(0.14804, abs=1e-5)
    # nDCG@1: d is judged non-relevant -> 0.
    assert ndcg_at_k(GRADED_RUN, GRADED, 1) == 0.0


def test_ideal_order_scores_one_and_reverse_order_less() -> None:
    assert ndcg_at_k(["a", "b", "c"], GRADED, 10) == pytest.approx(1.0)
    # Reverse: (1*1 + 2*d2 + 3*d3) / (3 + 2*d2 + d3) = 3.7619 / 4.7619 = 0.7900
    assert ndcg_at_k(["c", "b", "a"], GRADED, 10) == pytest.approx(0.79000, abs=1e-5)


def test_graded_mrr_recall_and_first_rank() -> None:
    # First relevant (grade > 0) is c at rank 2; d at rank 1 has grade 0.
    assert first_relevant_rank(GRADED_RUN, GRADED) == 2
    assert mrr_at_k(GRADED_RUN, GRADED, 10) == 0.5
    assert mrr_at_k(GRADED_RUN, GRADED, 2) == 0.5
    assert mrr_at_k(GRADED_RUN, GRADED, 1) == 0.0
    # Relevant = {a, b, c}: top 1 finds none, top 2 finds c, top 3 c+a, top 5 all.
    assert recall_at_k(GRADED_RUN, GRADED, 1) == 0.0
    assert recall_at_k(GRADED_RUN, GRADED, 2) == pytest.approx(1 / 3)
    assert recall_at_k(GRADED_RUN, GRADED, 3) == pytest.approx(2 / 3)
    assert recall_at_k(GRADED_RUN, GRADED, 5) == 1.0


def test_tied_grades_make_any_order_of_them_ideal() -> None:
    qrels = {"a": 1, "b": 1, "c": 1}
    for ranked in (["a", "b", "c"], ["c", "b", "a"], ["b", "a", "c"]):
        assert ndcg_at_k(ranked, qrels, 3) == pytest.approx(1.0)


def test_tied_scores_are_broken_by_ascending_id() -> None:
    assert rank_by_score({"b": 1.0, "a": 1.0, "c": 2.0, "aa": 1.0}) == ["c", "a", "aa", "b"]
    assert rank_by_score({}) == []


def test_empty_ranking_and_empty_judgments() -> None:
    qrels = {"a": 1}
    assert ndcg_at_k([], qrels, 10) == 0.0
    assert mrr_at_k([], qrels, 10) == 0.0
    assert recall_at_k([], qrels, 10) == 0.0
    assert first_relevant_rank([], qrels) is None
    # No judgments at all, or only grade 0: nothing is achievable, every metric is 0.
    for judgments in ({}, {"a": 0}):
        assert ndcg_at_k(["a", "b"], judgments, 10) == 0.0
        assert mrr_at_k(["a", "b"], judgments, 10) == 0.0
        assert recall_at_k(["a", "b"], judgments, 10) == 0.0
        assert first_relevant_rank(["a", "b"], judgments) is None


def test_k_larger_than_the_ranking() -> None:
    qrels = {"a": 1, "b": 1}
    # DCG = 1 (a at rank 1); IDCG@100 = 1 + d2 = 1.6309 -> 0.6131
    assert ndcg_at_k(["a"], qrels, 100) == pytest.approx(1 / (1 + d2))
    assert recall_at_k(["a"], qrels, 100) == 0.5
    assert mrr_at_k(["x", "a"], qrels, 100) == 0.5


def test_duplicates_count_once_at_their_first_position() -> None:
    qrels = {"a": 1, "b": 1}
    ranked = ["a", "a", "x", "b"]
    assert distinct(ranked) == ["a", "x", "b"]
    # Distinct ranking a, x, b -> DCG@3 = 1 + 0 + 1*d3 = 1.5; IDCG@3 = 1 + d2 = 1.6309
    # nDCG@3 = 1.5 / 1.6309 = 0.9197.  (Counting a twice would give 1.6309/1.6309 = 1.0.)
    assert ndcg_at_k(ranked, qrels, 3) == pytest.approx(1.5 / (1 + d2))
    assert ndcg_at_k(ranked, qrels, 3) == pytest.approx(0.91972, abs=1e-5)
    # Top 2 distinct = a, x -> 1 of 2 relevant; never more than 1.0 however often a repeats.
    assert recall_at_k(ranked, qrels, 2) == 0.5
    assert recall_at_k(["a"] * 5, {"a": 1}, 5) == 1.0
    assert ndcg_at_k(["a"] * 5, {"a": 1}, 5) == pytest.approx(1.0)
    assert first_relevant_rank(["x", "x", "a"], qrels) == 2


def test_negative_grades_count_as_zero() -> None:
    # trec_eval treats negative grades as non-relevant with no (negative) gain.
    qrels = {"a": -1, "b": 1}
    assert ndcg_at_k(["a", "b"], qrels, 10) == pytest.approx(d2 / 1)
    assert recall_at_k(["a", "b"], qrels, 1) == 0.0


def test_cut_off_must_be_positive() -> None:
    for metric in (ndcg_at_k, mrr_at_k, recall_at_k):
        with pytest.raises(ValueError, match="at least 1"):
            metric(["a"], {"a": 1}, 0)


def test_aggregate_is_a_mean_per_metric() -> None:
    assert aggregate([]) == {}
    assert aggregate([{"m": 1.0, "n": 0.0}, {"m": 0.0, "n": 1.0}, {"m": 0.5}]) == {
        "m": 0.5,  # (1 + 0 + 0.5) / 3
        "n": 0.5,  # (0 + 1) / 2: only queries that report n
    }


def test_query_metrics_names() -> None:
    names = set(query_metrics(["a"], {"a": 1}, ks_recall=(1, 5), k=3))
    assert names == {"ndcg@3", "mrr@3", "recall@1", "recall@5"}


def test_evaluate_run_averages_over_judged_queries_only() -> None:
    qrels = {
        "q1": {"a": 1},
        "q2": {"b": 2, "c": 1},
        "q3": {"d": 0},  # no relevant judgment: skipped, as BEIR does
    }
    run = {"q1": ["a"], "q2": ["c", "b"], "q3": ["d"], "q9": ["z"]}  # q9 unjudged: ignored
    # q1: ndcg 1, mrr 1, recall@1 1, recall@3 1.
    # q2: DCG = 1*1 + 2*d2 = 2.2619; IDCG = 2*1 + 1*d2 = 2.6309 -> 0.8597;
    #     mrr 1 (c has grade 1); recall@1 = 1/2; recall@3 = 2/2.
    result = evaluate_run(run, qrels)
    assert set(result) == {"ndcg@10", "mrr@10", "recall@1", "recall@3", "recall@10", "recall@100"}
    assert result["ndcg@10"] == pytest.approx((1 + (1 + 2 * d2) / (2 + d2)) / 2)
    assert result["ndcg@10"] == pytest.approx(0.92986, abs=1e-5)
    assert result["mrr@10"] == 1.0
    assert result["recall@1"] == 0.75  # (1 + 0.5) / 2
    assert result["recall@3"] == 1.0
    assert set(per_query_metrics(run, qrels)) == {"q1", "q2"}


def test_evaluate_run_scores_a_missing_query_as_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    result = evaluate_run({"q1": ["a"]}, qrels, ks_recall=(1,))
    # q1 perfect, q2 absent from the run -> 0 -> means are 0.5.
    assert result == {"ndcg@10": 0.5, "mrr@10": 0.5, "recall@1": 0.5}


def test_evaluate_run_without_relevant_judgments_raises() -> None:
    with pytest.raises(ValueError, match="no query has a relevant judgment"):
        evaluate_run({"q": ["a"]}, {"q": {"a": 0}})


def _st_evaluator_class() -> Any:
    """The evaluator class; it moved to ``sentence_transformer.evaluation`` in version 6."""
    for module in (
        "sentence_transformers.sentence_transformer.evaluation",
        "sentence_transformers.evaluation",
    ):
        try:
            return importlib.import_module(module).InformationRetrievalEvaluator
        except (ImportError, AttributeError):
            continue
    pytest.skip("sentence-transformers is not installed")


def test_agrees_with_sentence_transformers_on_binary_relevance() -> None:
    """Same numbers as sentence-transformers' evaluator, which only knows binary relevance.

    Its ``compute_metrics`` sorts each query's hits by (-score, corpus_id), so ``rank_by_score``
    reproduces its order, ties included (scores are rounded to one decimal to force ties).
    """
    evaluator_class = _st_evaluator_class()
    rng = random.Random(7)
    doc_ids = [f"d{i}" for i in range(60)]
    query_ids = [f"q{i}" for i in range(25)]
    relevant = {
        qid: set(rng.sample(doc_ids, rng.randint(1, 5))) for qid in query_ids if qid != "q0"
    }  # q0 has no judgment and must be skipped by both
    scores = {qid: {d: round(rng.random(), 1) for d in doc_ids} for qid in query_ids}
    evaluator = evaluator_class(
        queries={qid: f"query {qid}" for qid in query_ids},
        corpus={d: f"doc {d}" for d in doc_ids},
        relevant_docs=relevant,
        mrr_at_k=[10],
        ndcg_at_k=[10],
        accuracy_at_k=[1],
        precision_recall_at_k=[1, 3, 10, 100],
        map_at_k=[10],
        write_csv=False,
    )
    hits = [
        [{"corpus_id": d, "score": s} for d, s in scores[qid].items()]
        for qid in evaluator.queries_ids
    ]
    theirs = evaluator.compute_metrics(hits)

    run = {qid: rank_by_score(scores[qid]) for qid in query_ids}
    qrels = {qid: dict.fromkeys(docs, 1) for qid, docs in relevant.items()}
    ours = evaluate_run(run, qrels)

    assert ours["ndcg@10"] == pytest.approx(float(theirs["ndcg@k"][10]))
    assert ours["mrr@10"] == pytest.approx(float(theirs["mrr@k"][10]))
    for n in (1, 3, 10, 100):
        assert ours[f"recall@{n}"] == pytest.approx(float(theirs["recall@k"][n]))
