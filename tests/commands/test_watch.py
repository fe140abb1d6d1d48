"""``vault-explorer watch`` as a separate process: clean stops on signals, a kill in the middle
of embedding that the next start finishes, and what ``status`` shows of it."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from explorer.display import is_unsafe
from explorer.embed import provider as provider_module
from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.evaluate.synth import generate_vault
from explorer.index.db import IndexDB, index_path
from explorer.index.embedding import pending_count
from explorer.index.sync import sync_vault
from explorer.live.embedder import EMBED_BATCH
from tests.commands.helpers import (
    assert_nothing_embedded_twice,
    kill_then_resume,
    run_program,
    start_watch,
    wait_running,
)
from tests.privileges import unprivileged
from tests.waiting import wait_until

#: Runs the real command line with a slow fake model registered under the name ``slowfake``
#: (``--model slowfake``), so a test can kill the process while it is embedding.
SLOW_FAKE_MAIN = textwrap.dedent(
    """
    import sys, threading
    from explorer.entry import main
    from explorer.embed import provider
    from explorer.embed.base import FakeEmbedder

    class SlowFake(FakeEmbedder):
        def embed(self, texts):
            threading.Event().wait(0.1)
            return super().embed(texts)

    provider._SHARED["slowfake"] = provider.EmbedderProvider.of(SlowFake(name="slowfake"))
    sys.exit(main(sys.argv[1:]))
    """
)


#: Runs the real command line with a 0.2 s busy timeout (a locked index is said at once) and a
#: sync with a bug: it fails while the vault holds ``trigger.md``.
TROUBLED_MAIN = textwrap.dedent(
    """
    import sys
    from explorer.entry import main
    from explorer.index import db
    from explorer.live import writer

    db.BUSY_TIMEOUT_MS = 200
    real = writer.sync_vault

    def sync_vault(index, *args, **kwargs):
        if (index.vault / "trigger.md").exists():
            raise RuntimeError("a mistake in the sync")
        return real(index, *args, **kwargs)

    writer.sync_vault = sync_vault
    sys.exit(main(sys.argv[1:]))
    """
)


def read(vault: Path, data_dir: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    """One query on a fresh connection ([] while the index does not exist yet)."""
    try:
        db = IndexDB.open_existing(vault, data_dir)
    except (FileNotFoundError, sqlite3.DatabaseError):  # not created, or not migrated yet
        return []
    try:
        return db.conn.execute(sql, params).fetchall()
    finally:
        db.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.slow
def test_watch_logs_batches_and_stops_cleanly_on_a_signal(
    vault: Path,
    data_dir: Path,
    tmp_path: Path,
    procs: list[subprocess.Popen[bytes]],
    capsys: pytest.CaptureFixture[str],
    signum: int,
) -> None:
    (vault / "old.md").write_text("# Old\n\nalready there\n")
    log = tmp_path / "watch.log"
    proc = start_watch(vault, data_dir, log, "--no-embed")
    procs.append(proc)
    wait_running(log)
    (vault / "new.md").write_text("# New\n\nfresh words\n")
    wait_until(lambda: read(vault, data_dir, "SELECT 1 FROM notes WHERE path = 'new.md'"))

    assert main(["status", str(vault), "--data-dir", str(data_dir), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["watcher"]["state"] == "running" and status["watcher"]["pid"] == proc.pid
    assert status["lastBatch"]["added"] == 1

    proc.send_signal(signum)
    assert proc.wait(30) == 0
    out = log.read_text()
    assert "start-up reconcile: 1 added" in out
    assert "batch of 1 paths: 1 added, 0 changed, 0 moved, 0 deleted" in out
    assert "stopped; the index is consistent" in out
    assert "Traceback" not in out

    assert main(["status", str(vault), "--data-dir", str(data_dir)]) == 0
    text = capsys.readouterr().out
    assert "watcher     stopped" in text and "fts         ok" in text
    assert "last batch" in text and "1 added" in text


def test_watch_rejects_bad_input(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", str(vault), "--reconcile-interval", "0"]) == 2
    assert "--reconcile-interval must be positive" in capsys.readouterr().err
    assert main(["watch", str(vault / "missing")]) == 2
    assert "vault folder not found" in capsys.readouterr().err


def make_notes(vault: Path, count: int) -> None:
    topics = ["rivers", "compilers", "bread", "tides", "chess", "volcanoes", "printing", "bees"]
    for i in range(count):
        topic = topics[i % len(topics)]
        (vault / f"{topic}-{i:03}.md").write_text(
            f"# {topic.title()} {i}\n\nA note about {topic}, number {i}. "
            f"It explains one thing about {topic} in plain words ({i * 7919 % 1000}).\n\n"
            f"## Details\n\nMore about {topic}: detail {i}, with a second paragraph.\n"
        )


def assert_queue_finished_exactly(vault: Path, data_dir: Path, model: str) -> None:
    """Every chunk text has exactly one vector of ``model``, and no vector is left over."""
    db = IndexDB.open_existing(vault, data_dir)
    try:
        assert pending_count(db, model) == 0
        missing = db.conn.execute(
            "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.hash = c.hash AND v.model = ?)",
            (model,),
        ).fetchone()[0]
        duplicated = db.conn.execute(
            "SELECT count(*) FROM (SELECT hash FROM vectors WHERE model = ? "
            "GROUP BY hash HAVING count(*) > 1)",
            (model,),
        ).fetchone()[0]
        orphans = db.conn.execute(
            "SELECT count(*) FROM vectors v WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.hash = v.hash)"
        ).fetchone()[0]
        assert (missing, duplicated, orphans) == (0, 0, 0)
        assert db.fts_integrity() is None
        hashes = {r[0] for r in db.conn.execute("SELECT DISTINCT hash FROM chunks")}
    finally:
        db.close()
    fresh = IndexDB.open(vault, data_dir / "reference")  # the same vault indexed from scratch
    try:
        sync_vault(fresh)
        assert hashes == {r[0] for r in fresh.conn.execute("SELECT DISTINCT hash FROM chunks")}
    finally:
        fresh.close()


def kill_during_embedding_then_restart(
    vault: Path,
    data_dir: Path,
    log: Path,
    command: list[str],
    model: str,
    procs: list[subprocess.Popen[bytes]],
) -> None:
    def vectors() -> int:
        rows = read(vault, data_dir, "SELECT count(*) FROM vectors WHERE model = ?", model)
        return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]

    with log.open("a") as out:
        first = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    procs.append(first)
    wait_until(lambda: vectors() > 0, timeout=120)
    first.send_signal(signal.SIGKILL)
    first.wait(30)
    chunks = int(read(vault, data_dir, "SELECT count(DISTINCT hash) FROM chunks")[0][0])  # type: ignore[call-overload]
    assert 0 < vectors() < chunks, "the kill should land in the middle of the embedding run"

    with log.open("a") as out:
        second = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    procs.append(second)
    wait_until(lambda: vectors() == chunks, timeout=120)
    second.send_signal(signal.SIGTERM)
    assert second.wait(30) == 0
    assert_queue_finished_exactly(vault, data_dir, model)


@pytest.mark.slow
def test_a_watch_killed_while_embedding_finishes_the_queue_on_restart(
    vault: Path, data_dir: Path, tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    make_notes(vault, 150)
    script = tmp_path / "slow_fake_main.py"
    script.write_text(SLOW_FAKE_MAIN)
    command = [
        sys.executable,
        str(script),
        "watch",
        str(vault),
        "--data-dir",
        str(data_dir),
        "--model",
        "slowfake",
    ]
    kill_during_embedding_then_restart(
        vault, data_dir, tmp_path / "watch.log", command, "slowfake", procs
    )


@pytest.mark.model
def test_a_watch_killed_while_embedding_with_the_real_model(
    vault: Path, data_dir: Path, tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    make_notes(vault, 120)  # ~8 s of embedding on a slow 2-core machine, plus two model loads
    command = [sys.executable, "-m", "explorer", "watch", str(vault), "--data-dir", str(data_dir)]
    kill_during_embedding_then_restart(
        vault, data_dir, tmp_path / "watch.log", command, "all-MiniLM-L6-v2", procs
    )


def test_status_rebuilds_the_fts_table_or_the_whole_index(
    vault: Path,
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(
        provider_module._SHARED, "fakemodel", EmbedderProvider.of(FakeEmbedder(name="fakemodel"))
    )
    (vault / "a.md").write_text("# A\n\nrebuild me\n")
    common = ["--data-dir", str(data_dir), "--model", "fakemodel"]
    assert main(["index", str(vault), *common]) == 0
    db = IndexDB.open_existing(vault, data_dir)
    try:  # damage the full-text table the way a bug in a trigger would
        db.conn.execute(
            "INSERT INTO notes_fts(notes_fts, rowid, title, tags, body) "
            "VALUES ('delete', 1, 'A', '', 'rebuild me')"
        )
        assert db.fts_integrity() is not None
    finally:
        db.close()
    capsys.readouterr()
    assert main(["status", str(vault), *common, "--rebuild", "fts", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ftsIntegrity"] == "ok"

    (vault / "b.md").write_text("# B\n\nsecond\n")
    assert main(["status", str(vault), *common, "--rebuild", "all", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["notes"] == 2 and status["vectors"] == 2 and status["pendingEmbeddings"] == 0
    assert main(["status", str(vault / "nowhere"), "--rebuild", "fts"]) == 2


def test_status_refuses_to_rebuild_under_a_running_watcher(
    vault: Path,
    data_dir: Path,
    tmp_path: Path,
    procs: list[subprocess.Popen[bytes]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    (vault / "a.md").write_text("# A\n\nindexed\n")
    log = tmp_path / "watch.log"
    procs.append(start_watch(vault, data_dir, log, "--no-embed"))
    wait_running(log)
    wait_until(lambda: read(vault, data_dir, "SELECT 1 FROM notes WHERE path = 'a.md'"))
    before = read(vault, data_dir, "SELECT path, hash FROM notes")
    assert main(["status", str(vault), "--data-dir", str(data_dir), "--rebuild", "all"]) == 1
    err = capsys.readouterr().err
    assert f"vault-explorer watch (pid {procs[0].pid}" in err and "stop it first" in err
    assert index_path(vault, data_dir).exists()
    assert read(vault, data_dir, "SELECT path, hash FROM notes") == before


@pytest.mark.slow
def test_one_writer_a_second_watch_index_and_search_while_watching(
    vault: Path,
    data_dir: Path,
    tmp_path: Path,
    procs: list[subprocess.Popen[bytes]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Nothing stopped a second watch: both embedded everything, and ``status`` said "stopped"
    when one of them exited while the other ran."""
    (vault / "a.md").write_text("# A\n\nkept by the first watcher\n")
    first = start_watch(vault, data_dir, tmp_path / "first.log", "--no-embed")
    procs.append(first)
    wait_running(tmp_path / "first.log")

    second = start_watch(vault, data_dir, tmp_path / "second.log", "--no-embed")
    procs.append(second)
    assert second.wait(60) == 1
    said = (tmp_path / "second.log").read_text()
    assert f"being written by vault-explorer watch (pid {first.pid}" in said, said
    assert "Traceback" not in said
    assert first.poll() is None

    common = ["--data-dir", str(data_dir)]
    capsys.readouterr()
    assert main(["status", str(vault), *common, "--json"]) == 0
    watcher = json.loads(capsys.readouterr().out)["watcher"]
    assert (watcher["state"], watcher["pid"]) == ("running", first.pid)

    assert main(["index", str(vault), *common, "--no-embed"]) == 1
    assert f"watch (pid {first.pid}" in capsys.readouterr().err

    (vault / "b.md").write_text("# B\n\nwritten while watching\n")
    wait_until(lambda: read(vault, data_dir, "SELECT 1 FROM notes WHERE path = 'b.md'"))
    assert main(["search", str(vault), "watching", "--mode", "fts", *common]) == 0
    out, err = capsys.readouterr()
    assert "b.md" in out
    assert "kept current by vault-explorer watch" in err


