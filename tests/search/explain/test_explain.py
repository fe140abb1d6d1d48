"""explain(): every reason a note is where it is, on the sample vault with the real model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.explain.explain import NoteNotIndexed, explain, stem_words
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index

OPTIONS = SearchOptions(fusion="rrf", k=60.0, w_fts=0.7, w_vec=0.3, depth=10, min_sim=0.3, limit=5)


def test_a_note_not_in_the_index_is_an_error(sample_searcher: Searcher) -> None:
    with pytest.raises(NoteNotIndexed, match=r"no/such\.md"):
        explain(sample_searcher, "deploy", "no/such.md", OPTIONS)


def test_stems_are_the_index_tokenizer_s() -> None:
    assert stem_words(["deploying", "Runbooks"]) == [("deploi",), ("runbook",)]


def test_an_exclusion_names_its_word(sample_searcher: Searcher) -> None:
    e = explain(sample_searcher, "deploy -runbook", "ops/deploy-runbook.md", OPTIONS)
    assert "excluded" in e.reasons
    assert [(x.word, x.present) for x in e.exclusions] == [("runbook", True)]
    assert e.to_json()["exclusions"][0]["word"] == "runbook"
    assert e.fused.rank is None


def test_a_stale_note_is_only_demoted(sample_searcher: Searcher) -> None:
    e = explain(sample_searcher, "deploy runbook", "ops/deploy-runbook-2023.md", OPTIONS)
    # Its title, "Deploy runbook (2023)", is the query and a word more: a near match.
    assert e.reasons == ["title-near", "stale-demoted"]
    assert e.fused.rank_before_demotion == 1
    assert e.fused.rank is not None and e.fused.rank > OPTIONS.limit


def test_missing_words_and_the_floor(sample_searcher: Searcher) -> None:
    query = "visitors glimpsed outdated stylesheets"
    e = explain(sample_searcher, query, "recipes/creme-brulee.md", OPTIONS)
    assert "no-words" in e.reasons and "under-floor" in e.reasons
    assert set(e.words.missing) == {"visitors", "glimpsed", "outdated", "stylesheets"}
    assert e.vector.cosine is not None and e.vector.floor is not None
    assert e.vector.cosine < e.vector.floor


def test_a_shown_hit_says_its_rank(sample_searcher: Searcher) -> None:
    shown = [h.path for h in sample_searcher.search("deploy", OPTIONS).hits]
    e = explain(sample_searcher, "deploy", shown[2], OPTIONS)
    assert e.fused.rank == 3 and "shown" in e.reasons
    assert e.changes[0].note == "already shown at rank 3"


@pytest.mark.parametrize("fusion", ["rrf", "convex", "calibrated"])
def test_the_change_found_brings_the_note_in(sample_searcher: Searcher, fusion: str) -> None:
    # No floor, so the vector list is long enough to trade places with (a weight of 0 is no
    # change: a list's own notes then score 0 and are not listed).
    options = replace(
        OPTIONS, fusion=fusion, w_fts=0.5, w_vec=0.5, depth=20, min_sim=0.0, min_rel=0.0, limit=20
    )
    query = "deploy rollback"
    hits = [h.path for h in sample_searcher.search(query, options).hits]
    solved = 0
    for path in hits[3:]:
        e = explain(sample_searcher, query, path, options, top=3)
        assert e.fused.rank == hits.index(path) + 1  # the same order as the search
        for change in e.changes:
            if not change.possible or change.setting is None:
                continue
            moved = replace(options, **{change.setting: change.value})
            assert path in [h.path for h in sample_searcher.search(query, moved).hits][:3]
            solved += 1
    assert solved


def test_a_compound_s_word_is_found_by_its_parts(
    write: Callable[[str, str | bytes], Path],
    vault: Path,
    open_db: Callable[[Path], IndexDB],
) -> None:
    """The note holds ``Bild`` and ``Größe``, which the lexical list matches for the question's
    ``bildgröße``: explain says the word is there, as the list counted it."""
    write("de/magick.md", "# magick\n\nSkaliere ein Bild auf die Hälfte seiner Größe.\n")
    write("de/fenster.md", "# Fenster\n\nDie Größe eines Fensters ändern, im Terminal.\n")
    searcher = build_index(open_db(vault), None)
    e = explain(searcher, "bildgröße im terminal", "de/magick.md", replace(OPTIONS, mode="fts"))
    assert e.lexical.rank is not None
    assert "bildgröße" not in e.words.missing and e.words.missing == ("terminal",)


def test_a_note_below_the_depth_is_told_the_depth_that_brings_it_in(
    sample_searcher: Searcher,
) -> None:
    """Why Not said "no fusion setting can rank it" for a note at vector rank 55, which a
    depth of 55 would bring in (issue 46)."""
    options = replace(OPTIONS, depth=3, min_sim=0.0, min_rel=0.0, limit=3)
    query = "deploy rollback"
    wide = replace(options, depth=50, limit=50)
    deep = [h.path for h in sample_searcher.search(query, wide).hits]
    shown = {h.path for h in sample_searcher.search(query, options).hits}
    path = next(p for p in deep if p not in shown)
    e = explain(sample_searcher, query, path, options)
    assert e.fused.rank is None and {"lexical-depth", "vector-depth"} & set(e.reasons)
    [change] = e.changes
    assert change.possible and change.setting == "depth" and change.value is not None
    assert "no fusion setting" not in change.note
    deeper = replace(options, depth=int(change.value))
    assert (
        path in {h.path for h in sample_searcher.search(query, deeper).hits}
        or explain(sample_searcher, query, path, deeper).fused.rank is not None
    )


def test_explain_reuses_the_search_s_query_vector_and_filter_mask(
    write: Callable[[str, str | bytes], Path],
    vault: Path,
    open_db: Callable[[Path], IndexDB],
    fake: FakeEmbedder,
) -> None:
    """The query is embedded once (for the candidates), and the note's vector rank is counted
    among the notes the search's own filter mask passes: no filter statement of explain's own."""
    for i in range(12):
        tag = "#ops" if i % 2 else "#home"
        write(f"n{i:02}.md", f"# Note {i}\n\ndeploy {'rollback ' * (i % 4)}server {tag}\n")
    searcher = build_index(open_db(vault), EmbedderProvider.of(fake))
    options = replace(OPTIONS, mode="semantic", depth=3, min_sim=0.0, min_rel=0.0, limit=3)
    query = "deploy rollback tag:ops"
    listed = [v.path for v in searcher.candidates(query, replace(options, depth=50)).vector]
    assert len(listed) == 6  # the notes tagged ops, best first
    statements: list[str] = []
    searcher.db.conn.set_trace_callback(statements.append)
    before = fake.calls
    e = explain(searcher, query, listed[4], options)
    assert fake.calls - before == 1  # the candidates' embedding, not a second one
    assert e.vector.rank == 5 and "vector-depth" in e.reasons
    assert not [s for s in statements if s.startswith("SELECT id FROM notes n WHERE")]
