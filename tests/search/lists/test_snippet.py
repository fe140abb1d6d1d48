"""Snippets from a bounded window of the body, marked by FTS5's own tokenizer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.lists.lexical import lexical_list
from explorer.search.lists.snippet import (
    CUT_AFTER,
    CUT_BEFORE,
    SCAN_BYTES,
    SNIPPET_TOKENS,
    WINDOW_BYTES,
    Snippets,
    mark_snippet,
)
from explorer.search.query.query import Query, parse_query
from tests.conftest import SAMPLE_VAULT

Write = Callable[[str, str | bytes], Path]


def _snippet(db: IndexDB, path: str, raw: str) -> str:
    (note_id,) = db.conn.execute("SELECT id FROM notes WHERE path = ?", (path,)).fetchone()
    marks = parse_query(raw).fts_terms()
    assert marks is not None
    with Snippets(db.conn) as snippets:
        return snippets.snippet(note_id, marks)


@pytest.fixture
def index(write: Write, vault: Path, open_db: Callable[[Path], IndexDB]) -> IndexDB:
    write("dessert.md", "# Dessert\n\nUne Crème brûlée, deployed and redeployed; deploy it.\n")
    write("html.md", "# Html\n\n<b>bold</b> & <script>deploy()</script> \x02forged\x03 mark\n")
    write("cjk.md", "# 東京\n\n東京タワーに行きました\n")
    filler = "lorem ipsum dolor sit amet " * (60_000 // 27)
    write("late.md", f"---\ntitle: Zanzibar\n---\n{filler}zebra crossing\n")
    write("deep.md", f"# Deep\n\n{filler * 4}zebra crossing\n")
    write("dense.md", "# Dense\n\n" + "deploy " * 300_000)
    db = open_db(vault)
    sync_vault(db)
    return db


def test_diacritics_and_stems_are_marked_as_fts5_matches_them(index: IndexDB) -> None:
    snippet = _snippet(index, "dessert.md", "creme deploying")
    assert "<mark>Crème</mark>" in snippet
    assert "<mark>deployed</mark>" in snippet and "<mark>deploy</mark>" in snippet
    assert "redeployed" in snippet and "<mark>redeployed</mark>" not in snippet


def test_text_is_escaped_and_control_markers_cannot_forge_marks(index: IndexDB) -> None:
    snippet = _snippet(index, "html.md", "deploy")
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;<mark>deploy</mark>()" in snippet
    assert snippet.count("<mark>") == snippet.count("</mark>") == 1


def test_cjk_is_marked_and_unspaced(index: IndexDB) -> None:
    assert "<mark>東京</mark>タワー" in _snippet(index, "cjk.md", "東京")


def test_a_match_past_the_first_window_is_found_in_a_later_one(index: IndexDB) -> None:
    snippet = _snippet(index, "late.md", "zebra")
    assert snippet.startswith("…") and "<mark>zebra</mark> crossing" in snippet


def test_a_match_past_the_scan_limit_gives_the_beginning_unmarked(index: IndexDB) -> None:
    (note_id,) = index.conn.execute("SELECT id FROM notes WHERE path = 'deep.md'").fetchone()
    with Snippets(index.conn) as snippets:
        snippet = snippets.snippet(note_id, '"zebra"')
        assert snippets.bytes_read <= SCAN_BYTES
    assert snippet.startswith("# Deep") and snippet.endswith("…")
    assert "<mark>" not in snippet


def test_a_dense_window_is_cut_to_a_bounded_number_of_matches(index: IndexDB) -> None:
    (note_id,) = index.conn.execute("SELECT id FROM notes WHERE path = 'dense.md'").fetchone()
    with Snippets(index.conn) as snippets:
        window = snippets.window(note_id, '"deploy"')
        assert window is not None and window.matched
        assert len(window.text) <= CUT_BEFORE + CUT_AFTER + len("deploy")
        snippet = snippets.snippet(note_id, '"deploy"')
        assert snippets.bytes_read <= 2 * WINDOW_BYTES
    assert snippet.startswith("# Dense") and snippet.endswith("…")
    assert snippet.count("<mark>deploy</mark>") > 10


def test_a_title_only_match_gives_the_beginning_of_the_body(index: IndexDB) -> None:
    words = ("lorem ipsum dolor sit amet " * 5).split()[:SNIPPET_TOKENS]
    assert _snippet(index, "late.md", "zanzibar") == " ".join(words) + "…"


def test_a_vanished_note_gives_an_empty_snippet(index: IndexDB) -> None:
    with Snippets(index.conn) as snippets:
        assert snippets.snippet(10_000, '"deploy"') == ""
        assert snippets.window(10_000, '"deploy"') is None


def _found_by(db: IndexDB, query: Query, note_id: int) -> str | None:
    """The expression of the lexical pass that found the note (what old snippets marked)."""
    phrase = query.fts_phrase()
    if (
        phrase
        and db.conn.execute(
            "SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? AND rowid = ?", (phrase, note_id)
        ).fetchone()
    ):
        return phrase
    return query.fts_any() or query.fts_all()


def test_snippets_of_ordinary_notes_are_fts5_whole_body_snippets(
    tmp_path: Path,
) -> None:
    """Where a body fits the window, the snippet is exactly what ``snippet()`` made before."""
    db = IndexDB.open(SAMPLE_VAULT, tmp_path / "sample-data")
    try:
        sync_vault(db)
        compared = 0
        for raw in ("deploy", "cache purge", "rollback deploy", "the", "creme", "db*", "ops"):
            query = parse_query(raw)
            for hit in lexical_list(db.conn, query, 50):
                expression = _found_by(db, query, hit.note_id)
                (raw_snippet,) = db.conn.execute(
                    "SELECT snippet(notes_fts, 2, char(2), char(3), '…', ?) FROM notes_fts "
                    "WHERE notes_fts MATCH ? AND rowid = ?",
                    (SNIPPET_TOKENS, expression, hit.note_id),
                ).fetchone()
                with Snippets(db.conn) as snippets:
                    window = snippets.window(hit.note_id, query.fts_terms() or "")
                assert window is not None
                if window.at_start and window.at_end:
                    assert hit.snippet == mark_snippet(raw_snippet), (raw, hit.path)
                    compared += 1
        assert compared > 20
    finally:
        db.close()


def test_snippets_of_several_notes_at_once_and_nested_uses(index: IndexDB) -> None:
    ids = dict(index.conn.execute("SELECT path, id FROM notes"))
    wanted = [(ids["dessert.md"], '"creme"'), (ids["late.md"], '"zebra"'), (10_000, '"x"')]
    with Snippets(index.conn) as outer:
        with Snippets(index.conn) as inner:
            assert inner.snippet(ids["cjk.md"], '"東 京"').startswith("# <mark>東京</mark>")
        first = outer.snippets(wanted)
    with Snippets(index.conn) as again:
        assert again.snippets(wanted) == first
    assert "<mark>Crème</mark>" in first[0]
    assert "<mark>zebra</mark>" in first[1]
    assert first[2] == ""
