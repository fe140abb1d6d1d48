"""Weighted RRF and the convex combination against hand-computed values."""

from __future__ import annotations

import pytest

from explorer.search.fusion.fusion import convex, noisy_or, rrf


def test_weighted_rrf_matches_hand_computation() -> None:
    fused = rrf(
        {"fts": ["a", "b", "c"], "vector": ["c", "a"]}, k=60, weights={"fts": 0.7, "vector": 0.3}
    )
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
    weights = {"fts": 0.7, "vector": 0.3}
    fused = {f.id: f for f in rrf({"fts": ["x", "y"], "vector": ["z", "x"]}, 60, weights)}
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


def test_scores_equal_but_for_the_order_of_their_sums_tie_and_break_by_id() -> None:
    """0.3 and 0.5 fused make 0.65 one way and 0.6499999999999999 the other: a tie, broken by
    id on every path, not by the last bit of the arithmetic."""
    fused = noisy_or({"x": [("b", 0.65), ("a", 0.3)], "y": [("a", 0.5)]})
    assert fused[0].score != fused[1].score
    assert [f.id for f in fused] == ["a", "b"]


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
    lexical_heavy = [f.id for f in rrf(lists, 60, {"fts": 0.9, "vector": 0.1})]
    vector_heavy = [f.id for f in rrf(lists, 60, {"fts": 0.1, "vector": 0.9})]
    assert lexical_heavy.index("lex") < lexical_heavy.index("vec")
    assert vector_heavy.index("vec") < vector_heavy.index("lex")


def test_empty_lists() -> None:
    assert rrf({"fts": [], "vector": []}, 60) == []


def test_without_weights_every_list_weighs_one() -> None:
    (a, b) = rrf({"fts": ["a"], "vector": ["b", "a"]}, 60)
    assert a.id == "a" and a.score == pytest.approx(1 / 61 + 1 / 62)
    assert b.score == pytest.approx(1 / 61)


# ----------------------------------------------------------------------------- convex


def test_convex_matches_hand_computation() -> None:
    lists = {
        "fts": [("a", 10.0), ("b", 6.0), ("c", 2.0)],
        "vector": [("c", 0.9), ("a", 0.5), ("d", 0.4)],
    }
    fused = {f.id: f for f in convex(lists, {"fts": 0.7, "vector": 0.3})}
    # fts: min 2, max 10, span 8 -> a 1.0, b 0.5, c 0.0
    # vector: min 0.4, max 0.9, span 0.5 -> c 1.0, a 0.2, d 0.0
    # a: 0.7 * 1.0 + 0.3 * 0.2 = 0.76
    assert fused["a"].score == pytest.approx(0.76)
    assert fused["a"].contributions == pytest.approx({"fts": 0.7, "vector": 0.06})
    # b: 0.7 * 0.5 + 0 (not in the vector list) = 0.35
    assert fused["b"].score == pytest.approx(0.35)
    assert fused["b"].contributions == pytest.approx({"fts": 0.35, "vector": 0.0})
    # c: 0.7 * 0.0 + 0.3 * 1.0 = 0.3
    assert fused["c"].score == pytest.approx(0.3)
    # d: the worst of its list normalises to 0, like a miss: 0.0
    assert fused["d"].score == 0.0
    assert [f.id for f in convex(lists, {"fts": 0.7, "vector": 0.3})] == ["a", "b", "c", "d"]
    assert fused["a"].ranks == {"fts": 1, "vector": 2}
    assert fused["d"].ranks == {"fts": None, "vector": 3}
    assert (fused["a"].source, fused["b"].source, fused["d"].source) == ("both", "fts", "vector")


def test_convex_sees_confidence_that_rrf_cannot() -> None:
    # The vector list is sure of "v" (0.9 against 0.30 and 0.29); the keyword list is lukewarm
    # (6.0, 5.9, 5.8).  RRF gives rank 1 of either list the same weight; convex does not.
    lists = {
        "fts": [("k", 6.0), ("v", 5.8), ("x", 5.9)],
        "vector": [("v", 0.9), ("k", 0.30), ("y", 0.29)],
    }
    weights = {"fts": 0.5, "vector": 0.5}
    # fts: min 5.8, span 0.2 -> k 1.0, x 0.5, v 0.0; vector: min 0.29, span 0.61 ->
    # v 1.0, k 0.01/0.61 = 0.016393, y 0.0.  k: 0.5 + 0.008197 = 0.508197; v: 0.5.
    # Nearly a tie, where RRF would put k and v level (both 1/61 + 1/62 at equal weights)...
    level = {
        f.id: f.score
        for f in rrf(
            {n: [d for d, _ in items] for n, items in lists.items()}, k=60, weights=weights
        )
    }
    assert level["k"] == level["v"]
    fused = convex(lists, weights)
    assert fused[0].id == "k" and fused[0].score == pytest.approx(0.5 + 0.5 * 0.01 / 0.61)
    assert fused[1].id == "v" and fused[1].score == pytest.approx(0.5)
    # ... and with a floor of 0 for bm25 (theoretical min-max) the lukewarm spread vanishes:
    # fts k 6/6 = 1.0, x 5.9/6, v 5.8/6 = 0.966667; v: 0.5 * 0.966667 + 0.5 = 0.983333,
    # k: 0.5 + 0.008197 = 0.508197.  The confident vector hit wins.
    fused = convex(lists, weights, lower_bounds={"fts": 0.0})
    assert fused[0].id == "v" and fused[0].score == pytest.approx(0.5 * 5.8 / 6.0 + 0.5)
    assert [f.id for f in fused[1:]] == ["k", "x", "y"]  # 0.508197, 0.5 * 5.9 / 6 = 0.491667, 0


