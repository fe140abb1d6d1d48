"""Stop words: never enough, on their own, to put a note in the lexical list (issue 10, item 2).

The any-word pass matches the query's content words only; the phrase and all-words passes keep
every word; snippets mark content words only.  Real SQLite, the real model for hybrid.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.lists.lexical import lexical_list
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import Term, parse_query
from explorer.search.query.stopwords import ENGLISH, is_stopword
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]

QUESTION = "why were the styles stale after deploy?"
#: Notes that share only stop words with QUESTION, short and dense in them, so that bm25 over
#: every word ranks them above the note that has the one distinctive word.
DECOYS = {
    f"meetings/minutes-{i}.md": (
        f"# Minutes {i}\n\nWhy were the numbers late after the review? Why were we there after "
        "all? The why and the after were the whole meeting.\n"
    )
    for i in range(3)
}
#: The note the question is about: it has ``styles`` (once, in a long body), not ``stale``.
TARGET = "ops/cdn.md"
TARGET_TEXT = (
    "# CDN purge\n\n"
    + "Edge cache headers, object invalidation and origin shielding for ledger web. " * 12
    + "Browsers kept last week's styles because app.css was never purged.\n"
)
#: Words of no kind in common with the question, so that the stop words are rare enough in the
#: vault to carry weight in bm25 (as ``why`` and ``after`` do in a real vault).
NEUTRAL = {
    f"recipes/dish-{i}.md": f"# Dish {i}\n\nboil water, add salt, simmer lentils {i} minutes\n"
    for i in range(8)
}


@pytest.fixture
def noisy(write: Write, vault: Path) -> Path:
    for path, text in {**DECOYS, **NEUTRAL, TARGET: TARGET_TEXT}.items():
        write(path, text)
    return vault


def _lexical(db: IndexDB, raw: str, depth: int = 50) -> list[str]:
    return [h.path for h in lexical_list(db.conn, parse_query(raw), depth)]


def test_the_list_is_the_snowball_english_list_as_words() -> None:
    assert len(ENGLISH) == 174
    assert {"why", "were", "the", "after", "my", "do", "what's", "don't"} <= ENGLISH
    # Content words that longer lists drop stay searchable.
    assert not {"show", "find", "computer", "system", "move", "run", "man", "will"} & ENGLISH


@pytest.mark.parametrize(
    ("word", "stop"),
    [
        ("The", True),
        ("why?", True),
        ("(after", True),
        ("WHAT\u2019S", True),  # a typographic apostrophe
        ("deploy?", False),
        ("styles", False),
        ("yesterday's", False),
        ("d", False),  # a flag, ``ls -d``
        ("東京", False),
    ],
)
def test_a_word_is_a_stop_word_as_typed(word: str, stop: bool) -> None:
    assert is_stopword(word) is stop


def test_phrases_and_prefixes_are_never_stop_words() -> None:
    assert not Term("the who", phrase=True).is_stopword
    assert not Term("the", prefix=True).is_stopword
    assert Term("the").is_stopword


def test_the_any_word_pass_leaves_stop_words_out_and_the_all_words_pass_keeps_them() -> None:
    query = parse_query(QUESTION)
    assert query.fts_any() == '"styles" OR "stale" OR "deploy?"'
    assert query.fts_all() == (
        '"why" AND "were" AND "the" AND "styles" AND "stale" AND "after" AND "deploy?"'
    )
    assert query.fts_terms() == '"styles" OR "stale" OR "deploy?"'
    assert parse_query("the styles -old").fts_any() == '("styles") NOT ("old")'


def test_a_query_of_stop_words_only_keeps_them_all() -> None:
    query = parse_query("who are they")
    assert [t.text for t in query.content_terms] == ["who", "are", "they"]
    assert query.fts_any() == '"who" OR "are" OR "they"'


def test_a_stopword_only_match_never_enters_the_lexical_list(
    noisy: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    db = open_db(noisy)
    sync_vault(db)
    paths = _lexical(db, QUESTION)
    assert paths == [TARGET]


def test_a_distinctive_word_outranks_notes_that_share_only_stop_words_in_fts(
    noisy: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    searcher = build_index(open_db(noisy), None)
    hits = searcher.search(QUESTION, SearchOptions(mode="fts")).hits
    assert hits[0].path == TARGET
    assert not {h.path for h in hits} & set(DECOYS)


@pytest.mark.model
def test_a_distinctive_word_outranks_notes_that_share_only_stop_words_in_hybrid(
    noisy: Path, open_db: Callable[[Path], IndexDB], real_provider: EmbedderProvider
) -> None:
    searcher = build_index(open_db(noisy), real_provider)
    hits = searcher.search(QUESTION, SearchOptions(mode="hybrid", limit=20)).hits
    paths = [h.path for h in hits]
    assert paths[0] == TARGET
    for hit in hits:
        if hit.path in DECOYS:  # found by meaning at most, never by their stop words
            assert hit.fts_rank is None and hit.source == "vector"


def test_snippets_mark_content_words_only(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    # All seven words, not as a phrase: the all-words pass finds it and marks three of them.
    write(
        "ops/all.md", "# Postmortem\n\nAfter the deploy, why the styles were stale nobody knew.\n"
    )
    write("ops/some.md", "# Styles\n\nThe styles were fine after all.\n")
    db = open_db(vault)
    sync_vault(db)
    hits = {h.path: h.snippet for h in lexical_list(db.conn, parse_query(QUESTION), 10)}
    assert set(hits) == {"ops/all.md", "ops/some.md"}
    assert hits["ops/all.md"].endswith(
        "After the <mark>deploy</mark>, why the <mark>styles</mark> were <mark>stale</mark> "
        "nobody knew. "
    )
    assert hits["ops/some.md"].endswith("The <mark>styles</mark> were fine after all. ")


def test_phrases_with_stop_words_still_match(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("music/band.md", "# Bands\n\nThe Who played Tommy at Woodstock.\n")
    write("music/quiz.md", "# Quiz\n\nWho wrote it? Nobody knows the answer.\n")
    write("books/hamlet.md", "# Hamlet\n\nTo be, or not to be, that is the question.\n")
    write("books/notes.md", "# Notes\n\nNot sure what to read next; it has to be short.\n")
    write("books/other.md", "# Other\n\nSomething to read on the train.\n")
    db = open_db(vault)
    sync_vault(db)
    assert _lexical(db, '"the who"') == ["music/band.md"]
    assert _lexical(db, "the who")[0] == "music/band.md"
    found = lexical_list(db.conn, parse_query("to be or not to be"), 10)
    assert found[0].path == "books/hamlet.md"
    assert "<mark>To be, or not to be</mark>" in found[0].snippet
    # Stop words only, in no note together: the any-word pass still finds the notes with some.
    assert set(_lexical(db, "who are they")) == {"music/band.md", "music/quiz.md"}
