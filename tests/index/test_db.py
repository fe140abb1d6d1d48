"""Opening the index: location, WAL, migrations, and rebuilding what is broken."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.index import db as db_module
from explorer.index.db import (
    IndexDB,
    IndexNotReady,
    IndexTooNew,
    IndexUnavailable,
    index_path,
    is_damage,
    is_environment,
)
from explorer.index.lease import WriterLease
from explorer.index.migrations import LATEST_VERSION
from explorer.index.sync import sync_vault
from tests.privileges import unprivileged


def test_index_lives_in_the_data_dir_not_the_vault(vault: Path, data_dir: Path) -> None:
    db = IndexDB.open(vault, data_dir)
    assert db.path == index_path(vault, data_dir)
    assert data_dir in db.path.parents
    assert not any(vault.iterdir())
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    db.close()


def test_env_var_moves_the_data_dir(vault: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VAULT_EXPLORER_DATA", str(tmp_path / "elsewhere"))
    assert (tmp_path / "elsewhere") in index_path(vault).parents


def test_two_vaults_two_databases(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "a" / "notes").mkdir(parents=True)
    (tmp_path / "b" / "notes").mkdir(parents=True)
    assert index_path(tmp_path / "a" / "notes", data_dir) != index_path(
        tmp_path / "b" / "notes", data_dir
    )


def _indexed(vault: Path, data_dir: Path) -> Path:
    (vault / "n.md").write_text("# N\n\nhello\n")
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    db.close()
    return index_path(vault, data_dir)


def test_corrupt_database_is_rebuilt_with_a_notice(vault: Path, data_dir: Path) -> None:
    path = _indexed(vault, data_dir)
    for side in ("-wal", "-shm"):
        Path(str(path) + side).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    db = IndexDB.open(vault, data_dir)
    assert db.notices and "rebuilding" in db.notices[0]
    assert db.conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 0
    sync_vault(db)
    assert db.conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    db.close()


def test_truncated_database_is_rebuilt(vault: Path, data_dir: Path) -> None:
    path = _indexed(vault, data_dir)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    assert db.conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    db.close()


def test_too_new_database_is_rebuilt(vault: Path, data_dir: Path) -> None:
    path = _indexed(vault, data_dir)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 5}")
    conn.close()
    db = IndexDB.open(vault, data_dir)
    assert any("newer" in n for n in db.notices)
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    db.close()


def test_fts_rebuild_repairs_drift(vault: Path, data_dir: Path) -> None:
    _indexed(vault, data_dir)
    db = IndexDB.open(vault, data_dir)
    db.conn.execute(
        "INSERT INTO notes_fts(notes_fts, rowid, title, tags, body) "
        "VALUES ('delete', 1, 'N', '', 'wrong')"
    )
    assert db.fts_integrity() is not None
    db.rebuild_fts()
    assert db.fts_integrity() is None
    db.close()


def test_concurrent_first_open_migrates_once(tmp_path: Path) -> None:
    """Two processes (here threads) opening a new index at once: neither sees corruption."""
    import threading

    for trial in range(10):
        vault = tmp_path / f"v{trial}"
        vault.mkdir()
        notices: list[list[str]] = []

        def open_it(root: Path = vault, trial: int = trial, out: list[list[str]] = notices) -> None:
            db = IndexDB.open(root, tmp_path / f"data{trial}")
            out.append(db.notices)
            db.close()

        threads = [threading.Thread(target=open_it) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert notices == [[], [], []]


# ----------------------------------------------------------------------------- faults


def test_a_busy_writer_does_not_make_a_reader_throw_the_index_away(
    vault: Path, data_dir: Path
) -> None:
    """Opening a current index only reads: it neither waits for a writer nor takes "locked"
    for corruption (it used to wait out the busy timeout, then move the index aside)."""
    path = _indexed(vault, data_dir)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE notes SET title = 'being written'")
    try:
        db = IndexDB.open(vault, data_dir)
        assert db.notices == []
        assert db.conn.execute("SELECT title FROM notes").fetchall() == [("N",)]
        db.close()
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert not Path(f"{path}.broken").exists()
    db = IndexDB.open(vault, data_dir)
    assert db.conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    db.close()


def test_a_busy_database_that_needs_migrating_is_left_alone(
    vault: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only damage moves a database aside: busy is said, and the file stays as it was."""
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 50)
    path = index_path(vault, data_dir)
    path.parent.mkdir(parents=True)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("CREATE TABLE keep (x)")  # user_version 0: the open wants to migrate
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO keep VALUES (1)")
    try:
        with pytest.raises(IndexUnavailable, match="busy"):
            IndexDB.open(vault, data_dir)
    finally:
        writer.execute("COMMIT")
        writer.close()
    assert not Path(f"{path}.broken").exists()
    check = sqlite3.connect(path)
    assert check.execute("SELECT x FROM keep").fetchall() == [(1,)]
    check.close()


