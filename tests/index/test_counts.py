"""Counting a term's notes once while the index is unchanged, as bm25 counts them."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from explorer.index.counts import TermCounts, fts_row_count
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault

Write = Callable[[str, str | bytes], Path]

COUNT_SQL = "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH"


def test_the_rows_are_those_bm25_counts(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    for n in range(300):  # past 127: a varint of two bytes
        write(f"n{n:03}.md", f"# Note {n}\n\nword{n % 7}\n")
    db = open_db(vault)
    sync_vault(db)
    db.conn.execute("DELETE FROM notes_fts_docsize WHERE id % 2 = 0")  # only the record left
    assert fts_row_count(db.conn) == 300


def counting(conn: sqlite3.Connection) -> list[str]:
    """The counting statements ``conn`` runs from now on."""
    statements: list[str] = []
    conn.set_trace_callback(lambda sql: statements.append(sql) if COUNT_SQL in sql else None)
    return statements


def test_a_term_is_counted_once_while_the_index_is_unchanged(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nthe cache\n")
    write("b.md", "# B\n\nthe queue\n")
    db = open_db(vault)
    sync_vault(db)
    counts = TermCounts()
    statements = counting(db.conn)
    assert counts.current(db.conn)('"the"') == 2
    assert counts.current(db.conn)('"the"') == 2
    assert counts.current(db.conn)('"cache"') == 1
    assert len(statements) == 2
    assert counts.current(db.conn).known('"queue"') is None  # asking what is known never counts


def test_counts_start_afresh_when_this_connection_writes(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nthe cache\n")
    db = open_db(vault)
    sync_vault(db)
    counts = TermCounts()
    assert counts.current(db.conn)('"cache"') == 1
    write("b.md", "# B\n\ncache again\n")
    sync_vault(db)
    assert counts.current(db.conn)('"cache"') == 2
    assert counts.current(db.conn).rows() == 2


def test_counts_start_afresh_when_another_connection_commits(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB], data_dir: Path
) -> None:
    write("a.md", "# A\n\nthe cache\n")
    writer = open_db(vault)
    sync_vault(writer)
    reader = IndexDB.open(vault, data_dir)
    try:
        counts = TermCounts()
        assert counts.current(reader.conn)('"cache"') == 1
        write("b.md", "# B\n\ncache again\n")
        sync_vault(writer)
        assert counts.current(reader.conn)('"cache"') == 2
    finally:
        reader.close()
