"""A note's own name typed as the query is found first (issue 44, item 3): its title (the file
name when the content gives none) or an alias, exactly or nearly, over a real index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.explain.explain import explain
from explorer.search.fusion.fusion import ranked
from explorer.search.fusion.hybrid import Searcher
from explorer.search.lists.titles import closeness, words
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]

#: Notes that say "refund" and "policy" far more often than the note named by them.
LOUDER = {
    "billing/faq.md": "# Refund policy questions and answers\n\n"
    + "Our refund policy: a refund, per the policy. " * 12,
    "billing/terms.md": "# Terms\n\n" + "The refund policy and the privacy policy. " * 10,
    "support/macros.md": "# Support macros\n\n" + "Quote the refund policy. Refund! " * 8,
}


@pytest.fixture
def searcher(write: Write, vault: Path, open_db: Callable[[Path], IndexDB]) -> Searcher:
    for rel, text in LOUDER.items():
        write(rel, text)
    # An Obsidian note: no H1, no title: its title is its file name.
    write("Refund policy.md", "Customers get their money back within 30 days.\n")
    write("Money back.md", "---\naliases: [Return rules, Rückgabe]\n---\nWhat comes back, when.\n")
    write("kitchen/Crème brûlée.md", "Custard, caramelised sugar on top.\n")
    write("Café — Opening Hours!.md", "Monday to Friday, 8 to 6.\n")
    write("old/Old policy.md", "---\nstatus: stale\n---\nThe refund policy before 2020.\n")
    return build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))


def first(searcher: Searcher, query: str, mode: str, n: int = 1) -> list[str]:
    return [h.path for h in searcher.search(query, SearchOptions(mode=mode)).hits[:n]]


def test_words_ignore_case_punctuation_and_accents() -> None:
    assert words("Café — Opening Hours!") == ("cafe", "opening", "hours")
    assert words("Réfund-Policy") == ("refund", "policy")
    assert closeness(words("refund policy"), words("Refund policy")) == "exact"


@pytest.mark.parametrize(
    ("typed", "name", "how"),
    [
        ("refund policies", "Refund policy", "near"),  # a plural
        ("refund", "Refund policy", "near"),  # a word missing
        ("our refund policy", "Refund policy", "near"),  # a word extra
        ("refund polciy", "Refund policy", "near"),  # a typo: two letters swapped
        ("refund polcy", "Refund policy", "near"),  # a typo: a letter left out
        ("tab", "tap", None),  # too short to be a typo of each other
        ("refund", "Refund policy for teams", None),  # two words missing
        ("privacy policy", "Refund policy", None),  # another word, not a typo
    ],
)
def test_near_is_one_step_away(typed: str, name: str, how: str | None) -> None:
    assert closeness(words(typed), words(name)) == how


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_title_typed_is_first_though_others_say_its_words_more(
    searcher: Searcher, mode: str
) -> None:
    """Before: the notes that repeat "refund policy" came first; the note named by it after."""
    response = searcher.search("refund policy", SearchOptions(mode=mode))
    top = response.hits[0]
    assert top.path == "Refund policy.md"
    assert top.title_match is not None and top.title_match.closeness == "exact"
    assert response.close_match is True
    assert sum(top.contributions.values()) == pytest.approx(top.fused_score)
    data = response.to_json()["hits"][0]
    assert data["titleMatch"] == "exact" and data["titleMatchName"] == "Refund policy"
    assert all(h["titleMatch"] is None for h in response.to_json()["hits"][1:3])


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("return rules", "Money back.md"),  # an alias
        ("RÜCKGABE", "Money back.md"),  # an alias, in another case
        ("creme brulee", "kitchen/Crème brûlée.md"),  # accents
        ("cafe: opening hours", "Café — Opening Hours!.md"),  # punctuation
    ],
)
def test_an_alias_or_a_title_with_accents_and_punctuation_is_first(
    searcher: Searcher, mode: str, query: str, path: str
) -> None:
    response = searcher.search(query, SearchOptions(mode=mode))
    assert response.hits[0].path == path
    match = response.hits[0].title_match
    assert match is not None and match.closeness == "exact"
    assert match.alias == (path == "Money back.md")


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("query", ["refund policies", "refund polciy", "the refund policy"])
def test_a_near_title_is_in_the_top_three_and_a_close_match(
    searcher: Searcher, mode: str, query: str
) -> None:
    response = searcher.search(query, SearchOptions(mode=mode))
    top = {h.path: h for h in response.hits[:3]}
    assert "Refund policy.md" in top
    match = top["Refund policy.md"].title_match
    assert match is not None and match.closeness == "near"
    assert response.close_match is True


def test_a_stale_note_typed_by_its_title_is_not_demoted(searcher: Searcher) -> None:
    assert first(searcher, "old policy", "hybrid") == ["old/Old policy.md"]
    hits = searcher.search("refund policy before", SearchOptions(mode="fts")).hits
    assert hits[-1].path == "old/Old policy.md"  # not its title: stale, after the others


def test_filters_hold_for_the_title_too(searcher: Searcher) -> None:
    assert "Refund policy.md" not in first(searcher, "refund policy path:billing/", "fts", 20)
    assert "Refund policy.md" not in first(searcher, "refund policy -money", "hybrid", 20)
    # Found by its alias alone: the excluded word and a property filter hold all the same.
    assert first(searcher, "return rules", "fts") == ["Money back.md"]
    assert "Money back.md" not in first(searcher, "return rules -comes", "fts", 20)
    assert "Money back.md" not in first(searcher, "return rules [status:stale]", "hybrid", 20)


def test_semantic_mode_and_the_rank_methods_rank_as_documented(searcher: Searcher) -> None:
    """The title evidence is the calibrated fusion's: RRF and convex fuse the two lists as
    before, the hit still says its title matches, and a close match is still one."""
    for fusion in ("rrf", "convex"):
        response = searcher.search("refund policy", SearchOptions(mode="hybrid", fusion=fusion))
        assert "title" not in response.hits[0].contributions
        named = [h for h in response.hits if h.path == "Refund policy.md"]
        assert named and named[0].title_match is not None
        assert response.close_match is True
    semantic = searcher.search("refund policy", SearchOptions(mode="semantic"))
    assert all(h.title_match is None for h in semantic.hits)


def test_explain_names_the_title_evidence(searcher: Searcher) -> None:
    said = explain(searcher, "refund policy", "Refund policy.md", SearchOptions(mode="hybrid"))
    assert said.fused.rank == 1
    assert "title-exact" in said.reasons
    text = said.format()
    assert "the title matches the query: Refund policy" in text
    data = said.to_json()["evidence"]
    assert data["title"] == 1.0 and data["title_match"] == "exact"
    alias = explain(searcher, "return rule", "Money back.md", SearchOptions(mode="fts"))
    assert "an alias nearly matches the query: Return rules" in alias.format()


def test_a_long_note_is_found_by_its_title_among_many_shorter_of_that_word(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """tldr's "npm" was lost among 70 "npm …" pages: bm25 weighs the whole note's length, so
    the short pages came first and the looked-up notes were cut before it."""
    write("npm.md", "# npm\n\n" + "Manage the packages of a project with npm install. " * 80)
    for i in range(80):
        write(f"npm-{i}.md", f"# npm sub{i}\n\nOne npm command.\n")
    searcher = build_index(open_db(vault), None)
    hits = searcher.search("npm", SearchOptions(mode="fts")).hits
    assert hits[0].path == "npm.md"
    assert hits[0].title_match is not None and hits[0].title_match.closeness == "exact"


def test_a_note_found_by_its_name_alone_says_so(searcher: Searcher) -> None:
    """The title evidence is no list that finds: a note the lexical list found and whose
    title matches is found by the lexical list only, not by "both"."""
    hits = searcher.search("refund policy", SearchOptions(mode="fts")).hits
    assert hits[0].path == "Refund policy.md" and hits[0].source == "fts"
    alias = searcher.search("return rules", SearchOptions(mode="fts")).hits
    assert alias[0].path == "Money back.md" and alias[0].source == "title"


def test_a_hybrid_searchs_lists_refused_as_meaning_alone_keep_the_vector_order(
    searcher: Searcher,
) -> None:
    """The window re-fuses the lists it holds when the mode changes: as `semantic` they are the
    vector list alone, whatever names matched (before: the matching name was put first)."""
    query = "refund policy"
    found = searcher.candidates(query, SearchOptions(mode="hybrid"))
    assert found.titles  # the hybrid search looked the names up
    semantic = SearchOptions(mode="semantic", min_rel=0.0)
    vector_order = [v.path for v in found.vector]
    assert vector_order[0] != "Refund policy.md"  # the case the test is about
    assert ranked(found, semantic)[:3] == vector_order[:3]