def test_only_damage_counts_as_damage() -> None:
    def error(code: int) -> sqlite3.Error:
        exc = sqlite3.OperationalError("x")
        exc.sqlite_errorcode = code
        return exc

    assert is_damage(error(11)) and is_damage(error(26)) and is_damage(error(11 | 256))
    for code in (5, 6, 8, 13, 14, 10, 3 | 256):  # busy, locked, read-only, full, can't open, io
        assert not is_damage(error(code))
        assert is_environment(error(code))


def test_a_full_disk_says_so_and_keeps_the_index(vault: Path, data_dir: Path) -> None:
    """SQLite rolls back by itself on a full disk: the error said "cannot rollback - no
    transaction is active", hiding the cause.  ``max_page_count`` makes the disk "full"."""
    (vault / "small.md").write_text("# Small\n\nhello\n")
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
    db.conn.execute(f"PRAGMA max_page_count = {pages}")
    (vault / "big.md").write_text("# Big\n\n" + "many words in a long note. " * 40_000)
    with pytest.raises(IndexUnavailable, match="full"):
        sync_vault(db)
    assert not db.conn.in_transaction
    db.close()
    db = IndexDB.open(vault, data_dir)
    assert [p for (p,) in db.conn.execute("SELECT path FROM notes")] == ["small.md"]
    db.close()


