"""What goes wrong in the live index is told apart: the machine (a locked database, a full disk,
a read-only folder: one sentence, what to do, the index untouched) or a bug (said to be one, its
traceback in the log).  Real databases, real locks, real permissions."""

from __future__ import annotations

import errno
import json
import logging
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder, Matrix
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index import db as db_module
from explorer.index.db import IndexDB, IndexUnavailable
from explorer.index.sync import sync_vault
from explorer.live import EmbeddingState, LiveIndex, Problem, ProblemKind, WatcherState
from explorer.live import writer as writer_module
from explorer.live.problems import diagnose, error_line
from tests.privileges import unprivileged
from tests.waiting import wait_until


def lock(path: Path) -> sqlite3.Connection:
    """Another process's write transaction on the index (a backup tool, the sqlite3 shell)."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("BEGIN IMMEDIATE")
    return conn


def busy_error(path: Path) -> sqlite3.Error:
    """The error SQLite gives a writer that finds the index locked."""
    holder = lock(path)
    try:
        other = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            other.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            return exc
        finally:
            other.close()
    finally:
        holder.close()
    raise AssertionError("the second writer was not refused")


def traceback_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.exc_info is not None]


# ----------------------------------------------------------------------------- the diagnosis


def test_what_each_kind_of_failure_is_said_to_be(tmp_path: Path, vault: Path) -> None:
    path = tmp_path / "index.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t(x)").connection.close()

    busy = diagnose(busy_error(path), path)
    assert busy.kind is ProblemKind.ENVIRONMENT
    assert f"the index at {path} is busy" in busy.message and "try again" in busy.message

    (vault / "small.md").write_text("# Small\n\nfits\n")
    db = IndexDB.open(vault, tmp_path / "data")
    try:
        sync_vault(db)
        pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
        db.conn.execute(f"PRAGMA max_page_count = {pages}")
        (vault / "big.md").write_text("# Big\n\n" + "many words in a long note. " * 40_000)
        with pytest.raises(IndexUnavailable) as full:
            sync_vault(db)
    finally:
        db.close()
    problem = diagnose(full.value, db.path)
    assert problem.kind is ProblemKind.ENVIRONMENT and "is full" in problem.message
    assert "free some space" in problem.message

    garbage = tmp_path / "not-an-index.sqlite"
    garbage.write_bytes(b"this is no database" * 100)
    with pytest.raises(sqlite3.DatabaseError) as damaged:
        sqlite3.connect(garbage).execute("SELECT * FROM sqlite_master").fetchall()
    problem = diagnose(damaged.value, garbage)
    assert problem.kind is ProblemKind.ENVIRONMENT and "damaged" in problem.message
    assert "--rebuild all" in problem.message and "busy" not in problem.message

    disk = diagnose(OSError(errno.ENOSPC, "No space left on device", "/data/x"), path)
    full_disk = "the disk is full (writing /data/x); free some space"
    assert disk == Problem(ProblemKind.ENVIRONMENT, full_disk)
    denied = diagnose(PermissionError(errno.EACCES, "Permission denied", "/vault/a.md"), path)
    assert denied.kind is ProblemKind.ENVIRONMENT and "fix the permissions" in denied.message

    bug = diagnose(RuntimeError("boom"), path)
    assert bug.is_bug and "a bug in vault-explorer (RuntimeError: boom)" in bug.message
    assert "report" in bug.message
    try:  # the cause a failed rollback hides is what the user is told
        try:
            raise IndexUnavailable("the disk holding the index is full; free some space")
        except IndexUnavailable as cause:
            raise RuntimeError("cannot roll back") from cause
    except RuntimeError as exc:
        assert diagnose(exc, path).kind is ProblemKind.ENVIRONMENT


# ----------------------------------------------------------------------------- the writer


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A locked index is said after 0.2 s instead of 30 (connections made from now on)."""
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200)


@pytest.fixture
def running(vault: Path, data_dir: Path) -> Iterator[LiveIndex]:
    (vault / "a.md").write_text("# A\n\nalpha\n")
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.disabled(), quiet=0.1)
    live.start()
    assert live.wait_idle(30)
    yield live
    live.stop()


