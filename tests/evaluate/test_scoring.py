"""Scores of the rankings: per-query rows and hybrid's verdicts against each list."""

from __future__ import annotations

import pytest

from explorer.evaluate.scoring import comparison, per_query_rows


def test_per_query_rows_and_helped_hurt() -> None:
    qrels = {"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 1}, "d": {"w": 0}}
    ranked = {
        "fts": {"a": ["x"], "b": ["p", "q", "y"], "c": []},
        "semantic": {"a": ["p", "x"], "b": ["y"], "c": ["z"]},
        "hybrid": {"a": ["x"], "b": ["p", "y"], "c": ["p", "z"]},
    }
    rows = per_query_rows(ranked, qrels, {"a": "query a"})
    assert [r["query_id"] for r in rows] == ["a", "b", "c"]  # d has no relevant document
    a, b, c = rows
    assert a["query"] == "query a" and b["query"] == "b"
    assert (a["rank_fts"], a["rank_semantic"], a["rank_hybrid"]) == (1, 2, 1)
    assert (a["vs_fts"], a["vs_semantic"]) == ("same", "helped")
    assert (b["rank_fts"], b["rank_semantic"], b["rank_hybrid"]) == (3, 1, 2)
    assert (b["vs_fts"], b["vs_semantic"]) == ("helped", "hurt")
    assert c["rank_fts"] is None and (c["vs_fts"], c["vs_semantic"]) == ("helped", "hurt")
    # nDCG@10 of one relevant document at rank r is 1 / log2(r + 1): rank 2 -> 0.63093.
    assert b["ndcg_hybrid"] == pytest.approx(0.63093, abs=1e-5)
    tally = comparison(rows)
    assert tally["fts"]["firstRelevantRank"] == {"helped": 2, "hurt": 0, "same": 1}
    assert tally["semantic"]["firstRelevantRank"] == {"helped": 1, "hurt": 2, "same": 0}
    assert tally["semantic"]["ndcg@10"] == {"helped": 1, "hurt": 2, "same": 0}
