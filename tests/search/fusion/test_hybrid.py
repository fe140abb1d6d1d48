"""The orchestrator: modes, filters, stale demotion, listings, JSON, and degradation."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from explorer.embed.base import FakeEmbedder, Matrix
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.fusion.fusion import fuse, ranked
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import SemanticUnavailable
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import QueryError
from explorer.stages import recording
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]


@pytest.fixture
def small(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> Searcher:
    write(
        "ops/deploy.md",
        "---\ntags: [ops]\n---\n# Deploy runbook\n\nrollback the deploy with care\n",
    )
    write(
        "ops/old-deploy.md",
        "---\nstatus: stale\ntags: [ops]\n---\n"
        "# Deploy runbook 2019\n\nrollback the deploy with care\n",
    )
    write("dev/api.md", "# API\n\nour deploy pipeline calls the api\n")
    write("dev/cooking.md", "# Pasta\n\nboil water add salt\n")
    return build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))


def test_json_shape_and_contributions_sum(small: Searcher) -> None:
    seed = SearchOptions(mode="hybrid", fusion="rrf", k=60.0, w_fts=0.7, w_vec=0.3)
    out = small.search("deploy rollback", seed).to_json()
    assert set(out) == {
        "query",
        "mode",
        "fusion",
        "semantic",
        "closeMatch",
        "closeMatchJudgedOn",
        "vectorSpread",
        "hits",
    }
    assert isinstance(out["closeMatch"], bool)
    spread = out["vectorSpread"]
    assert spread["notes"] == 4 and sum(spread["histogram"]) == 4 and spread["std"] >= 0
    assert out["fusion"] == {
        "method": "rrf",
        "k": 60,
        "weights": {"fts": 0.7, "vector": 0.3},
        "depth": 50,
    }
    assert out["semantic"] == {
        "available": True,
        "reason": None,
        "model": "fake-bow-64",
        "queryLanguage": None,
        "modelReadsQuery": None,
    }
    for hit in out["hits"]:
        assert set(hit) == {
            "noteId",
            "path",
            "title",
            "snippet",
            "fusedScore",
            "contributions",
            "ftsRank",
            "vectorRank",
            "ftsScore",
            "ftsPass",
            "vectorScore",
            "source",
            "evidence",
            "vectorSigmas",
            "coverage",
            "weightedCoverage",
            "demoted",
            "bestChunk",
            "runnerUpChunk",
            "fusedRank",
            "titleMatch",
            "titleMatchName",
        }
        if hit["bestChunk"] is not None:
            assert set(hit["bestChunk"]) == {"start", "end", "seq", "cosine"}
            assert hit["bestChunk"]["cosine"] == pytest.approx(hit["vectorScore"], abs=1e-6)
        assert (hit["ftsPass"] is None) == (hit["ftsRank"] is None)
        assert (hit["weightedCoverage"] is None) == (hit["coverage"] is None)
        assert (hit["vectorSigmas"] is None) == (hit["vectorRank"] is None)
        assert set(hit["evidence"]) <= {"fts", "vector"}
        assert all(0 <= e <= 1 for e in hit["evidence"].values())
        assert (hit["demoted"] == "stale") == (hit["path"] == "ops/old-deploy.md")
        assert hit["ftsPass"] in (None, "phrase", "all words", "any word")
        assert sum(hit["contributions"].values()) == pytest.approx(hit["fusedScore"], abs=1e-15)
        assert hit["source"] in ("both", "fts", "vector")
        assert (hit["ftsRank"] is None) == (hit["source"] == "vector")
        assert (hit["vectorRank"] is None) == (hit["source"] == "fts")


def test_stale_note_ranks_below_fresh(small: Searcher) -> None:
    for mode in ("fts", "hybrid", "semantic"):
        paths = [
            h.path for h in small.search("deploy runbook rollback", SearchOptions(mode=mode)).hits
        ]
        assert paths.index("ops/deploy.md") < paths.index("ops/old-deploy.md"), mode
        assert paths[-1] == "ops/old-deploy.md", mode


def test_filters_restrict_both_lists_identically(small: Searcher) -> None:
    for mode in ("fts", "semantic", "hybrid"):
        hits = small.search("deploy api water", SearchOptions(mode=mode)).hits
        assert "dev/api.md" in {h.path for h in hits}
        for query in ("deploy api water tag:ops", "deploy api water path:ops/"):
            paths = {h.path for h in small.search(query, SearchOptions(mode=mode)).hits}
            assert paths and paths <= {"ops/deploy.md", "ops/old-deploy.md"}, (mode, query)
        excluded = small.search("deploy api -rollback", SearchOptions(mode=mode)).hits
        paths = {h.path for h in excluded}
        assert "dev/api.md" in paths and not paths & {"ops/deploy.md", "ops/old-deploy.md"}, mode


def test_a_filter_is_read_once_per_index_generation(small: Searcher, write: Write) -> None:
    """The notes a filter passes are read from the index once, and masked over the matrix
    once, while the index does not change: a search that keeps its filter while its words
    change costs neither again, and a write makes the next search read them anew."""
    statements: list[str] = []
    small.db.conn.set_trace_callback(statements.append)

    def reads() -> int:  # the statements reading the filter's note ids
        return sum("group_concat" in sql for sql in statements)

    options = SearchOptions(mode="hybrid")
    first = small.candidates("deploy tag:ops", options)
    assert first.allowed is not None and reads() == 1
    again = small.candidates("rollback care tag:ops", options)
    assert again.allowed is first.allowed and reads() == 1
    other = small.candidates("deploy path:ops/", options)
    assert other.allowed is not first.allowed and reads() == 2
    masked = first.allowed
    assert getattr(masked, "masks_made", None) == 1  # the matrix's notes masked once
    assert {h.path for h in small.search("deploy tag:ops", options).hits} == {
        "ops/deploy.md",
        "ops/old-deploy.md",
    }
    write("dev/ops-notes.md", "---\ntags: [ops]\n---\n# Ops\n\ndeploy notes\n")
    build_index(small.db, small.provider)
    paths = {h.path for h in small.search("deploy tag:ops", options).hits}
    assert paths == {"ops/deploy.md", "ops/old-deploy.md", "dev/ops-notes.md"}
    assert reads() == 3


def test_empty_query_lists_recent_notes(small: Searcher, vault: Path) -> None:
    import os

    for i, rel in enumerate(["dev/cooking.md", "ops/deploy.md", "dev/api.md", "ops/old-deploy.md"]):
        os.utime(vault / rel, (1_000_000 + i, 1_000_000 + i))
    from explorer.index.sync import sync_vault

    sync_vault(small.db)
    response = small.search("")
    assert response.listing
    assert [h.path for h in response.hits] == [
        "ops/old-deploy.md",
        "dev/api.md",
        "ops/deploy.md",
        "dev/cooking.md",
    ]
    assert response.to_json()["listing"] == "recent"
    assert [h.path for h in small.search("tag:ops").hits] == ["ops/old-deploy.md", "ops/deploy.md"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (SearchOptions(limit=0), "limit"),
        (SearchOptions(limit=101), "limit"),
        (SearchOptions(k=0), "k must be positive"),
        (SearchOptions(k=-1), "k must be positive"),
        (SearchOptions(k=float("inf")), "k must be a finite number"),
        (SearchOptions(w_fts=float("nan")), "w-fts must be a finite number"),
        (SearchOptions(w_vec=float("inf")), "w-vec must be a finite number"),
        (SearchOptions(min_sim=float("nan")), "min-sim"),
        (SearchOptions(mode="vector"), "unknown mode"),
    ],
)
def test_bad_options_are_rejected(small: Searcher, options: SearchOptions, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        small.search("deploy", options)


def test_natural_question_is_not_empty_when_a_word_is_missing(small: Searcher) -> None:
    hits = small.search(
        "how do we rollback a broken deploy quickly", SearchOptions(mode="fts")
    ).hits
    assert hits and hits[0].path == "ops/deploy.md"


def test_refusion_changes_order_without_a_new_query(small: Searcher) -> None:
    candidates = small.candidates("deploy pipeline api", SearchOptions())
    lexical_heavy = fuse(candidates, SearchOptions(w_fts=1.0, w_vec=0.0))
    vector_heavy = fuse(candidates, SearchOptions(w_fts=0.0, w_vec=1.0))
    # Stale notes go last, so compare the fresh ones: the lexical order, then the rest.
    lexical_order = [p for p, _, _ in candidates.lexical if p != "ops/old-deploy.md"]
    fused_fresh = [h.path for h in lexical_heavy.hits if h.status != "stale"]
    assert fused_fresh[: len(lexical_order)] == lexical_order
    assert lexical_heavy.hits[0].contributions["vector"] == 0.0
    assert vector_heavy.hits[0].contributions["fts"] == 0.0


@pytest.mark.parametrize("mode", ["fts", "semantic", "hybrid"])
@pytest.mark.parametrize("fusion", ["rrf", "convex"])
def test_ranked_is_the_order_of_the_hits_fuse_makes(
    small: Searcher, mode: str, fusion: str
) -> None:
    for query in ("deploy pipeline api", "", "old deploy"):
        candidates = small.candidates(query, SearchOptions())
        for limit in (1, 3, 20):
            options = SearchOptions(mode=mode, fusion=fusion, limit=limit, depth=4)
            expected = [h.path for h in fuse(candidates, options).hits]
            assert ranked(candidates, options) == expected, (query, limit)


class _Broken:
    name = "broken"
    dimension = 64

    def embed(self, texts: list[str]) -> Matrix:
        raise RuntimeError("model exploded")


class _Slow(FakeEmbedder):
    def __init__(self, release: threading.Event) -> None:
        super().__init__()
        self.release = release

    def embed(self, texts: list[str]) -> Matrix:
        self.release.wait(30)
        return super().embed(texts)


def _lexical(searcher: Searcher, query: str) -> list[tuple[str, int | None]]:
    return [(h.path, h.fts_rank) for h in searcher.search(query, SearchOptions(mode="fts")).hits]


@pytest.mark.parametrize(
    "case", ["no-model", "load-fails", "embed-raises", "timeout", "no-vectors"]
)
def test_degradation_returns_exactly_the_lexical_result(small: Searcher, case: str) -> None:
    db = small.db
    release = threading.Event()
    if case == "no-model":
        provider = EmbedderProvider.disabled("no embedding model configured")
    elif case == "load-fails":

        def fail() -> FakeEmbedder:
            raise OSError("weights file missing")

        provider = EmbedderProvider("broken-model", fail)
    elif case == "embed-raises":
        provider = EmbedderProvider.of(_Broken())  # type: ignore[arg-type]
    elif case == "timeout":
        provider = EmbedderProvider.of(_Slow(release))
    else:
        provider = EmbedderProvider.of(FakeEmbedder(name="never-embedded"))
    searcher = Searcher(db, provider, embed_timeout=0.2)
    try:
        response = searcher.search("deploy rollback api", SearchOptions(mode="hybrid"))
    finally:
        release.set()
    assert response.semantic.available is False
    assert response.semantic.reason
    expected = _lexical(small, "deploy rollback api")
    assert [(h.path, h.fts_rank) for h in response.hits] == expected
    assert all(h.vector_rank is None and h.source == "fts" for h in response.hits)
    reasons = {
        "no-model": "no embedding model",
        "load-fails": "weights file missing",
        "embed-raises": "model exploded",
        "timeout": "longer than",
        "no-vectors": "no note has a vector",
    }
    assert reasons[case] in (response.semantic.reason or "")
    if case != "timeout":
        with pytest.raises(SemanticUnavailable):
            searcher.search("deploy", SearchOptions(mode="semantic"))


def test_fts_mode_never_loads_the_model(small: Searcher) -> None:
    loads = []

    def load() -> FakeEmbedder:
        loads.append(1)
        return FakeEmbedder()

    provider = EmbedderProvider("lazy", load)
    Searcher(small.db, provider).search("deploy", SearchOptions(mode="fts"))
    assert loads == []
    assert provider.peek() is None


def test_vector_only_hits_get_a_marked_snippet_and_best_chunk(small: Searcher) -> None:
    hits = small.search("boil salt", SearchOptions(mode="semantic")).hits
    top = hits[0]
    assert top.path == "dev/cooking.md"
    assert "<mark>boil</mark>" in top.snippet
    assert top.best_chunk is not None and top.best_chunk[0] < top.best_chunk[1]
    assert np.isfinite(top.vector_score or 0.0)


def test_the_relative_floor_keeps_the_notes_near_the_best_match(small: Searcher) -> None:
    no_floor = SearchOptions(mode="semantic", min_sim=-1.0, min_rel=0.0)
    whole = small.candidates("boil salt", no_floor).vector
    best = whole[0].score
    assert best > 0 and len(whole) == 4  # every note has a cosine
    cut = small.candidates("boil salt", replace(no_floor, min_rel=0.5))
    assert [v.path for v in cut.vector] == [v.path for v in whole if v.score >= 0.5 * best]
    assert cut.vector[0].path == "dev/cooking.md" and len(cut.vector) < len(whole)


def test_a_vector_only_snippet_marks_no_stop_word(small: Searcher) -> None:
    top = small.search("why does the pipeline call the api", SearchOptions(mode="semantic")).hits[0]
    assert top.path == "dev/api.md"
    assert "<mark>pipeline</mark>" in top.snippet and "<mark>api</mark>" in top.snippet
    assert "<mark>the</mark>" not in top.snippet


def test_the_vector_list_ranked_beside_the_lexical_one_is_the_same_list(
    small: Searcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the model loaded, a hybrid search embeds the query and ranks the matrix on another
    thread while it makes the lexical list; the result is exactly the one of doing both in turn
    (which it still does while the model loads), filters and floors included."""
    queries = [
        ("deploy the cache", SearchOptions()),
        ("cdn purge tag:ops", SearchOptions()),
        ("why did the deploy fail after the purge", SearchOptions(min_rel=0.8)),
        ("cache -staging", SearchOptions(depth=5)),
    ]
    small.search("warm the model up", SearchOptions())
    beside = [small.search(q, o).to_json() for q, o in queries]
    ran = []
    original = Searcher._begin_vector

    def counted(self: Searcher, *args: object) -> object:
        future = original(self, *args)  # type: ignore[arg-type]
        ran.append(future is not None)
        return future

    monkeypatch.setattr(Searcher, "_begin_vector", counted)
    again = [small.search(q, o).to_json() for q, o in queries]
    assert ran == [True] * len(queries)
    monkeypatch.setattr(Searcher, "_begin_vector", lambda self, *args: None)
    in_turn = [small.search(q, o).to_json() for q, o in queries]

    def ranking(payload: dict[str, object]) -> object:
        return {k: v for k, v in payload.items() if k not in ("timings", "stages")}

    assert [ranking(p) for p in beside] == [ranking(p) for p in in_turn]
    assert [ranking(p) for p in again] == [ranking(p) for p in in_turn]