def test_watch_log_escapes_hostile_names(
    tmp_path: Path, data_dir: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    evil = "\x1b]0;pwned\x07\x1b[41m"
    vault = tmp_path / f"vault{evil}\u202e"
    vault.mkdir()
    (vault / "old.md").write_text("# Old\n\nalready there\n")
    log = tmp_path / "watch.log"
    proc = start_watch(vault, data_dir, log, "--no-embed")
    procs.append(proc)
    wait_running(log)
    (vault / f"bin{evil}\nname\u202e.md").write_bytes(b"\x00\x00binary")
    wait_until(lambda: "binary" in log.read_text(errors="replace"))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    text = log.read_bytes().decode("utf-8")
    raw = sorted({repr(c) for c in text if is_unsafe(c) and c != "\n"})
    assert not raw, f"raw control characters reach the terminal: {raw}"
    assert "bin\\x1b]0;pwned\\x07\\x1b[41m\\x0aname\\u202e.md" in text
    assert "vault\\x1b]0;pwned" in text


def test_watch_on_a_read_only_data_dir_says_so_once(vault: Path, tmp_path: Path) -> None:
    data = tmp_path / "ro-data"
    (vault / "a.md").write_text("# A\n\nwords\n")
    assert main(["index", str(vault), "--no-embed", "--data-dir", str(data)]) == 0
    indexes = data / "indexes"
    before = {p.name: p.read_bytes() for p in indexes.iterdir()}
    for path in (*indexes.iterdir(), indexes, data):
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        command = ["watch", str(vault), "--no-embed", "--data-dir", str(data)]
        proc = subprocess.run(
            [*unprivileged(), sys.executable, "-m", "explorer", *command],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        for path in (data, indexes, *indexes.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    problems = [line for line in proc.stderr.splitlines() if str(data) in line]
    assert len(problems) == 1 and "--data-dir" in problems[0], proc.stderr
    assert proc.stderr.strip().splitlines()[-1].endswith("stopped by the error above")
    assert {p.name: p.read_bytes() for p in indexes.iterdir()} == before


def start_troubled_watch(
    vault: Path, data_dir: Path, tmp_path: Path, log: Path
) -> subprocess.Popen[bytes]:
    script = tmp_path / "troubled_main.py"
    script.write_text(TROUBLED_MAIN)
    command = [sys.executable, str(script), "watch", str(vault), "--data-dir", str(data_dir)]
    with log.open("a") as out:
        return subprocess.Popen([*command, "--no-embed"], stdout=out, stderr=subprocess.STDOUT)


@pytest.mark.slow
def test_watch_says_a_locked_index_in_one_line_and_catches_up(
    vault: Path, data_dir: Path, tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    log = tmp_path / "watch.log"
    proc = start_troubled_watch(vault, data_dir, tmp_path, log)
    procs.append(proc)
    wait_running(log)
    locker = sqlite3.connect(index_path(vault, data_dir), isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")  # another program writing the index
    try:
        (vault / "new.md").write_text("# New\n\nsaved while locked\n")
        wait_until(lambda: "is busy" in log.read_text())
    finally:
        locker.rollback()
        locker.close()
    wait_until(lambda: read(vault, data_dir, "SELECT 1 FROM notes WHERE path = 'new.md'"))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    text = log.read_text()
    busy = [line for line in text.splitlines() if "is busy" in line]
    assert busy[0].split(" ", 2)[2].startswith("batch of 1 paths failed: the index at ")
    assert "try again" in busy[0] and "a full reconcile will follow" in busy[0]
    assert "Traceback" not in text and "bug" not in text


def test_watch_and_status_say_a_bug_is_one(
    vault: Path,
    data_dir: Path,
    tmp_path: Path,
    procs: list[subprocess.Popen[bytes]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = tmp_path / "watch.log"
    proc = start_troubled_watch(vault, data_dir, tmp_path, log)
    procs.append(proc)
    wait_running(log)
    (vault / "trigger.md").write_text("# Trigger\n\nmeets the bug\n")
    wait_until(lambda: "watcher degraded" in log.read_text())

    assert main(["status", str(vault), "--data-dir", str(data_dir)]) == 0
    watcher = next(line for line in capsys.readouterr().out.splitlines() if "watcher" in line)
    assert f"degraded (vault-explorer watch, pid {proc.pid}): batch of 1 paths failed: " in watcher
    assert "a bug in vault-explorer (RuntimeError: a mistake in the sync)" in watcher
    assert "report it" in watcher

    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    text = log.read_text()
    said = [line for line in text.splitlines() if "a full reconcile will follow" in line]
    assert said and "batch of 1 paths failed: a bug in vault-explorer (RuntimeError" in said[0]
    assert "Traceback" in text and "RuntimeError: a mistake in the sync" in text  # logged


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGUSR2"), reason="no SIGUSR1/2 on this platform")
def test_sigusr1_pauses_and_sigusr2_resumes_a_watch_s_embedding_and_status_says_so(
    vault: Path, data_dir: Path, tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    make_notes(vault, 150)
    script = tmp_path / "slow_fake_main.py"
    script.write_text(SLOW_FAKE_MAIN)
    log = tmp_path / "watch.log"
    command = [sys.executable, str(script), "watch", str(vault), "--data-dir", str(data_dir)]
    with log.open("a") as out:
        proc = subprocess.Popen(
            [*command, "--model", "slowfake", "--embed-threads", "1"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    procs.append(proc)

    def said(text: str) -> bool:
        return text in log.read_text(errors="replace")

    def status() -> str:
        result = run_program("status", str(vault), "--data-dir", str(data_dir))
        return result.stdout

    wait_until(lambda: said("watching "))  # the handlers are in place
    assert said(f"kill -USR1 {proc.pid} pauses embedding, kill -USR2 {proc.pid} resumes it")
    proc.send_signal(signal.SIGUSR1)
    proc.send_signal(signal.SIGUSR1)  # twice, quickly: still a pause, not a toggle
    wait_until(lambda: said("pausing embedding after the batch under way"))
    wait_until(lambda: said("embedding paused"))  # the queue holds between two batches
    wait_until(lambda: "embedding   paused · " in status())
    line = next(ln for ln in status().splitlines() if ln.startswith("embedding"))
    assert line.endswith(f"chunks waiting (kill -USR2 {proc.pid} resumes it)"), line
    chunks = int(read(vault, data_dir, "SELECT count(DISTINCT hash) FROM chunks")[0][0])  # type: ignore[call-overload]
    held = int(read(vault, data_dir, "SELECT count(*) FROM vectors")[0][0])  # type: ignore[call-overload]
    assert held < chunks
    assert not said("resuming embedding")

    proc.send_signal(signal.SIGUSR2)
    wait_until(lambda: said("resuming embedding") and said("embedding resumed"))
    wait_until(
        lambda: int(read(vault, data_dir, "SELECT count(*) FROM vectors")[0][0]) == chunks,  # type: ignore[call-overload]
        timeout=120,
    )
    assert "embedding   paused" not in status()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    out = log.read_text()
    assert "notes searchable by meaning" in out and "Traceback" not in out


@pytest.mark.slow
@pytest.mark.parametrize("during", ["words", "vectors"])
def test_a_watch_killed_at_any_moment_is_finished_by_the_next_start(
    tmp_path: Path, procs: list[subprocess.Popen[bytes]], during: str
) -> None:
    # kill -9 in the start-up reconcile of a new vault, or in its embedding: the next watch
    # finishes both, embeds nothing the first one stored, and leaves what a clean index holds.
    vault = tmp_path / "vault"
    generate_vault(vault, 600, seed=7)
    slow = {"note_pause": 0.005} if during == "words" else {"embed_pause": 0.02}
    killed = kill_then_resume(
        vault, tmp_path / "data", tmp_path, "watch", procs, during=during, **slow
    )
    assert_nothing_embedded_twice(killed, batch=EMBED_BATCH)
