"""What the commands share: one line for an error of the machine or of the index."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.commands.common import error_line
from explorer.entry import main
from explorer.index.db import index_path


def _real_sqlite_full(path: Path) -> sqlite3.OperationalError:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("CREATE TABLE t(x)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 1}")
        conn.execute("BEGIN")
        for _ in range(100):
            conn.execute("INSERT INTO t VALUES (randomblob(1000))")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("max_page_count did not fill the database")


def _failed_rollback_after(cause: BaseException, path: Path) -> sqlite3.OperationalError:
    """SQLite's own "cannot rollback" raised while ``cause`` is being handled."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        try:
            raise cause
        except sqlite3.Error:
            conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("ROLLBACK without a transaction did not fail")


def test_error_line_finds_the_full_disk_behind_a_failed_rollback(tmp_path: Path) -> None:
    full = _real_sqlite_full(tmp_path / "full.sqlite")
    assert "full" in str(full)
    hidden = _failed_rollback_after(full, tmp_path / "other.sqlite")
    assert "cannot rollback" in str(hidden)
    line = error_line(hidden, tmp_path, str(tmp_path / "data"))
    assert "is full" in line and "free some space" in line and "rollback" not in line


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (OSError(errno.ENOSPC, "No space left on device", "{data}/indexes/x.lock"), ["full"]),
        (PermissionError(errno.EACCES, "Permission denied", "{data}/indexes"), ["--data-dir"]),
        (PermissionError(errno.EACCES, "Permission denied", "{vault}/a.md"), ["in the vault"]),
        (OSError(errno.EROFS, "Read-only file system", "{data}"), ["read-only", "--data-dir"]),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory", "{data}/x"), ["a file is in"]),
        (IsADirectoryError(errno.EISDIR, "Is a directory", "{vault}/a.md"), ["a folder is in"]),
    ],
)
def test_error_line_says_what_is_wrong_and_what_to_do(
    tmp_path: Path, error: OSError, words: list[str]
) -> None:
    data, vault = tmp_path / "data", tmp_path / "vault"
    assert isinstance(error.filename, str)
    error.filename = error.filename.format(data=data, vault=vault)
    line = error_line(error, vault, str(data))
    assert error.filename in line and "\n" not in line
    for word in words:
        assert word in line


@pytest.mark.parametrize(
    "command",
    [
        ["explain", "{vault}", "cache", "a.md", "--mode", "fts"],
        ["compare", "{vault}", "cache", "--a", "mode=fts", "--b", "mode=fts,k=10"],
    ],
    ids=["explain", "compare"],
)
def test_read_only_commands_leave_a_damaged_index_as_it_is(
    vault: Path, write: Callable[[str, str | bytes], Path], command: list[str]
) -> None:
    """``explain`` and ``compare`` read the index as it is: one that cannot be read is reported,
    not moved aside and rebuilt (only a writer does that)."""
    write("a.md", "# A\n\nThe cache.\n")
    path = index_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database" * 100)
    before = sorted(p.name for p in path.parent.iterdir())
    assert main([part.format(vault=vault) for part in command]) != 0
    assert path.read_bytes() == b"not a database" * 100
    assert sorted(p.name for p in path.parent.iterdir()) == before
