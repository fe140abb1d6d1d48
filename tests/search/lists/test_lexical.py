"""The lexical list on a very large note: found, its words marked, its body never read whole.

FTS5's ``snippet()`` reads the whole body and scores every match against every other one, so a
search took time growing with the square of the note's size (issue 8, item 4).  The proof here
is structural, not timed: no SQL statement of a search loads a note's body (FTS5's own content
lookup included), and the snippet is made from the same number of body bytes for a 2 MB note as
for a 20 KB one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.fusion.hybrid import Searcher
from explorer.search.lists.lexical import lexical_list
from explorer.search.lists.snippet import Snippets
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import parse_query
from tests.conftest import build_index

SENTENCE = "The deployment pipeline was deploying the Crème brûlée service to staging today. "


def _note(size: int) -> str:
    return "# Big\n\n" + SENTENCE * (size // len(SENTENCE))


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    """A vault with one ~2 MB note and one ~20 KB note of the same sentence, embedded."""
    root = tmp_path_factory.mktemp("big-vault")
    (root / "big.md").write_text(_note(2_000_000), encoding="utf-8")
    (root / "small.md").write_text(_note(20_000), encoding="utf-8")
    db = IndexDB.open(root, tmp_path_factory.mktemp("big-data"))
    yield build_index(db, EmbedderProvider.of(FakeEmbedder()))
    db.close()


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.slow
def test_a_2mb_note_is_found_with_its_word_marked(big: Searcher, mode: str) -> None:
    response = big.search("deploying", SearchOptions(mode=mode))
    hits = {h.path: h for h in response.hits}
    assert set(hits) == {"big.md", "small.md"}
    for hit in hits.values():
        assert "<mark>deploying</mark>" in hit.snippet
        assert len(hit.snippet) < 1000
    assert hits["big.md"].snippet.endswith("…")


def test_no_statement_of_a_search_loads_a_note_body(big: Searcher) -> None:
    statements: list[str] = []
    big.db.conn.set_trace_callback(statements.append)
    try:
        for raw in ("deploying", "creme staging", '"crème brûlée"', "staging -nothing"):
            for mode in ("fts", "hybrid"):
                assert big.search(raw, SearchOptions(mode=mode)).hits, (raw, mode)
        assert lexical_list(big.db.conn, parse_query("deploying path:big"), 10)
        assert big.search("", SearchOptions(mode="fts")).listing
    finally:
        big.db.conn.set_trace_callback(None)
    assert statements, "the trace saw nothing"
    # FTS5's content lookup for snippet() is "SELECT T.'id', T.'title', T.'tags', T.'body' …".
    assert [s for s in statements if "body" in s] == []


def test_the_snippet_reads_as_much_of_a_2mb_note_as_of_a_20kb_one(big: Searcher) -> None:
    ids = dict(big.db.conn.execute("SELECT path, id FROM notes"))
    marks = parse_query("deploying").fts_terms()
    assert marks is not None
    read = {}
    for path in ("big.md", "small.md"):
        with Snippets(big.db.conn) as snippets:
            assert "<mark>deploying</mark>" in snippets.snippet(ids[path], marks)
            read[path] = snippets.bytes_read
    assert read["big.md"] == read["small.md"] > 0


@pytest.mark.slow
def test_a_word_at_the_end_of_a_2mb_note_is_bounded_too(tmp_path: Path) -> None:
    """Past the scan limit the match is not looked for: the snippet is the body's beginning."""
    root = tmp_path / "deep"
    root.mkdir()
    (root / "deep.md").write_text(_note(2_000_000) + "\nzebra\n", encoding="utf-8")
    db = IndexDB.open(root, tmp_path / "deep-data")
    try:
        build_index(db, None)
        statements: list[str] = []
        db.conn.set_trace_callback(statements.append)
        try:
            (hit,) = lexical_list(db.conn, parse_query("zebra"), 10)
        finally:
            db.conn.set_trace_callback(None)
        assert hit.path == "deep.md"
        assert hit.snippet.startswith("# Big") and "<mark>" not in hit.snippet
        assert [s for s in statements if "body" in s] == []
    finally:
        db.close()


@pytest.mark.parametrize("invisible", ["\u200d", "\u200b", "\u00ad", "\u2060", "\ufeff"])
def test_a_character_no_one_sees_splits_no_word(
    vault: Path, open_db: Callable[[Path], IndexDB], invisible: str
) -> None:
    """A zero-width joiner inside a word of a note (``in\\u200dvoice``) made it the words ``in``
    and ``voice``: "invoice" did not find it; a soft hyphen typed into a query found nothing."""
    (vault / "billing.md").write_text(f"# Billing\n\nSend the in{invisible}voice by Friday.\n")
    (vault / "plain.md").write_text("# Plain\n\nThe invoice template lives here.\n")
    searcher = build_index(open_db(vault), None)
    fts = SearchOptions(mode="fts")
    assert {h.path for h in searcher.search("invoice", fts).hits} == {"billing.md", "plain.md"}
    typed = f"in{invisible}voice"
    assert {h.path for h in searcher.search(typed, fts).hits} == {"billing.md", "plain.md"}
    assert [h.path for h in searcher.search("voice", fts).hits] == []


def test_an_index_made_before_is_mended_when_opened(
    vault: Path, data_dir: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """An index of schema 7 kept ``in\\u200dvoice`` as two words: opening it drops the
    character from the indexed text (migration 8), with no sync."""
    (vault / "billing.md").write_text("# In\u200bvoices\n\nSend the in\u200dvoice by Friday.\n")
    db = open_db(vault)
    build_index(db, None)
    conn = db.conn
    conn.execute(
        "UPDATE notes SET body = ?, title = ?", ("Send the in\u200dvoice", "In\u200bvoices")
    )
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    db.close()
    reopened = open_db(vault)
    title, body = reopened.conn.execute("SELECT title, body FROM notes").fetchone()
    assert (title, body) == ("Invoices", "Send the invoice")
    hits = lexical_list(reopened.conn, parse_query("invoice"), 10)
    assert [h.path for h in hits] == ["billing.md"]
