"""``[name:value]`` property filters: parsed, applied to both lists before fusion, explained."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.explain.explain import explain
from explorer.search.explain.explain_text import explanation_lines
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from explorer.search.query.property_filter import date_period, parse_property_filter
from explorer.search.query.query import parse_query
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]

NOTES = {
    "open.md": "---\nStatus: open\nrating: 4\ndue: 2024-03-14\ntags: [book, read]\n---\n"
    "# Garden plan\n\nplant tomatoes in the garden\n",
    "progress.md": "---\nstatus: In Progress\nrating: 2.5\ndue: '2025-06-01T10:30'\n"
    "aliases: [Veg patch]\n---\n# Garden shed\n\nfix the garden shed roof\n",
    "done.md": "---\nstatus: done\nrating: 5\ndone: true\n---\n# Garden fence\n\n"
    "paint the garden fence\n",
    "plain.md": "# Garden notes\n\nthe garden in spring\n",
}
MODES = ("fts", "semantic", "hybrid")
#: Each filter form, and the notes it keeps.
CASES = [
    ("[status:open]", {"open.md"}),
    ("[STATUS:OPEN]", {"open.md"}),
    ('[status:"in progress"]', {"progress.md"}),
    ("[due]", {"open.md", "progress.md"}),
    ("-[due]", {"done.md", "plain.md"}),
    ("[rating:>3]", {"open.md", "done.md"}),
    ("[rating:>=4]", {"open.md", "done.md"}),
    ("[rating:<4]", {"progress.md"}),
    ("[rating:<=2.5]", {"progress.md"}),
    ("[rating:4]", {"open.md"}),
    ("[due:<2025-01-01]", {"open.md"}),
    ("[due:>2024]", {"progress.md"}),
    ("[due:2024-03]", {"open.md"}),
    ("[due:2025-06-01]", {"progress.md"}),
    ("[tags:book]", {"open.md"}),
    ('[aliases:"veg patch"]', {"progress.md"}),
    ("[done:true]", {"done.md"}),
    ("-[status:done]", {"open.md", "progress.md", "plain.md"}),
    ("[status:open] [rating:>3]", {"open.md"}),
]


@pytest.fixture
def garden(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> Searcher:
    for rel, text in NOTES.items():
        write(rel, text)
    return build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))


@pytest.mark.parametrize(("filters", "kept"), CASES)
@pytest.mark.parametrize("mode", MODES)
def test_each_filter_form_with_words_in_every_mode(
    garden: Searcher, filters: str, kept: set[str], mode: str
) -> None:
    hits = garden.search(f"garden {filters}", SearchOptions(mode=mode, min_sim=-1.0)).hits
    assert {h.path for h in hits} == kept


@pytest.mark.parametrize(("filters", "kept"), CASES)
def test_each_filter_form_without_words_lists_the_notes(
    garden: Searcher, filters: str, kept: set[str]
) -> None:
    response = garden.search(filters)
    assert response.listing
    assert {h.path for h in response.hits} == kept


@pytest.mark.parametrize(
    ("token", "why"),
    [
        ("[:open]", "no property name"),
        ("[rating:>]", "no value after >"),
        ("[rating:>abc]", "> compares a number or a date"),
        ('[status:"open" x]', "a quoted value is not closed"),
    ],
)
def test_a_malformed_filter_is_searched_as_text_with_a_note(token: str, why: str) -> None:
    query = parse_query(f"garden {token}")
    assert query.properties == []
    assert len(query.notes) == 1 and why in query.notes[0] and "searched as text" in query.notes[0]
    assert [t.text for t in query.terms][:1] == ["garden"] and len(query.terms) == 2


def test_a_malformed_filter_never_fails_a_search(garden: Searcher) -> None:
    for mode in MODES:
        garden.search("garden [rating:>abc] [:x] [", SearchOptions(mode=mode))


def test_dates_compare_as_the_period_they_name() -> None:
    march = date_period("2024-03")
    assert march is not None
    assert march[1] - march[0] == 31 * 86400
    year = date_period("2024")
    assert year is not None and year[1] - year[0] == 366 * 86400
    assert date_period("2024-02-30") is None
    assert parse_property_filter("-[Due:<=2024-06]").key == "due"


def test_explain_names_the_property_filter_that_removed_a_note(garden: Searcher) -> None:
    e = explain(garden, "garden -[status:done] [status:open]", "progress.md", SearchOptions())
    assert "filtered" in e.reasons
    lines = explanation_lines(e)
    assert "not listed: `[status:open]` excludes it, its status is In Progress" in lines
    assert "filter `-[status:done]`: the note passes it (its status is In Progress)" in lines
    e = explain(garden, "garden [due]", "done.md", SearchOptions())
    assert "not listed: `[due]` excludes it, it has no due" in explanation_lines(e)


@pytest.mark.parametrize("mode", ("semantic", "hybrid"))
def test_filters_with_the_real_model(
    vault: Path,
    write: Write,
    open_db: Callable[[Path], IndexDB],
    real_provider: EmbedderProvider,
    mode: str,
) -> None:
    for rel, text in NOTES.items():
        write(rel, text)
    searcher = build_index(open_db(vault), real_provider)
    for filters, kept in CASES:
        options = SearchOptions(mode=mode, min_sim=-1.0)
        assert {h.path for h in searcher.search(f"garden {filters}", options).hits} == kept
