"""The query on screen as one value: response, lists and comparison derived from the lists, the
settings and the baseline."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.answers.compare import compare_responses
from explorer.search.answers.shown import Shown
from explorer.search.fusion.cached import MIN_FETCH_DEPTH, CachedLists, fetch_options
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests.search.helpers import candidates

HYBRID = SearchOptions(limit=10)


def test_nothing_is_shown_before_lists_arrive() -> None:
    shown = Shown(HYBRID)
    assert shown.needs_search and shown.response is None and shown.comparison is None
    assert shown.fetch() == HYBRID


def test_the_response_is_the_lists_fused_with_the_settings() -> None:
    lists = CachedLists.of("some words", candidates(), HYBRID)
    shown = Shown(HYBRID).with_lists(lists)
    assert not shown.needs_search and shown.raw == "some words" and shown.error is None
    response, fused = lists.fuse(HYBRID)
    assert shown.response == response and shown.candidates == fused
    assert shown.query == lists.candidates.query
    lexical = shown.with_options(SearchOptions(mode="fts", limit=10))  # re-fused, no search
    assert not lexical.needs_search and lexical.response is not None
    assert {h.source for h in lexical.response.hits} == {"fts"}


def test_a_baseline_is_compared_from_the_same_lists_and_fetched_with_them() -> None:
    lists = CachedLists.of("some words", candidates(), HYBRID)
    baseline = SearchOptions(mode="fts", limit=10)
    shown = Shown(HYBRID, baseline).with_lists(lists)
    base_response, base_lists = lists.fuse(baseline)
    assert shown.baseline_shown == (base_response, base_lists)
    response, fused = lists.fuse(HYBRID)
    expected = compare_responses(
        base_response, response, candidates_a=base_lists, candidates_b=fused
    )
    assert shown.comparison == expected
    assert shown.with_baseline(None).comparison is None
    deeper = SearchOptions(mode="fts", depth=MIN_FETCH_DEPTH + 50)
    assert Shown(SearchOptions(mode="fts"), deeper).fetch().depth == MIN_FETCH_DEPTH + 50


def test_settings_the_lists_cannot_answer_need_a_search_and_show_nothing() -> None:
    lists = CachedLists.of("some words", candidates(), HYBRID)
    deeper = SearchOptions(depth=MIN_FETCH_DEPTH + 1)
    assert Shown(deeper).with_lists(lists).needs_search
    assert Shown(deeper).with_lists(lists).response is None
    pinned_deeper = Shown(HYBRID, deeper).with_lists(lists)
    assert pinned_deeper.needs_search and pinned_deeper.response is not None  # shown meanwhile
    failed = Shown(HYBRID).with_lists(lists).failed("bad (", "unbalanced")
    assert failed.lists is None and failed.response is None and failed.error == "unbalanced"
    assert failed.cleared().raw is None


def test_the_snippets_still_to_make_are_those_of_the_lexical_hits_shown() -> None:
    """Lists fetched without snippets: only the lexical hits the settings (and the baseline)
    show want one; once made, they are in the lists and nothing more is wanted."""
    found = candidates()
    found.lexical = [(path, score, "") for path, score, _ in found.lexical]
    found.unsnipped = {path: (i, "words") for i, (path, _, _) in enumerate(found.lexical)}
    lists = CachedLists.of("some words", found, HYBRID)
    two = SearchOptions(mode="fts", limit=2)
    shown = Shown(two).with_lists(lists)
    first_two = [path for path, _, _ in found.lexical[:2]]
    assert shown.unsnipped() == {p: found.unsnipped[p] for p in first_two}
    semantic = Shown(SearchOptions(mode="semantic", limit=10)).with_lists(lists)
    assert semantic.unsnipped() == {}  # its snippets come from the vector list's chunks
    made = shown.with_snippets({p: f"made {p}" for p in first_two})
    assert made.unsnipped() == {}
    assert made.response is not None
    assert [h.snippet for h in made.response.hits] == [f"made {p}" for p in first_two]
    assert made.lists is not None and len(made.lists.candidates.unsnipped) == len(found.lexical) - 2
    pinned = Shown(two, SearchOptions(mode="fts", limit=3)).with_lists(lists)
    third = found.lexical[2][0]
    assert set(pinned.unsnipped()) == {*first_two, third}  # the baseline's rows show too


def test_settling_reads_the_snippets_shown_and_the_sort_in_one_go(
    write: Callable[[str, str | bytes], Path],
    vault: Path,
    open_db: Callable[[Path], IndexDB],
) -> None:
    for i in range(30):
        write(f"n{i:02}.md", f"# {chr(ord('z') - i % 26)} note {i}\n\n{'filler ' * i}cache\n")
    db = open_db(vault)
    sync_vault(db)
    searcher = Searcher(db, EmbedderProvider.disabled())
    options = SearchOptions(mode="fts", limit=10, sort="title")
    fetched = searcher.candidates("cache", fetch_options(options), snippets=False)
    shown = Shown(options).with_lists(CachedLists.of("cache", fetched, options))
    assert not shown.settled and shown.hit_order is None and len(shown.unsnipped()) == 10

    settled = shown.settle(db.conn)
    assert settled.settled and settled.settle(db.conn) is settled  # nothing left to read
    assert settled.hit_order == [h.path for h in searcher.search("cache", options).hits]
    every = searcher.candidates("cache", fetch_options(options))  # every snippet made
    fresh = Shown(options).with_lists(CachedLists.of("cache", every, options))
    assert settled.response is not None and fresh.response is not None
    assert settled.response.hits == fresh.response.hits  # as a fusion with them would give
    assert all(hit.snippet for hit in settled.response.hits)
    assert len(settled.lists.candidates.unsnipped) == 30 - 10  # type: ignore[union-attr]
