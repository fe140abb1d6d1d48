"""What several command tests share: a ``watch`` process, a fake model that keeps a journal of
what it embeds, what the index file holds, and what a command that only asks a running watch
has to import."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from explorer.index.db import IndexDB, index_path
from explorer.index.links import UNRESOLVED_META
from tests.index.helpers import snapshot
from tests.waiting import wait_until


def start_watch(vault: Path, data_dir: Path, log: Path, *options: str) -> subprocess.Popen[bytes]:
    with log.open("a") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "explorer",
                "watch",
                str(vault),
                "--data-dir",
                str(data_dir),
                *options,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait_running(log: Path) -> None:
    """Wait until the ``watch`` writing ``log`` says its watcher runs."""
    wait_until(lambda: "watcher running" in log.read_text(errors="replace"))


def index_written(vault: Path) -> tuple[str, int]:
    """The database file's content hash, and the bytes waiting in its write-ahead log (a
    read-only connection may leave an empty log and the shared-memory file behind)."""
    path = index_path(vault)
    wal = Path(f"{path}-wal")
    return hashlib.sha256(path.read_bytes()).hexdigest(), wal.stat().st_size if wal.exists() else 0


def run_program(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m explorer ARGS`` in a child process, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


#: Of each package, what the command line may import before it knows whether a running watch
#: answers: the parser (every command's options), the request (the search settings and the
#: query's grammar, the saved searches) and the socket.  The rest — the model, numpy, the
#: search itself, the note parser (yaml, pathspec), the evaluation, the index beyond finding its
#: file — is the answering side's.
CLIENT_PARTS: dict[str, tuple[str, ...]] = {
    "numpy": (),
    "torch": (),
    "sentence_transformers": (),
    "watchdog": (),
    "yaml": (),
    "pathspec": (),
    "explorer.evaluate": (),
    "explorer.preview": (),
    "explorer.gui": (),
    "explorer.search": (
        "explorer.search.query",
        "explorer.search.answers.saved",
        "explorer.search.answers.related_limits",
    ),
    "explorer.vault": ("explorer.vault.language", "explorer.vault.properties"),
    "explorer.mcp": ("explorer.mcp.requests",),
    "explorer.live": ("explorer.live.serve", "explorer.live.problems"),
    "explorer.embed": ("explorer.embed.models", "explorer.embed.threads"),
    "explorer.index": (
        "explorer.index.db",
        "explorer.index.migrations",
        "explorer.index.counts",
        "explorer.index.text",
        "explorer.index.lease",
        "explorer.index.model_choice",
    ),
}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def beyond_the_client(modules: Iterable[str]) -> list[str]:
    """The ``modules`` a command that only asks a running watch should not have imported
    (:data:`CLIENT_PARTS`)."""
    return sorted(
        module
        for module in modules
        for package, allowed in CLIENT_PARTS.items()
        if _within(module, package)
        # a part allowed, in it, or the package that holds it
        and not any(_within(module, part) or _within(part, module) for part in allowed)
    )


def modules_after(
    code: str, *argv: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run ``code`` in a fresh interpreter (``argv`` in ``sys.argv[1:]``): its process, and every
    module it had imported when it ended."""
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "modules.json"
        wrapped = (
            "import atexit, json, sys\n"
            f"atexit.register(lambda: open({str(listing)!r}, 'w').write("
            "json.dumps(sorted(sys.modules))))\n" + code
        )
        proc = subprocess.run(
            [sys.executable, "-c", wrapped, *argv],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=300,
        )
        modules = json.loads(listing.read_text()) if listing.exists() else []
    return proc, modules


#: Runs the real command line with a fake model registered as ``journalfake`` that appends the
#: SHA-256 of every text it embeds, a line each, to the file ``$EMBED_JOURNAL`` before it
#: returns their vectors (so a kill loses no line of a call that returned), and that pauses
#: ``$EMBED_PAUSE`` seconds a call and ``$NOTE_PAUSE`` seconds a note the sync writes, so that
#: a test can kill the process in the middle of the word index or of the embedding.
JOURNAL_MAIN = """
import hashlib, os, sys, threading
from explorer.entry import main
from explorer.embed import provider
from explorer.embed.base import FakeEmbedder
from explorer.index import sync

embed_pause = float(os.environ.get("EMBED_PAUSE", "0"))
note_pause = float(os.environ.get("NOTE_PAUSE", "0"))

class JournalFake(FakeEmbedder):
    def embed(self, texts):
        threading.Event().wait(embed_pause)
        lines = "".join(hashlib.sha256(t.encode()).hexdigest() + "\\n" for t in texts)
        fd = os.open(os.environ["EMBED_JOURNAL"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, lines.encode())
        finally:
            os.close(fd)
        return super().embed(texts)

real_apply = sync._apply

def slow_apply(*args, **kwargs):
    threading.Event().wait(note_pause)
    return real_apply(*args, **kwargs)

sync._apply = slow_apply
provider._SHARED["journalfake"] = provider.EmbedderProvider.of(JournalFake(name="journalfake"))
sys.exit(main(sys.argv[1:]))
"""
#: The model name :data:`JOURNAL_MAIN` registers.
JOURNAL_MODEL = "journalfake"


def journal(path: Path) -> list[str]:
    """The text hashes a :data:`JOURNAL_MAIN` process embedded, one per text, in order."""
    return path.read_text().split() if path.exists() else []


