"""Re-fusing the cached lists: what the fusion controls can change without a new search."""

from __future__ import annotations

from dataclasses import replace

from explorer.search.fusion.cached import MIN_FETCH_DEPTH, CachedLists
from explorer.search.fusion.results import SemanticStatus
from explorer.search.query.options import SearchOptions
from tests.search.helpers import candidates

# Lexical list a, b, c, d; vector list b, e, a.  a and b: both; c, d: lexical only; e: vector only.


def test_cached_lists_cover_settings_up_to_what_was_fetched() -> None:
    lists = CachedLists.of("q", candidates(), SearchOptions(depth=50))
    assert lists.fetched.depth == MIN_FETCH_DEPTH and lists.fetched.min_sim == 0.0
    assert lists.covers(SearchOptions(k=5, w_fts=0.1, w_vec=2.0, depth=MIN_FETCH_DEPTH))
    assert lists.covers(SearchOptions(mode="fts")) and lists.covers(SearchOptions(mode="semantic"))
    assert not lists.covers(SearchOptions(depth=MIN_FETCH_DEPTH + 1))
    lexical_only = CachedLists.of("q", candidates(), SearchOptions(mode="fts"))
    assert lexical_only.fetched.mode == "fts"
    assert not lexical_only.covers(SearchOptions(mode="hybrid"))


def test_the_similarity_floor_is_applied_while_fusing() -> None:
    lists = CachedLists.of("q", candidates(), SearchOptions())
    response, shown = lists.fuse(SearchOptions(min_sim=0.75))
    assert [v.path for v in shown.vector] == ["b.md", "e.md"]  # scores 0.9, 0.8 (0.7 dropped)
    by_path = {h.path: h for h in response.hits}
    assert by_path["a.md"].vector_rank is None and by_path["a.md"].source == "fts"
    assert by_path["e.md"].vector_rank == 2


def test_the_relative_floor_is_a_fraction_of_the_best_cosine() -> None:
    lists = CachedLists.of("q", candidates(), SearchOptions(min_rel=0.5))
    assert lists.fetched.min_rel == 0.0  # fetched without it, applied while fusing
    _, shown = lists.fuse(SearchOptions(min_sim=0.0, min_rel=0.9))
    assert [v.path for v in shown.vector] == ["b.md"]  # 0.8 < 0.9 x 0.9
    _, shown = lists.fuse(SearchOptions(min_sim=0.75, min_rel=0.5))
    assert [v.path for v in shown.vector] == ["b.md", "e.md"]  # the higher floor wins
    _, shown = lists.fuse(SearchOptions(min_sim=0.0, min_rel=0.0))
    assert [v.path for v in shown.vector] == [v.path for v in candidates().vector]


def test_semantic_mode_without_vectors_is_empty_with_its_reason() -> None:
    c = candidates()
    c.semantic = SemanticStatus(False, "model x is still loading", "x")
    c = replace(c, vector=[])
    response, _ = CachedLists.of("q", c, SearchOptions()).fuse(SearchOptions(mode="semantic"))
    assert response.hits == [] and response.semantic.reason == "model x is still loading"
