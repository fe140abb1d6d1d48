"""What an evaluation runs with."""

from __future__ import annotations

from dataclasses import replace

from explorer.evaluate.settings import EvalSettings
from explorer.search.query.options import SearchOptions


def test_search_options_of_settings() -> None:
    search = SearchOptions(k=10, w_fts=0.4, w_vec=0.6, depth=80, fusion="convex", limit=7)
    assert EvalSettings(search).options("fts") == replace(search, mode="fts", limit=100)
    assert EvalSettings().options("hybrid") == SearchOptions(depth=100, limit=100)
    assert EvalSettings(modes=("fts",)).candidate_mode == "fts"
    assert EvalSettings(modes=("semantic",)).candidate_mode == "semantic"
    assert EvalSettings(modes=("fts", "semantic")).candidate_mode == "hybrid"