def test_a_searcher_per_request_counts_each_term_once_while_the_index_is_unchanged(
    small: Searcher, write: Write
) -> None:
    """The counts are the open index's, not a searcher's: a reader that makes a searcher per
    request (as the window's does) counts a word's notes once, until the index changes."""
    options = SearchOptions(mode="fts")

    def counts_run(raw: str) -> int:
        statements: list[str] = []
        small.db.conn.set_trace_callback(statements.append)
        Searcher(small.db, small.provider).search(raw, options)
        small.db.conn.set_trace_callback(None)
        return sum("count(*) FROM notes_fts" in s for s in statements)

    assert counts_run("why does the deploy rollback fail") > 0
    assert counts_run("why does the deploy rollback fail") == 0
    write("dev/rollback.md", "# Rollback\n\nthe deploy rollback failed\n")
    build_index(small.db, small.provider)
    assert counts_run("why does the deploy rollback fail") > 0


def test_a_recorded_search_says_where_its_time_went(small: Searcher) -> None:
    """Each step of a hybrid search is a stage of its own (the vector list's ranked beside the
    lexical list, so not added in).  How much of the search no stage holds depends on the
    machine's load, so it is a figure ``bench`` prints ("other"), not asserted here."""
    options = SearchOptions(mode="hybrid")
    small.search("warm the model up", options)
    with recording() as steps:
        small.search("why deploy the api pipeline", options)
    assert {
        "parse",
        "filters",
        "vector refresh",
        "lexical: all words",
        "lexical: any word",
        "lexical: coverage",
        "vector hand-off",
        "lexical: other",
        "vector list (waited for)",
        "vector rows",
        "note rows",
        "titles",
        "fusion",
        "snippets",
        "sort",
        "query embedding",
        "vector top-k",
    } <= set(steps.ms)
    assert steps.beside == {"query embedding", "vector top-k"}
    # Nested stages count their own time only: together they are never more than the search.
    assert steps.own_ms <= steps.total_ms
