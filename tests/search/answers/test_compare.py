"""Comparing two settings: Jaccard@10 and RBO against hand-computed values, rows and moves,
the lists' agreement, the JSON shape, and one search for both settings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from explorer.search.answers.compare import (
    compare_lists,
    compare_query,
    compare_responses,
    covering,
    describe,
    jaccard_at,
    rbo,
)
from explorer.search.fusion.cached import CachedLists
from explorer.search.fusion.results import (
    Candidates,
    NoteInfo,
    SemanticStatus,
    SemanticUnavailable,
    VectorCandidate,
)
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import parse_query

# Lexical list a, b, c, d; vector list b, e, a (cosines 0.9, 0.8, 0.7).  The settings are spelled
# out (no floor): the tests do not depend on today's defaults.
ON = SearchOptions(fusion="rrf", k=60.0, w_fts=0.7, w_vec=0.3, depth=50, min_sim=0.0, min_rel=0.0)
LEXICAL = ["a.md", "b.md", "c.md", "d.md"]
VECTOR = ["b.md", "e.md", "a.md"]


def candidates(*, semantic: bool = True) -> Candidates:
    c = Candidates(query=parse_query("some words"), mode="hybrid", depth=100)
    c.lexical = [(p, 10.0 - i, p) for i, p in enumerate(LEXICAL)]
    if semantic:
        c.vector = [VectorCandidate(p, 0.9 - 0.1 * i, (0, 4), "text") for i, p in enumerate(VECTOR)]
        c.semantic = SemanticStatus(True, None, "fake")
    else:
        c.semantic = SemanticStatus(False, "no model", "fake")
    for p in {*LEXICAL, *VECTOR}:
        c.notes[p] = NoteInfo(p, p.removesuffix(".md").upper(), None, (), 0)
    return c


def test_jaccard_at_cuts_both_lists() -> None:
    assert jaccard_at(["a", "b", "c"], ["a", "c", "d"]) == pytest.approx(2 / 4)
    assert jaccard_at(["a", "b", "c"], ["c", "b", "a"], n=1) == 0.0
    assert jaccard_at(list("abcdefghijk"), list("abcdefghijz")) == 1.0  # only the top 10
    assert jaccard_at([], []) == 1.0 and jaccard_at(["a"], []) == 0.0


def test_rbo_of_equal_length_lists_by_hand() -> None:
    # X1 = 1, X2 = 1, X3 = 2: (0.1/0.9)(0.9 + 0.81/2 + 2·0.729/3) + 2/3·0.729 = 0.199 + 0.486
    assert rbo(["a", "b", "c"], ["a", "c", "d"], 0.9) == pytest.approx(0.685)
    assert rbo(list("abcde"), list("abcde")) == pytest.approx(1.0)
    assert rbo(list("abc"), list("xyz")) == 0.0


def test_rbo_of_uneven_lists_extrapolates_by_hand() -> None:
    # s = 2, l = 3, p = 0.5: X = 0, 2, 2; Σ X_d/d p^d = 0.25 + 1/12; tail 2·1/6·0.125;
    # (1-p)/p = 1; last term (0/3 + 2/2)·0.125.  Total 0.5, the same either way round.
    assert rbo(["a", "b"], ["b", "a", "c"], 0.5) == pytest.approx(0.5)
    assert rbo(["b", "a", "c"], ["a", "b"], 0.5) == pytest.approx(0.5)
    # [a b c d] vs [b e a], p = 0.9: (1.21905 + 0.10935) / 9 + 2/3 · 0.6561
    assert rbo(LEXICAL, VECTOR, 0.9) == pytest.approx(0.5850, abs=1e-4)
    assert rbo([], []) == 1.0 and rbo(["a"], []) == 0.0
    with pytest.raises(ValueError):
        rbo(["a"], ["a"], 1.0)


def test_rows_are_the_union_of_both_tops_with_moves() -> None:
    lists = CachedLists.of("some words", candidates(), ON)
    a, b = replace(ON, mode="fts"), replace(ON, mode="semantic")
    comparison = compare_lists(lists, a, b)
    got = [(r.path, r.rank_a, r.rank_b, r.delta, r.move) for r in comparison.rows]
    assert got == [
        ("b.md", 2, 1, 1, 1),
        ("e.md", None, 2, None, "new"),
        ("a.md", 1, 3, -2, -2),
        ("c.md", 3, None, None, "gone"),
        ("d.md", 4, None, None, "gone"),
    ]
    assert [r.move_text() for r in comparison.rows] == ["↑1", "new", "↓2", "gone", "gone"]
    assert [r.path for r in comparison.gone] == ["c.md", "d.md"]
    assert comparison.jaccard10 == pytest.approx(0.4)
    assert comparison.rbo == pytest.approx(0.5850, abs=1e-4)
    assert comparison.overlap_text() == "Jaccard@10 0.40 · RBO(p=0.9) 0.58"


def test_the_same_settings_agree_completely() -> None:
    lists = CachedLists.of("some words", candidates(), ON)
    comparison = compare_lists(lists, ON, ON)
    assert comparison.jaccard10 == 1.0 and comparison.rbo == pytest.approx(1.0)
    assert all(r.delta == 0 for r in comparison.rows)


def test_each_side_says_how_much_its_lists_agree() -> None:
    lists = CachedLists.of("some words", candidates(), ON)
    comparison = compare_lists(lists, replace(ON, mode="fts"), ON)
    lex, hyb = comparison.lists_a, comparison.lists_b
    assert (lex.lexical, lex.vector, lex.common, lex.hits_in_both) == (4, 0, 0, 0)
    assert (hyb.lexical, hyb.vector, hyb.common, hyb.hits_in_both) == (4, 3, 2, 2)
    assert hyb.jaccard10 == pytest.approx(2 / 5)
    # A floor shortens the vector list before the agreement is counted.
    floored = compare_lists(lists, ON, replace(ON, min_sim=0.85)).lists_b
    assert (floored.vector, floored.common, floored.hits_in_both) == (1, 1, 1)


def test_json_has_the_issue_shape() -> None:
    lists = CachedLists.of("some words", candidates(), ON)
    data = compare_lists(lists, replace(ON, mode="fts"), replace(ON, mode="semantic")).to_json()
    assert {"query", "a", "b", "overlap", "rows"} <= set(data)
    assert data["query"] == "some words"
    assert data["a"] == replace(ON, mode="fts").in_effect().to_json()  # what ranked
    assert data["b"]["mode"] == "semantic"
    assert set(data["overlap"]) == {"jaccard10", "rbo"} and data["overlap"]["jaccard10"] == 0.4
    assert data["rboP"] == 0.9 and set(data["lists"]) == {"a", "b"}
    rows = data["rows"]
    assert {"path", "rankA", "rankB", "delta"} <= set(rows[0])
    assert rows[1] == {
        "path": "e.md",
        "title": "E",
        "rankA": None,
        "rankB": 2,
        "delta": None,
        "move": "new",
    }
    assert rows[-1]["rankB"] is None and rows[-1]["move"] == "gone"


def test_rows_compare_the_top_n_of_each_response() -> None:
    lists = CachedLists.of("some words", candidates(), ON)
    a = replace(ON, mode="fts", limit=2)
    b = replace(ON, mode="semantic", limit=2)
    response_a, _ = lists.fuse(a)
    response_b, _ = lists.fuse(b)
    comparison = compare_responses(response_a, response_b)
    assert [(r.path, r.rank_a, r.rank_b) for r in comparison.rows] == [
        ("b.md", 2, 1),
        ("e.md", None, 2),
        ("a.md", 1, None),
    ]


class CountingSearcher:
    def __init__(self, semantic: bool = True) -> None:
        self.fetched: list[SearchOptions] = []
        self.semantic = semantic

    def candidates(self, raw: str, options: SearchOptions) -> Candidates:
        self.fetched.append(options)
        return replace(candidates(semantic=self.semantic), depth=options.depth)


def test_one_search_answers_both_settings() -> None:
    searcher: Any = CountingSearcher()
    a = replace(ON, mode="fts", depth=150)
    b = replace(ON, min_sim=0.5)
    comparison = compare_query(searcher, "some words", a, b)
    assert len(searcher.fetched) == 1
    fetched = searcher.fetched[0]
    assert (fetched.mode, fetched.depth, fetched.min_sim) == ("hybrid", 150, 0.0)
    assert CachedLists.of("q", candidates(), covering(a, b)).covers(a)
    assert [r.path for r in comparison.rows][:2] == ["a.md", "b.md"]


def test_semantic_without_vectors_is_an_error() -> None:
    searcher: Any = CountingSearcher(semantic=False)
    with pytest.raises(SemanticUnavailable, match="no model"):
        compare_query(searcher, "some words", ON, replace(ON, mode="semantic"))


def test_lists_that_do_not_cover_both_settings_are_refused() -> None:
    lists = CachedLists.of("some words", candidates(), replace(ON, mode="fts"))
    with pytest.raises(ValueError, match="cover"):
        compare_lists(lists, replace(ON, mode="fts"), ON)


def test_describe_names_what_matters_for_the_mode() -> None:
    assert describe(ON) == "hybrid RRF k=60 w 0.7/0.3 depth 50 min-sim 0"
    assert describe(replace(ON, mode="fts")) == "fts depth 50"
    assert describe(replace(ON, fusion="convex")) == "hybrid convex w 0.7/0.3 depth 50 min-sim 0"
    assert describe(replace(ON, mode="semantic", min_rel=0.5)) == (
        "semantic depth 50 min-sim 0 min-rel 0.5"
    )