def test_a_data_dir_that_is_a_file_is_said(vault: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(IndexUnavailable, match="not a folder"):
        IndexDB.open(vault, blocker)


def _open_unprivileged(vault: Path, data: Path) -> subprocess.CompletedProcess[str]:
    script = (
        "import sys; from pathlib import Path; from explorer.index.db import IndexDB\n"
        "IndexDB.open(Path(sys.argv[1]), sys.argv[2]).close()\n"
    )
    return subprocess.run(
        [*unprivileged(), sys.executable, "-c", script, str(vault), str(data)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_read_only_data_dir_never_moves_the_index_aside(vault: Path, tmp_path: Path) -> None:
    data = tmp_path / "ro-data"
    path = _indexed(vault, data)
    before = path.read_bytes()
    folder = path.parent
    folder.chmod(0o555)
    try:
        proc = _open_unprivileged(vault, data)
    finally:
        folder.chmod(0o755)
    assert proc.returncode != 0
    assert "IndexUnavailable" in proc.stderr and "read-only" in proc.stderr, proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == [path.name]
    assert path.read_bytes() == before


def test_a_read_only_data_dir_for_a_new_index_is_said(vault: Path, tmp_path: Path) -> None:
    data = tmp_path / "ro-new"
    data.mkdir()
    data.chmod(0o555)
    try:
        proc = _open_unprivileged(vault, data)
    finally:
        data.chmod(0o755)
    assert proc.returncode != 0
    assert "IndexUnavailable" in proc.stderr and "data folder" in proc.stderr, proc.stderr


def test_integrity_check_finds_damaged_pages(vault: Path, data_dir: Path) -> None:
    """Random bytes 80 % into the file: FTS5's check may pass, SQLite's must not."""
    for i in range(60):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\n" + f"words of note {i}. " * 400)
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    assert db.integrity() is None
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    path = index_path(vault, data_dir)
    data = bytearray(path.read_bytes())
    page = 4096
    at = (len(data) * 8 // 10) // page * page
    data[at : at + page] = random.Random(8).randbytes(page)
    path.write_bytes(bytes(data))
    db = IndexDB.open_existing(vault, data_dir)
    assert db.integrity() is not None
    db.close()


def test_the_reader_never_writes_a_missing_or_old_index(vault: Path, data_dir: Path) -> None:
    """``open_reader`` creates nothing and migrates nothing: the writer does."""
    with pytest.raises(IndexNotReady, match="no index"):
        IndexDB.open_reader(vault, data_dir)
    assert not index_path(vault, data_dir).exists()
    assert not (data_dir / "indexes").exists()  # not even the folder
    db = IndexDB.open(vault, data_dir)
    db.conn.execute(f"PRAGMA user_version = {LATEST_VERSION - 1}")
    db.close()
    with pytest.raises(IndexNotReady, match="not migrated"):
        IndexDB.open_reader(vault, data_dir)
    conn = sqlite3.connect(index_path(vault, data_dir))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION - 1  # left as is
    conn.close()


def test_a_reader_reads_and_cannot_write(
    write: Callable[[str, str], Path], vault: Path, data_dir: Path
) -> None:
    write("a.md", "# A\n\nHello.\n")
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    db.close()
    reader = IndexDB.open_reader(vault, data_dir)
    try:
        assert reader.conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.conn.execute("DELETE FROM notes")
    finally:
        reader.close()


def test_a_newer_index_is_not_read(vault: Path, data_dir: Path) -> None:
    db = IndexDB.open(vault, data_dir)
    db.conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    db.close()
    with pytest.raises(IndexTooNew, match="newer vault-explorer"):
        IndexDB.open_reader(vault, data_dir)


def test_only_the_holder_of_the_lease_opens_the_writer(vault: Path, data_dir: Path) -> None:
    path = index_path(vault, data_dir)
    other = WriterLease.acquire(index_path(vault, data_dir / "elsewhere"), "test")
    try:
        with pytest.raises(ValueError, match="writer lease"):
            IndexDB.open_writer(other, vault, data_dir)
    finally:
        other.release()
    assert not path.exists()
    with WriterLease.acquire(path, "test") as lease:
        db = IndexDB.open_writer(lease, vault, data_dir)
        assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        db.close()


def test_an_index_of_schema_5_keeps_its_change_log_without_the_triggers(
    vault: Path, data_dir: Path
) -> None:
    """Schema 6 drops the per-row triggers that kept ``vector_changes``: an index of schema 5
    keeps its log and numbers, and the next write goes on from them."""

    (vault / "a.md").write_text("# A\n\nalpha words\n")
    conn = _index_at_schema(vault, data_dir, 5)  # the index as schema 5 made it, with a note
    conn.execute(
        "INSERT INTO notes(id, path, title, body, size, mtime_ns, hash, indexed_ns) "
        "VALUES (7, 'old.md', 'Old', 'old words', 9, 1, 'x', 1)"
    )
    conn.execute("INSERT INTO chunks VALUES (7, 0, 0, 9, 'h', 'old words')")  # a trigger logs it
    assert conn.execute("SELECT note_id, seq FROM vector_changes").fetchall() == [(7, 1)]
    conn.close()

    db = IndexDB.open(vault, data_dir)
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    triggers = {
        str(name)
        for (name,) in db.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert not {t for t in triggers if "_vc_" in t}  # the FTS triggers stay, but one:
    assert {"notes_ad", "notes_au"} <= triggers and "notes_ai" not in triggers  # schema 12
    sync_vault(db)  # old.md is gone (its file never existed), a.md is added: one write
    assert db.conn.execute("SELECT note_id, seq FROM vector_changes ORDER BY note_id").fetchall()[
        -1
    ] == (7, 2)
    assert db.conn.execute("SELECT max(seq) FROM vector_changes").fetchone()[0] == 3


def test_an_index_of_schema_8_upgrades_in_place_and_types_its_notes_properties(
    vault: Path, data_dir: Path
) -> None:
    """Schema 9 adds the typed properties and the created time: an index of schema 8 keeps its
    notes (created: when they were last indexed), and its next sync reads every note again,
    so that their properties are there."""

    (vault / "a.md").write_text("---\nstatus: open\nrating: 4\n---\n# A\n\nalpha words\n")
    conn = _index_at_schema(vault, data_dir, 8)  # the index as schema 8 made it, with a note
    conn.execute(
        "INSERT INTO notes(id, path, title, body, size, mtime_ns, hash, indexed_ns) "
        "VALUES (7, 'a.md', 'A', 'alpha words', 9, 1, 'x', 1234000)"
    )
    conn.close()

    db = IndexDB.open(vault, data_dir)
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert db.conn.execute("SELECT id, hash FROM notes").fetchone() == (7, "")  # to read again
    created = "SELECT note_id, created_us, source FROM note_creation"  # microseconds (schema 10)
    assert db.conn.execute(created).fetchall() == [(7, 1234, "indexed")]
    sync_vault(db)
    assert db.conn.execute(
        "SELECT note_id, key, kind, text, num FROM note_props ORDER BY key"
    ).fetchall() == [(7, "rating", "number", "4", 4.0), (7, "status", "text", "open", None)]
    assert db.conn.execute(created).fetchall() == [(7, 1234, "indexed")]  # the first, kept
    db.close()


def test_an_index_of_schema_9_keeps_its_creation_times_in_microseconds(
    vault: Path, data_dir: Path
) -> None:
    """Schema 10 keeps creation times in microseconds, which hold any year: an index of
    schema 9 keeps each note's, divided."""

    conn = _index_at_schema(vault, data_dir, 9)
    conn.execute(
        "INSERT INTO notes(id, path, title, body, size, mtime_ns, hash, indexed_ns) "
        "VALUES (7, 'a.md', 'A', 'alpha words', 9, 1, 'x', 1)"
    )
    conn.execute("INSERT INTO note_created VALUES (7, 1710374400123456789, 'frontmatter')")
    conn.close()

    db = IndexDB.open(vault, data_dir)
    created = "SELECT note_id, created_us, source FROM note_creation"
    assert db.conn.execute(created).fetchall() == [(7, 1710374400123456, "frontmatter")]
    names = {name for (name,) in db.conn.execute("SELECT name FROM sqlite_master")}
    assert "note_creation_us" in names and "note_created" not in names
    db.close()


def _index_at_schema(vault: Path, data_dir: Path, version: int) -> sqlite3.Connection:
    """A connection to ``vault``'s index as schema ``version`` made it (its migrations alone)."""
    from explorer.index import migrations

    path = index_path(vault.resolve(), data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    for make in migrations.MIGRATIONS[:version]:
        for statement in migrations.sqlite3_split(make()):
            if statement.strip():
                conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    return conn


def test_what_a_connection_keeps_is_worked_out_again_after_a_write(tmp_path: Path) -> None:
    db = IndexDB.open(tmp_path / "vault", tmp_path / "data")
    made: list[int] = []

    def make() -> int:
        made.append(1)
        return len(made)

    try:
        assert [db.kept("n", make) for _ in range(3)] == [1, 1, 1]
        assert db.kept("other", make) == 2  # another key: its own
        with db.transaction():
            db.bump_generation()  # notes, chunks or vectors changed
        assert db.kept("n", make) == 3
    finally:
        db.close()
