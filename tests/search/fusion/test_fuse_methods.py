"""``fuse`` with each fusion method over cached candidates: contributions, modes, degradation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import FUSION_METHODS, SearchOptions
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]


@pytest.fixture
def searcher(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> Searcher:
    write("deploy.md", "# Deploy runbook\n\nrollback the deploy with care, then deploy again\n")
    write("api.md", "# API\n\nour deploy pipeline calls the api\n")
    write("rollback.md", "# Rollback\n\nhow to rollback a release\n")
    write("pasta.md", "# Pasta\n\nboil water add salt\n")
    write("care.md", "# Care\n\nhandle with care\n")
    return build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))


def test_both_methods_are_offered() -> None:
    assert FUSION_METHODS == ("rrf", "convex", "calibrated")
    assert SearchOptions().fusion == "calibrated"  # chosen by measurement (README "Figures")


def test_convex_contributions_sum_to_fused_score(searcher: Searcher) -> None:
    options = SearchOptions(mode="hybrid", fusion="convex", w_fts=0.7, w_vec=0.3)
    response = fuse(searcher.candidates("deploy rollback care", options), options)
    out = response.to_json()
    assert out["fusion"]["method"] == "convex"
    assert out["hits"], "the query must find something"
    assert {h["source"] for h in out["hits"]} >= {"both"}
    scores = [h["fusedScore"] for h in out["hits"]]
    assert scores == sorted(scores, reverse=True)
    for hit in out["hits"]:
        assert sum(hit["contributions"].values()) == pytest.approx(hit["fusedScore"], abs=1e-15)
        assert 0.0 <= hit["contributions"]["fts"] <= 0.7 + 1e-12
        assert 0.0 <= hit["contributions"]["vector"] <= 0.3 + 1e-12
        if hit["ftsRank"] is None:
            assert hit["contributions"]["fts"] == 0.0
    # The best of each list normalises to 1: its contribution is the list's full weight.
    best_fts = next(h for h in out["hits"] if h["ftsRank"] == 1)
    best_vec = next(h for h in out["hits"] if h["vectorRank"] == 1)
    assert best_fts["contributions"]["fts"] == pytest.approx(0.7)
    assert best_vec["contributions"]["vector"] == pytest.approx(0.3)


def test_single_list_modes_keep_the_list_order(searcher: Searcher) -> None:
    candidates = searcher.candidates("deploy rollback care", SearchOptions(mode="hybrid"))
    for mode in ("fts", "semantic"):
        by_method = {
            method: [h.path for h in fuse(candidates, SearchOptions(mode=mode, fusion=method)).hits]
            for method in FUSION_METHODS
        }
        # One list, its own order; a method may leave out its tail of notes worth nothing
        # (a cosine at or below 0 under convex, not above the bulk under calibrated).
        for method, paths in by_method.items():
            assert paths == by_method["rrf"][: len(paths)] and paths, (mode, method)
        if mode == "fts":
            assert by_method["rrf"] == by_method["convex"] == by_method["calibrated"]


def test_convex_degrades_to_the_lexical_result(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\ndeploy rollback\n")
    write("b.md", "# B\n\ndeploy\n")
    searcher = build_index(open_db(vault), None)  # no model
    hybrid = searcher.search("deploy rollback", SearchOptions(mode="hybrid", fusion="convex"))
    lexical = searcher.search("deploy rollback", SearchOptions(mode="fts"))
    assert not hybrid.semantic.available
    assert [h.path for h in hybrid.hits] == [h.path for h in lexical.hits]
