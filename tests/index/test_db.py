"""Opening the index: location, WAL, migrations, and rebuilding what is broken."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from explorer.index.db import IndexDB, index_path
from explorer.index.migrations import LATEST_VERSION
from explorer.index.sync import sync_vault


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