def embedded_texts(vault: Path, data_dir: Path) -> tuple[set[str], set[str]]:
    """The SHA-256 of every chunk text of the index, and of those that have a vector."""
    db = IndexDB.open_existing(vault, data_dir)
    try:
        rows = db.conn.execute(
            "SELECT c.text, EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash) FROM chunks c"
        ).fetchall()
    finally:
        db.close()
    texts = {hashlib.sha256(text.encode()).hexdigest(): bool(has) for text, has in rows}
    return set(texts), {digest for digest, has in texts.items() if has}


def index_contents(vault: Path, data_dir: Path) -> dict[str, object]:
    """What a user could observe of an index (its notes, chunks, vectors and links), without
    row ids or timestamps, and whether its word index is sound."""
    db = IndexDB.open_existing(vault, data_dir)
    try:
        seen: dict[str, object] = dict(snapshot(db))
        seen["links"] = sorted(
            db.conn.execute(
                "SELECT n.path, l.seq, l.target, t.path FROM links l "
                "JOIN notes n ON n.id = l.note_id LEFT JOIN notes t ON t.id = l.to_id"
            )
        )
        seen["fts_integrity"] = db.fts_integrity()
        seen["pending_links"] = db.get_meta(UNRESOLVED_META)
    finally:
        db.close()
    return seen


def count_rows(vault: Path, data_dir: Path, sql: str) -> int:
    """``SELECT count(*) …`` on a fresh connection (0 while the index does not exist yet)."""
    try:
        db = IndexDB.open_existing(vault, data_dir)
    except (FileNotFoundError, sqlite3.DatabaseError):  # not created, or not migrated yet
        return 0
    try:
        return int(db.conn.execute(sql).fetchone()[0])
    finally:
        db.close()


@dataclass(frozen=True, slots=True)
class Killed:
    """What a process killed by :func:`kill_then_resume` had done, and what its successor did."""

    notes: int  # notes in the index when it was killed
    stored: set[str]  # chunk texts with a vector then (their SHA-256)
    first: list[str]  # the texts the killed process embedded
    second: list[str]  # the texts the next one embedded
    output: str  # both processes' output


def kill_then_resume(
    vault: Path,
    data_dir: Path,
    work: Path,
    command: str,
    procs: list[subprocess.Popen[bytes]],
    *,
    during: str,
    embed_pause: float = 0.0,
    note_pause: float = 0.0,
) -> Killed:
    """Run ``vault-explorer COMMAND VAULT`` (``index`` or ``watch``) on the journaling fake
    model, SIGKILL it once the index holds some notes (``during="words"``) or some vectors
    (``during="vectors"``) but not all, then run it again until the index is complete — as
    complete as ``index`` makes it in one run on a fresh data folder, which is compared.  A
    ``watch`` is stopped with SIGTERM once its index equals that one."""
    script = [sys.executable, "-c", JOURNAL_MAIN]
    model = ["--model", JOURNAL_MODEL]
    log = work / f"{command}.log"

    def start(data: Path, journal_path: Path, **env: str) -> subprocess.Popen[bytes]:
        with log.open("a") as out:
            proc = subprocess.Popen(
                [*script, command, str(vault), "--data-dir", str(data), *model],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "EMBED_JOURNAL": str(journal_path), **env},
            )
        procs.append(proc)
        return proc

    clean_data = work / "clean"
    reference = subprocess.run(
        [*script, "index", str(vault), "--data-dir", str(clean_data), *model],
        capture_output=True,
        env={**os.environ, "EMBED_JOURNAL": str(work / "clean.journal")},
        timeout=300,
    )
    assert reference.returncode == 0, reference.stderr
    clean = index_contents(vault, clean_data)
    notes = count_rows(vault, clean_data, "SELECT count(*) FROM notes")
    texts, _ = embedded_texts(vault, clean_data)
    assert len(journal(work / "clean.journal")) == len(texts)  # one call a text, in one run

    pauses = {"EMBED_PAUSE": str(embed_pause), "NOTE_PAUSE": str(note_pause)}
    first = start(data_dir, work / "first.journal", **pauses)
    in_index = f"SELECT count(*) FROM {'notes' if during == 'words' else 'vectors'}"
    wait_until(lambda: count_rows(vault, data_dir, in_index) > 0, timeout=120)
    first.send_signal(signal.SIGKILL)
    first.wait(30)
    killed_notes = count_rows(vault, data_dir, "SELECT count(*) FROM notes")
    _, stored = embedded_texts(vault, data_dir)
    if during == "words":
        assert 0 < killed_notes < notes, "the kill should land in the middle of the word index"
    else:
        assert 0 < len(stored) < len(texts), "the kill should land in the middle of embedding"

    second = start(data_dir, work / "second.journal")
    if command == "watch":
        wait_until(lambda: index_contents(vault, data_dir) == clean, timeout=120)
        second.send_signal(signal.SIGTERM)
    assert second.wait(120) == 0, log.read_text(errors="replace")
    assert index_contents(vault, data_dir) == clean
    return Killed(
        killed_notes,
        stored,
        journal(work / "first.journal"),
        journal(work / "second.journal"),
        log.read_text(errors="replace"),
    )


def assert_nothing_embedded_twice(killed: Killed, batch: int) -> None:
    """No text was embedded twice by one process, none stored before the kill was embedded
    again, and the killed process lost at most the one batch it was embedding."""
    first, second = killed.first, killed.second
    assert len(set(first)) == len(first) and len(set(second)) == len(second)
    assert not set(second) & killed.stored
    assert set(first) >= killed.stored
    assert len(set(first) - killed.stored) <= batch
