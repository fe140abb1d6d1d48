"""Weighted RRF against hand-computed values."""

from __future__ import annotations

import pytest

from explorer.search.fusion import rrf


def test_weighted_rrf_matches_hand_computation() -> None:
    fused = rrf({"fts": ["a", "b", "c"], "vector": ["c", "a"]}, k=60, weights={"fts": 0.7, "vector": 0.3})
    scores = {f.id: f.score for f in fused}
    # a: 0.7/61 + 0.3/62 = 0.011475409836 + 0.004838709677 = 0.016314119513
    assert scores["a"] == pytest.approx(0.7 / 61 + 0.3 / 62)
    assert scores["a"] == pytest.approx(0.0163141195, abs=1e-10)
    # c: 0.7/63 + 0.3/61 = 0.011111111111 + 0.004918032787 = 0.016029143898
    assert scores["c"] == pytest.approx(0.0160291439, abs=1e-10)
    # b: 0.7/62 = 0.011290322581 (one list still scores)
    assert scores["b"] == pytest.approx(0.0112903226, abs=1e-10)
    assert [f.id for f in fused] == ["a", "c", "b"]


def test_ranks_contributions_and_source() -> None:
    fused = {f.id: f for f in rrf({"fts": ["x", "y"], "vector": ["z", "x"]}, k=60)}
    assert fused["x"].ranks == {"fts": 1, "vector": 2}
    assert fused["y"].ranks == {"fts": 2, "vector": None}
    assert fused["x"].contributions == {"fts": 0.7 / 61, "vector": 0.3 / 62}
    assert fused["y"].contributions["vector"] == 0.0
    assert sum(fused["x"].contributions.values()) == fused["x"].score
    assert (fused["x"].source, fused["y"].source, fused["z"].source) == ("both", "fts", "vector")


def test_ties_break_by_id_ascending() -> None:
    # Same rank in a list of equal weight: equal scores, order by id.
    fused = rrf({"fts": ["b"], "vector": ["a"]}, k=60, weights={"fts": 0.5, "vector": 0.5})
    assert [f.id for f in fused] == ["a", "b"]
    assert fused[0].score == fused[1].score


def test_ranks_are_one_based_and_k_matters() -> None:
    (only,) = rrf({"fts": ["a"]}, k=1, weights={"fts": 1.0})
    assert only.score == 0.5  # 1 / (1 + 1)
    (only,) = rrf({"fts": ["a"]}, k=10, weights={"fts": 1.0})
    assert only.score == pytest.approx(1 / 11)


@pytest.mark.parametrize("k", [0, -1, -60.5])
def test_non_positive_k_raises(k: float) -> None:
    with pytest.raises(ValueError, match="k must be positive"):
        rrf({"fts": ["a"]}, k=k)


def test_duplicate_in_a_list_counts_at_best_rank() -> None:
    (a, b) = rrf({"fts": ["a", "b", "a"]}, k=60, weights={"fts": 1.0})
    assert a.id == "a" and a.ranks["fts"] == 1 and a.score == pytest.approx(1 / 61)
    assert b.ranks["fts"] == 2


def test_weights_change_the_order() -> None:
    lists = {"fts": ["lex", "both"], "vector": ["vec", "both"]}
    lexical_heavy = [f.id for f in rrf(lists, weights={"fts": 0.9, "vector": 0.1})]
    vector_heavy = [f.id for f in rrf(lists, weights={"fts": 0.1, "vector": 0.9})]
    assert lexical_heavy.index("lex") < lexical_heavy.index("vec")
    assert vector_heavy.index("vec") < vector_heavy.index("lex")


def test_empty_lists() -> None:
    assert rrf({"fts": [], "vector": []}) == []