def test_convex_tiers_keep_a_better_tier_above_a_higher_raw_score() -> None:
    # "p" was found by the phrase pass (tier 0) with bm25 4; "d" and "e" only by the any-word
    # pass (tier 2) with bm25 12 and 6: bm25 compares notes within a pass, not across passes.
    lists = {"fts": [("p", 4.0), ("d", 12.0), ("e", 6.0)], "vector": [("d", 0.6), ("p", 0.5)]}
    tiers = {"fts": {"p": 0, "d": 2, "e": 2}}
    fused = {
        f.id: f
        for f in convex(lists, {"fts": 1.0, "vector": 0.0}, lower_bounds={"fts": 0.0}, tiers=tiers)
    }
    # Two tiers present share [0, 1]: p (1 + 4/4) / 2 = 1.0; d (0 + 12/12) / 2 = 0.5;
    # e (0 + 6/12) / 2 = 0.25.  Without tiers d would be 1.0 and p 4/12.
    assert fused["p"].contributions["fts"] == pytest.approx(1.0)
    assert fused["d"].contributions["fts"] == pytest.approx(0.5)
    assert fused["e"].contributions["fts"] == pytest.approx(0.25)
    plain = {
        f.id: f.score for f in convex(lists, {"fts": 1.0, "vector": 0.0}, lower_bounds={"fts": 0.0})
    }
    assert plain["d"] == pytest.approx(1.0) and plain["p"] == pytest.approx(4.0 / 12.0)
    # A list without tiers (the vector list here) is normalised as before; a single tier is
    # exactly the untiered normalisation.
    assert fused["d"].ranks == {"fts": 2, "vector": 1}
    one = convex(lists, lower_bounds={"fts": 0.0}, tiers={"fts": dict.fromkeys("pde", 1)})
    assert [(f.id, f.score) for f in one] == [
        (f.id, pytest.approx(f.score)) for f in convex(lists, lower_bounds={"fts": 0.0})
    ]


def test_convex_lower_bound_for_cosine() -> None:
    # Theoretical minimum -1 for cosine: 0.5 -> (0.5 + 1) / (0.9 + 1) = 0.789474.
    (top, low) = convex(
        {"vector": [("a", 0.9), ("b", 0.5)]}, {"vector": 1.0}, lower_bounds={"vector": -1.0}
    )
    assert top.score == 1.0
    assert low.score == pytest.approx(1.5 / 1.9)
    # A score under the floor normalises to 0, never below.
    (_, under) = convex(
        {"vector": [("a", 0.9), ("b", -0.5)]}, {"vector": 1.0}, lower_bounds={"vector": 0.0}
    )
    assert under.score == 0.0
    # A list with nothing above its floor contributes nothing (without a floor, equal scores
    # all normalise to 1).
    fused = convex(
        {"fts": [("a", 2.0)], "vector": [("a", -0.1), ("b", -0.2)]},
        {"fts": 0.5, "vector": 0.5},
        lower_bounds={"fts": 0.0, "vector": 0.0},
    )
    assert [(f.id, f.score) for f in fused] == [("a", 0.5), ("b", 0.0)]
    fused = convex(
        {"vector": [("a", -0.1), ("b", -0.1)]}, {"vector": 1.0}, lower_bounds={"vector": 0.0}
    )
    assert [f.score for f in fused] == [0.0, 0.0]


def test_convex_equal_scores_all_normalise_to_one() -> None:
    # One candidate, or a list where every score is the same: no candidate is worse, all get 1.
    fused = convex(
        {"fts": [("b", 3.0), ("a", 3.0)], "vector": [("c", 0.7)]}, {"fts": 0.7, "vector": 0.3}
    )
    assert [(f.id, f.score) for f in fused] == [("a", 0.7), ("b", 0.7), ("c", 0.3)]  # ties by id


def test_convex_contributions_sum_to_score_and_duplicates_count_once() -> None:
    fused = convex(
        {"fts": [("a", 4.0), ("b", 2.0), ("a", 1.0)], "vector": [("b", 0.8), ("a", 0.2)]},
        {"fts": 0.7, "vector": 0.3},
    )
    by_id = {f.id: f for f in fused}
    assert by_id["a"].ranks["fts"] == 1
    # fts: a's best score 4 is kept, min over distinct docs is 2 -> a 1.0, b 0.0.
    # vector: b 1.0, a 0.0.  Weights 0.7 / 0.3: a 0.7, b 0.3.
    assert by_id["a"].score == pytest.approx(0.7) and by_id["b"].score == pytest.approx(0.3)
    for item in fused:
        assert sum(item.contributions.values()) == item.score


def test_convex_weights_missing_list_and_empty() -> None:
    assert convex({"fts": [], "vector": []}) == []
    (only,) = convex({"other": [("a", 1.0)]}, {"fts": 0.7})  # a list without a weight weighs 1
    assert only.score == 1.0
    lists = {"fts": [("lex", 2.0), ("both", 1.0)], "vector": [("vec", 0.8), ("both", 0.4)]}
    lexical_heavy = [f.id for f in convex(lists, {"fts": 0.9, "vector": 0.1})]
    vector_heavy = [f.id for f in convex(lists, {"fts": 0.1, "vector": 0.9})]
    assert lexical_heavy.index("lex") < lexical_heavy.index("vec")
    assert vector_heavy.index("vec") < vector_heavy.index("lex")