@pytest.mark.slow
def test_a_locked_index_is_the_machine_said_in_one_line_and_caught_up_after(
    short_busy_timeout: None, running: LiveIndex, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live = running
    locker = lock(live.db_path)
    try:
        (vault / "b.md").write_text("# B\n\nbravo\n")
        wait_until(lambda: live.health().problem is not None)
        problem = live.health().problem
        assert problem is not None and problem.kind is ProblemKind.ENVIRONMENT
        assert problem.message.startswith("batch of 1 paths failed: the index at ")
        assert "is busy" in problem.message and "bug" not in problem.message
        assert live.state is WatcherState.DEGRADED and live.state_reason == problem.message
    finally:
        locker.rollback()
        locker.close()
    # The next reconcile finds the index free again: the note is there, the problem gone.
    wait_until(lambda: live.health().problem is None and live.health().notes == 2)
    assert live.state is WatcherState.RUNNING
    assert traceback_records(caplog) == []  # the machine's problem is no bug: no traceback


def test_a_bug_is_said_to_be_one_and_its_traceback_logged(
    running: LiveIndex, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a mistake in the sync")

    monkeypatch.setattr(writer_module, "sync_vault", broken)
    running.request_reconcile()
    wait_until(lambda: running.health().problem is not None)
    problem = running.health().problem
    assert problem is not None and problem.is_bug
    assert problem.message.startswith("reconcile failed: a bug in vault-explorer (RuntimeError")
    assert "report it" in problem.message
    logged = traceback_records(caplog)
    assert logged and logged[0].levelno == logging.ERROR
    assert logged[0].exc_info is not None and logged[0].exc_info[0] is RuntimeError

    monkeypatch.undo()
    running.request_reconcile()
    wait_until(lambda: running.health().problem is None)
    assert running.state is WatcherState.RUNNING


def test_a_read_only_index_folder_is_the_machine_and_the_index_untouched(
    vault: Path, tmp_path: Path
) -> None:
    data = tmp_path / "ro-data"
    (vault / "a.md").write_text("# A\n\nalpha\n")
    assert main(["index", str(vault), "--no-embed", "--data-dir", str(data)]) == 0
    indexes = data / "indexes"
    before = {p.name: p.read_bytes() for p in indexes.iterdir()}
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from explorer.embed.provider import EmbedderProvider\n"
        "from explorer.live import LiveIndex\n"
        "live = LiveIndex(Path(sys.argv[1]), sys.argv[2], EmbedderProvider.disabled())\n"
        "live.start()\n"
        "live.wait_idle(60)\n"
        "problem = live.health().problem\n"
        "print(json.dumps({'kind': problem.kind.value, 'message': problem.message,\n"
        "                  'state': live.state.value, 'running': live.running}))\n"
        "live.stop()\n"
    )
    for path in (*indexes.iterdir(), indexes, data):
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        proc = subprocess.run(
            [*unprivileged(), sys.executable, "-c", script, str(vault), str(data)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        for path in (data, indexes, *indexes.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    said = json.loads(proc.stdout)
    assert said["kind"] == "environment" and (said["state"], said["running"]) == ("stopped", False)
    assert str(data) in said["message"] and "--data-dir" in said["message"]
    assert "bug" not in said["message"]
    assert {p.name: p.read_bytes() for p in indexes.iterdir()} == before


# ----------------------------------------------------------------------------- the embedder


class GatedEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.entered = threading.Event()

    def embed(self, texts: list[str]) -> Matrix:
        self.entered.set()
        self.gate.wait(30)
        return super().embed(texts)


@pytest.mark.usefixtures("short_busy_timeout")
def test_vectors_that_cannot_be_stored_for_now_are_stored_later(
    vault: Path, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A locked index stopped the embedder for good ("embedder crashed")."""
    (vault / "a.md").write_text("# A\n\nalpha\n")
    embedder = GatedEmbedder()
    live = LiveIndex(
        vault, str(data_dir), EmbedderProvider.of(embedder), quiet=0.1, retry_delay=0.05
    )
    live.start()
    try:
        assert embedder.entered.wait(30)
        # The embedder can start before the start-up reconcile ends; lock the index after it,
        # so that the lock meets the embedder's store (a writer meeting it is another test).
        wait_until(lambda: live.state is WatcherState.RUNNING)
        locker = lock(live.db_path)
        try:
            embedder.gate.set()

            def retrying() -> bool:
                embedding = live.health().embedding
                return embedding is not None and embedding.state is EmbeddingState.RETRYING

            wait_until(retrying)
            embedding = live.health().embedding
            problem = embedding.problem if embedding is not None else None
            assert problem is not None and problem.kind is ProblemKind.ENVIRONMENT
            assert problem.message.startswith("cannot store vectors: the index at ")
            assert "is busy" in problem.message and "retry in" in problem.message
        finally:
            locker.rollback()
            locker.close()
        assert live.wait_idle(30)
        health = live.health()
        assert health.pending_embeddings == 0 and health.vectors == 1
        assert health.problem is None
    finally:
        embedder.gate.set()
        live.stop()
    assert traceback_records(caplog) == []


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
