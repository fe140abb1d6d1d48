"""What ``status`` reads from an index: the integrity checks tell damage from a healthy index."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from explorer.embed.base import FakeEmbedder
from explorer.index.db import IndexDB, index_path
from explorer.index.migrations import LATEST_VERSION
from explorer.index.status import read_status
from explorer.index.sync import sync_vault

Write = Callable[[str, str], Path]

ALIASED = "---\naliases: [Cache purge, CDN]\ntags: [ops]\n---\n# Purging\n\nPurge the CDN.\n"


def _aliases(db: IndexDB) -> set[tuple[str, str]]:
    rows = db.conn.execute(
        "SELECT n.path, a.alias FROM note_aliases a JOIN notes n ON n.id = a.note_id"
    )
    return {(str(p), str(a)) for p, a in rows}


def test_a_vault_with_frontmatter_aliases_reports_a_sound_index(
    vault: Path, write: Write, data_dir: Path
) -> None:
    """SQLite 3.40's integrity check misread the aliases table of schema 2 (its key skipped a
    column) and ``status`` told every such index to be rebuilt."""
    write("purge.md", ALIASED)
    write("other.md", "# Other\n\nno aliases\n")
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        assert _aliases(db) == {("purge.md", "Cache purge"), ("purge.md", "CDN")}
        report = read_status(db, FakeEmbedder().name)
        assert report.integrity == "ok" and report.fts_integrity == "ok"
    finally:
        db.close()


def test_an_index_of_schema_2_keeps_its_aliases_and_reads_sound_after_the_upgrade(
    vault: Path, write: Write, data_dir: Path
) -> None:
    write("purge.md", ALIASED)
    path = index_path(vault.resolve(), data_dir)
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
    finally:
        db.close()
    # Put the file back at schema 2 with its rows, as an index written by the last version.
    conn = sqlite3.connect(path, isolation_level=None)
    rows = conn.execute("SELECT note_id, key, alias FROM note_aliases").fetchall()
    conn.executescript(
        "DROP TABLE note_aliases;"
        "CREATE TABLE note_aliases (note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE "
        "CASCADE, alias TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (note_id, key)) "
        "WITHOUT ROWID; CREATE INDEX note_aliases_key ON note_aliases(key);"
        "DROP INDEX notes_language; ALTER TABLE notes DROP COLUMN language;"
        "PRAGMA user_version = 2;"
    )
    conn.executemany("INSERT INTO note_aliases(note_id, key, alias) VALUES (?, ?, ?)", rows)
    conn.close()
    assert len(rows) == 2
    db = IndexDB.open(vault, data_dir)
    try:
        assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        assert _aliases(db) == {("purge.md", "Cache purge"), ("purge.md", "CDN")}
        assert read_status(db, FakeEmbedder().name).integrity == "ok"
    finally:
        db.close()
