"""What ``status`` reads from an index: the integrity checks tell damage from a healthy index."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from explorer.embed.base import FakeEmbedder
from explorer.index.db import IndexDB, index_path
from explorer.index.embedding import embed_pending
from explorer.index.migrations import LATEST_VERSION
from explorer.index.status import language_line, read_status, vault_languages
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


GERMAN = "# Notiz {i}\n\nDas ist eine Notiz, die ich über den Dunkelmodus geschrieben habe.\n"
ENGLISH = "# Note {i}\n\nThis is a note that I wrote about the dark mode and its colours.\n"


def _languages(db: IndexDB) -> dict[str, str]:
    return {str(p): str(lang) for p, lang in db.conn.execute("SELECT path, language FROM notes")}


def test_each_note_s_language_is_stored_and_reported(
    vault: Path, write: Write, data_dir: Path
) -> None:
    for i in range(3):
        write(f"de-{i}.md", GERMAN.format(i=i))
    write("en.md", ENGLISH.format(i=0))
    write("code.md", "# Code\n\n`kubectl get pods`\n")
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        assert _languages(db) == {
            "de-0.md": "de",
            "de-1.md": "de",
            "de-2.md": "de",
            "en.md": "en",
            "code.md": "",
        }
        report = read_status(db, "all-MiniLM-L6-v2", check_fts=False)
        assert report.languages == {"de": 3, "": 1, "en": 1}
        assert report.to_json()["languages"] == {"de": 3, "": 1, "en": 1}
        assert vault_languages(db.conn) == ("de", "en")
        write("en.md", GERMAN.format(i=9))  # an edited note is detected again
        sync_vault(db)
        assert _languages(db)["en.md"] == "de"
        assert vault_languages(db.conn) == ("de",)
    finally:
        db.close()


def test_a_vault_mostly_in_another_language_gets_the_status_line() -> None:
    counts = {"de": 72, "en": 20, "": 8, "fr": 8}
    line = language_line(counts, "all-MiniLM-L6-v2")
    assert line == (
        "72 % German, 20 % English, 8 % French; "
        "all-MiniLM-L6-v2 reads English: meaning search is weak here"
    )
    assert language_line({"en": 90, "de": 10}, "all-MiniLM-L6-v2") == "90 % English, 10 % German"
    assert language_line({"de": 9}, "some/unknown-model") == "100 % German"
    assert language_line({"": 5}, "all-MiniLM-L6-v2") is None


def test_an_index_of_schema_3_learns_its_notes_languages_at_the_next_sync(
    vault: Path, write: Write, data_dir: Path
) -> None:
    write("de.md", GERMAN.format(i=0))
    path = index_path(vault.resolve(), data_dir)
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
    finally:
        db.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        "DROP INDEX notes_language; ALTER TABLE notes DROP COLUMN language;PRAGMA user_version = 3;"
    )
    conn.close()
    db = IndexDB.open(vault, data_dir)
    try:
        assert _languages(db) == {"de.md": ""}
        sync_vault(db)
        assert _languages(db) == {"de.md": "de"}
    finally:
        db.close()


def test_vectors_and_pending_count_the_same_thing_as_the_embedding_progress(
    vault: Path, write: Write, data_dir: Path
) -> None:
    """Two notes with one same text have two chunks and one vector: the status bar's vectors
    ended at 3,969 (chunks) where the progress said "of 3,961" (texts to embed)."""
    write("a/Setup.md", "# Setup\n\nInstall the package.\n")
    write("b/Setup.md", "# Setup\n\nInstall the package.\n")
    write("other.md", "# Other\n\nsomething else\n")
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        embedder = FakeEmbedder()
        before = read_status(db, embedder.name, check_fts=False)
        assert before.chunks == 3 and before.pending_embeddings == 2 and before.vectors == 0
        report = embed_pending(db, embedder)
        after = read_status(db, embedder.name, check_fts=False)
        assert report.chunks == before.pending_embeddings == after.vectors == 2
        assert after.pending_embeddings == 0
    finally:
        db.close()
