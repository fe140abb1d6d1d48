"""What hybrid search is for, proved on the bundled sample vault with the real model."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending
from explorer.index.sync import sync_vault
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import PRESETS, SearchOptions, with_ranking_of
from tests import sample_vault_facts as facts
from tests.conftest import build_index

pytestmark = pytest.mark.model


def _paths(
    searcher: Searcher, query: str, mode: str, limit: int = 20, preset: str = "default"
) -> list[str]:
    options = with_ranking_of(SearchOptions(mode=mode, limit=limit), PRESETS[preset])
    return [h.path for h in searcher.search(query, options).hits]


@pytest.mark.parametrize(
    ("query", "target"),
    [
        (facts.PARAPHRASE_QUERY, facts.PARAPHRASE_TARGET),
        (facts.PARAPHRASE_QUERY_2, facts.PARAPHRASE_TARGET_2),
    ],
)
def test_paraphrase_is_found_by_vectors_where_words_find_nothing(
    sample_searcher: Searcher, query: str, target: str
) -> None:
    assert _paths(sample_searcher, query, "fts") == []
    response = sample_searcher.search(query, SearchOptions(mode="hybrid", limit=5))
    top = {h.path: h for h in response.hits}
    assert target in top
    assert top[target].source == "vector" and top[target].fts_rank is None
    assert response.hits[0].path == target


@pytest.mark.parametrize(
    ("query", "target"),
    [
        (facts.ERROR_PASTE_QUERY, facts.ERROR_PASTE_TARGET),
        (facts.IDENTIFIER_QUERY, facts.IDENTIFIER_TARGET),
        (facts.TAR_QUERY, facts.TAR_TARGET),
    ],
)
def test_exact_pastes_and_identifiers_rank_first(
    sample_searcher: Searcher, query: str, target: str
) -> None:
    assert _paths(sample_searcher, query, "fts")[0] == target
    assert _paths(sample_searcher, query, "hybrid")[0] == target
    # The default (convex, the lexical list per pass: a phrase-pass hit outscores notes that
    # only repeat its words) and rank-only RRF both keep it first.
    assert _paths(sample_searcher, query, "hybrid", preset="rrf")[0] == target


def test_sentence_past_character_40000_is_found_semantically(sample_searcher: Searcher) -> None:
    text = (facts.VAULT / facts.LONG_NOTE).read_text(encoding="utf-8")
    offset = text.index(facts.LONG_NOTE_SENTENCE)
    assert offset > 30_000
    response = sample_searcher.search(
        facts.LONG_NOTE_QUERY, SearchOptions(mode="semantic", limit=5)
    )
    hit = next(h for h in response.hits if h.path == facts.LONG_NOTE)
    assert response.hits.index(hit) == 0
    assert hit.best_chunk is not None
    start, end = hit.best_chunk
    assert start <= offset < end  # the window can scroll to the very chunk


def test_diacritics_are_folded(sample_searcher: Searcher) -> None:
    assert _paths(sample_searcher, facts.DIACRITICS_QUERY, "fts")[0] == facts.DIACRITICS_TARGET


def test_cjk_substring_is_found(sample_searcher: Searcher) -> None:
    response = sample_searcher.search(facts.CJK_QUERY, SearchOptions(mode="fts"))
    assert response.hits[0].path == facts.CJK_TARGET
    assert "<mark>" in response.hits[0].snippet


def test_stale_note_ranks_below_the_fresh_one(sample_searcher: Searcher) -> None:
    for mode in ("fts", "semantic", "hybrid"):
        paths = _paths(sample_searcher, facts.STALE_QUERY, mode, limit=100)
        assert paths.index(facts.FRESH_NOTE) < paths.index(facts.STALE_NOTE), mode


def test_filters_exclude_from_both_lists(sample_searcher: Searcher) -> None:
    for mode in ("fts", "semantic", "hybrid"):
        tagged = set(_paths(sample_searcher, f"{facts.PARAPHRASE_QUERY} deploy tag:ops", mode, 100))
        assert tagged and tagged <= facts.TAG_OPS_NOTES, mode
        foldered = set(_paths(sample_searcher, "cache deploy path:ops/", mode, 100))
        assert foldered and foldered <= facts.OPS_FOLDER_NOTES, mode


def test_ignored_notes_are_not_indexed(sample_searcher: Searcher) -> None:
    indexed = {r[0] for r in sample_searcher.db.conn.execute("SELECT path FROM notes")}
    assert len(indexed) == facts.NOTE_COUNT
    assert not indexed & facts.IGNORED_NOTES


def test_edit_rename_delete_are_reflected_by_the_next_search(
    real_provider: EmbedderProvider, sample_copy: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    db = open_db(sample_copy)
    searcher = build_index(db, real_provider)
    target = sample_copy / facts.PARAPHRASE_TARGET
    # Edit: new words become findable, old ones not.
    target.write_text(target.read_text(encoding="utf-8") + "\n\nA quokka audited the invoices.\n")
    sync_vault(db)
    embed_pending(db, real_provider.get())
    assert _paths(searcher, "quokka", "fts") == [facts.PARAPHRASE_TARGET]
    # Rename: same content, no embedding at all.
    counting = _Counting(real_provider.get())
    moved = sample_copy / "archive" / "renamed.md"
    moved.parent.mkdir()
    shutil.move(target, moved)
    sync_vault(db)
    embed_pending(db, counting)
    assert counting.calls == 0
    assert _paths(searcher, "quokka", "fts") == ["archive/renamed.md"]
    assert _paths(searcher, facts.PARAPHRASE_QUERY, "hybrid")[0] == "archive/renamed.md"
    # Delete: gone from both lists.
    os.remove(moved)
    sync_vault(db)
    assert _paths(searcher, "quokka", "fts") == []
    assert "archive/renamed.md" not in _paths(searcher, facts.PARAPHRASE_QUERY, "semantic", 100)


class _Counting:
    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.calls = 0
        self.name = inner.name  # type: ignore[attr-defined]
        self.dimension = inner.dimension  # type: ignore[attr-defined]

    def embed(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.calls += len(texts)
        return self.inner.embed(texts)  # type: ignore[attr-defined]


def test_fake_embedder_cannot_find_the_paraphrase(
    sample_copy: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """Control: the paraphrase test needs real semantics (a bag of words finds nothing)."""
    searcher = build_index(open_db(sample_copy), EmbedderProvider.of(FakeEmbedder()))
    response = searcher.search(facts.PARAPHRASE_QUERY, SearchOptions(mode="semantic", min_sim=0.01))
    assert facts.PARAPHRASE_TARGET not in [h.path for h in response.hits]


QUESTION = "why were the styles stale?"


def test_a_modest_but_clear_best_match_keeps_its_vector_rank(sample_searcher: Searcher) -> None:
    """The CDN-purge note's cosine for the short question is modest (about 0.29, under the old
    absolute floor of 0.3) but far above every other note: the default rule keeps it first in
    the vector list, and hybrid puts it in the top two (it has only ``styles`` in words)."""
    response = sample_searcher.search(QUESTION, SearchOptions())
    hits = {h.path: h for h in response.hits}
    target = hits[facts.PARAPHRASE_TARGET]
    assert target.vector_rank == 1 and target.vector_score is not None
    assert target.vector_score < 0.3  # modest: an absolute 0.3 floor would drop it
    assert facts.PARAPHRASE_TARGET in [h.path for h in response.hits[:2]]
    # The explicit absolute floor is still there for whoever asks for it.
    strict = sample_searcher.search(QUESTION, SearchOptions(min_sim=0.3))
    assert all(h.vector_rank is None for h in strict.hits)


@pytest.mark.parametrize("query", ["postgres vacuum", "lisbon tram"])
def test_lexical_only_rows_appear_where_the_vector_list_has_nothing_close(
    sample_searcher: Searcher, query: str
) -> None:
    """The vault is smaller than the depth: if every note were in the vector list no row would
    ever be blue.  The calibrated default keeps in it only the notes whose cosine stands above
    the query's vault bulk (the convex preset's relative floor keeps those near the best)."""
    for preset in ("default", "convex"):
        response = sample_searcher.search(query, with_ranking_of(SearchOptions(), PRESETS[preset]))
        sources = [h.source for h in response.hits]
        assert "fts" in sources, (preset, sources)
        assert len([s for s in sources if s != "fts"]) < 20  # not every note of the vault
    exact = sample_searcher.search(facts.TAR_QUERY, SearchOptions(limit=100)).hits
    assert 0 < len([h for h in exact if h.vector_rank is not None]) < 20
