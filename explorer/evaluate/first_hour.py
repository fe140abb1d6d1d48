"""A big vault's first hour (``bench --first-hour``): a real ``vault-explorer index`` in a
child process on a vault it has never seen, watched from outside through its SQLite file.

- **words**: the seconds from the start until the first notes are in the word index (the sync
  commits a few hundred notes at a time) and a ``search --mode fts --no-sync`` started then, in
  another process, answered from them (*the first lexical answer*); and until the word index
  holds every note (the sync's end, ``last_sync`` in the index) and a search started then
  answered;
- **memory**: the child's peak resident set size (the kernel's high-water mark, ``VmHWM``),
  through the sync, the model's load and the first ``--embed-minutes`` of embedding — it need
  not finish: on a CPU that takes hours, so the rate and the time left are said instead;
- **kill -9**: the child is killed (SIGKILL) at the end of that window, and again in the word
  index of a second, fresh index (at each fraction of :data:`WORD_KILLS` of the notes); each
  time a new ``index`` is started on what the kill left, and what it resumed is read from the
  file: the notes it found already written, the vectors it kept, that every chunk text is
  either stored or pending (never both, never neither), and — once the words are in again —
  that the index holds the notes and chunks the clean one holds, its word index sound and in
  one segment.

The vault is generated (:func:`explorer.evaluate.synth.generate_vault`: front matter, headings,
lists, links, code, sizes spread as real notes are) unless one is given.  Everything runs in a
scratch folder, removed afterwards unless ``--keep``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from explorer.errors import MachineError
from explorer.evaluate.bench import log, workspace
from explorer.evaluate.synth import generate_queries, generate_vault
from explorer.index.db import IndexDB
from explorer.index.embedding import pending_count

#: The goals of issue 45: every note searchable by words within this many seconds …
WORDS_BUDGET_SECONDS = 60.0
#: … and the process at most this big while it embeds.
RSS_BUDGET_BYTES = 1_200_000_000
#: Where in the word index of a fresh index the child is killed: fractions of the vault's notes.
WORD_KILLS = (0.5, 0.95)
#: How often the index file and the child's memory are looked at (seconds).
POLL_SECONDS = 0.25
#: How long, at most, any one wait of the benchmark lasts (seconds).
WAIT_LIMIT = 3600.0


class FirstHourError(MachineError, RuntimeError):
    """The child did not do what the benchmark waits for (it exited, or the wait timed out)."""


@dataclass(frozen=True, slots=True)
class FirstHourSettings:
    vault: Path | None = None
    notes: int = 40_000
    seed: int = 0
    #: Minutes of embedding watched before the kill (the rate and the memory are measured there).
    embed_minutes: float = 5.0
    keep: bool = False
    model: str | None = None
    #: How a child ``vault-explorer`` is started: this interpreter's ``-m explorer`` (a test
    #: gives a program that registers a fake model).
    program: tuple[str, ...] = (sys.executable, "-m", "explorer")


@dataclass(slots=True)
class _Child:
    """A running ``vault-explorer`` and what is known of its memory."""

    proc: subprocess.Popen[bytes]
    started: float
    peak_rss: int = 0

    def look(self) -> None:
        """Note the child's memory high-water mark (it grows only; 0 once it is gone)."""
        self.peak_rss = max(self.peak_rss, _high_water(self.proc.pid))

    def kill(self) -> None:
        self.look()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(60)

    def since(self) -> float:
        return time.monotonic() - self.started


def _high_water(pid: int) -> int:
    """A process's peak resident set size: ``VmHWM`` on Linux, else its resident size now."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    with contextlib.suppress(psutil.Error):
        return int(psutil.Process(pid).memory_info().rss)
    return 0


class _Index:
    """The child's index, read from outside on a fresh connection each time (nothing while it
    does not exist yet)."""

    def __init__(self, vault: Path, data: Path) -> None:
        self.vault, self.data = vault, data

    def read(self, fn: Callable[[IndexDB], Any], default: Any = None) -> Any:
        try:
            db = IndexDB.open_existing(self.vault, self.data)
        except (FileNotFoundError, sqlite3.DatabaseError):  # not created, or not migrated yet
            return default
        try:
            return fn(db)
        except sqlite3.OperationalError:  # a table not created yet
            return default
        finally:
            db.close()

    def count(self, table: str) -> int:
        return int(self.read(lambda db: _scalar(db, f"SELECT count(*) FROM {table}"), 0))

    def last_sync(self) -> str | None:
        value: str | None = self.read(lambda db: db.get_meta("last_sync"))
        return value

    def chunks_state(self, model: str) -> dict[str, int]:
        """Distinct chunk texts, those with a vector of ``model``, those pending."""

        def counts(db: IndexDB) -> dict[str, int]:
            texts = _scalar(db, "SELECT count(DISTINCT hash) FROM chunks")
            stored = _scalar(
                db,
                "SELECT count(*) FROM vectors v WHERE v.model = ? "
                "AND EXISTS (SELECT 1 FROM chunks c WHERE c.hash = v.hash)",
                model,
            )
            return {"texts": texts, "vectors": stored, "pending": pending_count(db, model)}

        state: dict[str, int] = self.read(counts, {"texts": 0, "vectors": 0, "pending": 0})
        return state

    def model(self) -> str | None:
        def chosen(db: IndexDB) -> str | None:
            row = db.conn.execute("SELECT model FROM vectors LIMIT 1").fetchone()
            return None if row is None else str(row[0])

        name: str | None = self.read(chosen)
        return name

    def contents(self) -> dict[str, Any]:
        """Digests of what the word index holds, for comparing two indexes of the vault."""

        def digest(db: IndexDB, sql: str) -> str:
            rows = sorted(db.conn.execute(sql))
            return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]

        def read(db: IndexDB) -> dict[str, Any]:
            return {
                "notes": _scalar(db, "SELECT count(*) FROM notes"),
                "chunks": _scalar(db, "SELECT count(*) FROM chunks"),
                "notesDigest": digest(db, "SELECT path, hash FROM notes"),
                "chunksDigest": digest(
                    db,
                    "SELECT n.path, c.seq, c.hash FROM chunks c JOIN notes n ON n.id = c.note_id",
                ),
                "linksDigest": digest(
                    db,
                    "SELECT n.path, l.seq, t.path FROM links l JOIN notes n ON n.id = l.note_id "
                    "LEFT JOIN notes t ON t.id = l.to_id",
                ),
                "ftsSound": db.fts_integrity() is None,
                "ftsSegments": _scalar(db, "SELECT count(DISTINCT segid) FROM notes_fts_idx"),
            }

        found: dict[str, Any] = self.read(read, {})
        return found


def _scalar(db: IndexDB, sql: str, *params: object) -> int:
    return int(db.conn.execute(sql, params).fetchone()[0])


class _Run:
    """Starts ``vault-explorer`` children on one vault, their output in a log file."""

    def __init__(self, vault: Path, root: Path, settings: FirstHourSettings) -> None:
        self.vault, self.root = vault, root
        self.model = ["--model", settings.model] if settings.model else []
        self.log = root / "children.log"
        self.program = settings.program

    def start(self, data: Path, *args: str) -> _Child:
        with self.log.open("a") as out:
            proc = subprocess.Popen(
                [*self.program, *args, str(self.vault), "--data-dir", str(data), *self.model],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        return _Child(proc, time.monotonic())

    def search(self, data: Path, query: str) -> int:
        """Hits of a lexical search of the index as it is, in another process."""
        options = ["--mode", "fts", "--no-sync", "--json", "--data-dir", str(data), *self.model]
        done = subprocess.run(
            [*self.program, "search", str(self.vault), query, *options],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=WAIT_LIMIT,
        )
        if done.returncode != 0:
            raise FirstHourError(f"the lexical search failed: {done.stderr.strip()}")
        return len(json.loads(done.stdout)["hits"])


def _wait(child: _Child, what: str, condition: Callable[[], bool], *, exits: bool = False) -> None:
    """Poll ``condition`` (and the child's memory) until it holds; the child exiting first is
    an error unless ``exits`` (then its exit ends the wait too)."""
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        child.look()
        if child.proc.poll() is not None:
            if exits:
                return
            raise FirstHourError(f"the index process exited ({child.proc.returncode}) {what}")
        if time.monotonic() > deadline:
            raise FirstHourError(f"timed out {what}")
        time.sleep(POLL_SECONDS)


def run_first_hour(settings: FirstHourSettings, data: str | None = None) -> dict[str, Any]:
    """The figures of a vault's first hour (see the module's docstring), as a JSON-able dict."""
    with workspace(
        settings.keep, data, "first-hour", "the vault, the indexes and the children's log"
    ) as root:
        result: dict[str, Any] = {"vault": _vault_figures(settings, root)}
        vault = settings.vault or root / "vault"
        run = _Run(vault, root, settings)
        clean = root / "clean"
        result.update(_first_run(run, clean, settings))
        result["killedWhileEmbedding"] = _resume_embedding(run, clean, result["model"])
        reference = _Index(vault, clean).contents()
        result["killedInWords"] = [
            _resume_words(run, root / f"killed-{i}", fraction, reference)
            for i, fraction in enumerate(WORD_KILLS)
        ]
        return result


def _vault_figures(settings: FirstHourSettings, root: Path) -> dict[str, Any]:
    if settings.vault is None:
        started = time.perf_counter()
        log(f"generating a vault of {settings.notes:,} notes")
        generate_vault(root / "vault", settings.notes, settings.seed)
        generated: float | None = round(time.perf_counter() - started, 1)
    else:
        generated = None
    vault = settings.vault or root / "vault"
    sizes = sorted(p.stat().st_size for p in vault.rglob("*.md"))
    return {
        "path": None if settings.vault is None else str(vault),
        "notes": len(sizes),
        "bytes": sum(sizes),
        "medianNoteBytes": sizes[len(sizes) // 2] if sizes else 0,
        "largestNoteBytes": sizes[-1] if sizes else 0,
        "generatedSeconds": generated,
    }


def _first_run(run: _Run, data: Path, settings: FirstHourSettings) -> dict[str, Any]:
    """``index`` on a fresh data folder: the words, the first lexical answer, then
    ``embed_minutes`` of embedding; killed at the end of that window (unless it finished)."""
    index = _Index(run.vault, data)
    query = generate_queries(run.vault, 1, settings.seed)[0]
    log("indexing: waiting for the word index")
    child = run.start(data, "index")
    _wait(child, "before the first notes were written", lambda: index.count("notes") > 0)
    first_notes = child.since()
    first_hits = run.search(data, query)
    first_answer = child.since()
    _wait(child, "before the word index was complete", lambda: index.last_sync() is not None)
    words = child.since()
    child.look()
    words_rss = child.peak_rss
    hits = run.search(data, query)
    answered = child.since()
    log(f"every note searchable by words after {words:.1f} s; embedding")
    _wait(child, "before any vector was stored", lambda: index.count("vectors") > 0, exits=True)
    first_vector = child.since()
    model = index.model()
    start_state = index.chunks_state(model or "")
    window = settings.embed_minutes * 60
    _wait(child, "", lambda: child.since() - first_vector >= window, exits=True)
    finished = child.proc.poll() is not None
    end = child.since()
    end_state = index.chunks_state(model or "")
    if not finished:
        child.kill()
    embedded = end_state["vectors"] - start_state["vectors"]
    seconds = end - first_vector
    rate = embedded / seconds if seconds > 0 else 0.0
    pending = end_state["pending"]
    return {
        "model": model,
        "query": query,
        "words": {
            "firstNotesSeconds": round(first_notes, 1),
            "firstAnswerSeconds": round(first_answer, 1),
            "firstAnswerHits": first_hits,
            "searchableSeconds": round(words, 1),
            "answerSeconds": round(answered, 1),
            "answerHits": hits,
            "budgetSeconds": WORDS_BUDGET_SECONDS,
            "peakRssBytes": words_rss,
        },
        "embedding": {
            "firstVectorSeconds": round(first_vector, 1),
            "watchedSeconds": round(seconds, 1),
            "chunkTexts": end_state["texts"],
            "embedded": end_state["vectors"],
            "rate": round(rate, 2),
            "hoursLeft": round(pending / rate / 3600, 1) if rate > 0 else None,
            "finished": finished,
            "peakRssBytes": child.peak_rss,
            "budgetBytes": RSS_BUDGET_BYTES,
        },
    }


def _resume_embedding(run: _Run, data: Path, model: str | None) -> dict[str, Any]:
    """What the kill at the end of the first run's window left, and what the next ``index``
    made of it: the vectors kept, the words' re-sync, the first new vector."""
    index = _Index(run.vault, data)
    name = model or ""
    left = index.chunks_state(name)
    synced = index.last_sync()
    log("restarting the index killed while embedding")
    child = run.start(data, "index")
    _wait(child, "before the re-sync", lambda: index.last_sync() != synced)
    resynced = child.since()
    _wait(
        child,
        "before a new vector was stored",
        lambda: index.chunks_state(name)["vectors"] > left["vectors"],
        exits=True,
    )
    new_vector = child.since()
    resumed = index.chunks_state(name)
    if child.proc.poll() is None:
        child.kill()
    after = index.chunks_state(name)
    return {
        "atKill": left,
        "accounted": left["vectors"] + left["pending"] == left["texts"],
        "resyncSeconds": round(resynced, 1),
        "firstNewVectorSeconds": round(new_vector, 1),
        "kept": resumed["vectors"] >= left["vectors"],
        "afterSecondKill": after,
        "accountedAfter": after["vectors"] + after["pending"] == after["texts"],
    }


def _resume_words(
    run: _Run, data: Path, fraction: float, reference: dict[str, Any]
) -> dict[str, Any]:
    """``index`` on a fresh data folder killed once ``fraction`` of the notes are written, then
    started again until its words are in: what it found written, and the index against the
    clean one."""
    index = _Index(run.vault, data)
    target = max(1, int(reference["notes"] * fraction))
    log(f"killing a fresh index at {fraction:.0%} of its word index")
    child = run.start(data, "index")
    _wait(child, "before the kill", lambda: index.count("notes") >= target, exits=True)
    child.kill()
    written = index.count("notes")
    synced = index.last_sync()  # set if the kill came after the sync's end (a small vault)
    child = run.start(data, "index")
    _wait(child, "resuming the word index", lambda: index.last_sync() != synced)
    resumed = child.since()
    child.kill()  # in the embedding, or just before it: a kill that loses nothing either
    contents = index.contents()
    return {
        "fraction": fraction,
        "notesAtKill": written,
        "resumeSeconds": round(resumed, 1),
        "sameAsClean": {
            key: contents.get(key) == value
            for key, value in reference.items()
            if key != "ftsSegments"
        },
        "ftsSegments": contents.get("ftsSegments"),
    }


def _mb(value: int) -> str:
    return f"{value / 1e6:,.0f} MB"


def format_first_hour(result: dict[str, Any]) -> str:
    """The figures as ``bench --first-hour`` prints them."""
    vault, words, embedding = result["vault"], result["words"], result["embedding"]
    lines = [
        f"vault: {vault['notes']:,} notes, {vault['bytes'] / 1e6:,.0f} MB "
        f"(median note {vault['medianNoteBytes']:,} bytes, largest {vault['largestNoteBytes']:,})",
        f"first lexical answer: {words['firstAnswerSeconds']:.1f} s (a search started when the "
        f"first notes were in, at {words['firstNotesSeconds']:.1f} s: "
        f"{words['firstAnswerHits']} hits for {result['query']!r})",
        f"every note searchable by words: {words['searchableSeconds']:.1f} s "
        f"({'pass' if words['searchableSeconds'] <= words['budgetSeconds'] else 'FAIL'}, "
        f"budget {words['budgetSeconds']:g} s; a search then: {words['answerHits']} hits at "
        f"{words['answerSeconds']:.1f} s); peak RSS by then {_mb(words['peakRssBytes'])}",
        f"embedding ({result['model']}): first vector at {embedding['firstVectorSeconds']:.1f} s; "
        f"{embedding['embedded']:,} of {embedding['chunkTexts']:,} chunk texts after "
        f"{embedding['watchedSeconds']:.0f} s watched, {embedding['rate']:.1f}/s"
        + (
            f", about {embedding['hoursLeft']:.1f} h left"
            if embedding["hoursLeft"] is not None
            else ""
        ),
        f"peak RSS while embedding: {_mb(embedding['peakRssBytes'])} "
        f"({'pass' if embedding['peakRssBytes'] <= embedding['budgetBytes'] else 'FAIL'}, "
        f"budget {_mb(embedding['budgetBytes'])})",
    ]
    killed = result["killedWhileEmbedding"]
    at = killed["atKill"]
    lines.append(
        f"kill -9 while embedding: {at['vectors']:,} vectors kept, {at['pending']:,} pending of "
        f"{at['texts']:,} ({'all accounted for' if killed['accounted'] else 'NOT accounted for'});"
        f" the next index re-synced in {killed['resyncSeconds']:.1f} s, stored its first new "
        f"vector at {killed['firstNewVectorSeconds']:.1f} s"
        + ("" if killed["accountedAfter"] else "; NOT accounted for after the second kill")
    )
    for kill in result["killedInWords"]:
        same = kill["sameAsClean"]
        differs = [key for key, ok in same.items() if not ok]
        lines.append(
            f"kill -9 at {kill['fraction']:.0%} of the word index: {kill['notesAtKill']:,} notes "
            f"written; the next index had every note searchable in {kill['resumeSeconds']:.1f} s; "
            + ("same as a clean index" if not differs else f"DIFFERS in {', '.join(differs)}")
            + f"; {kill['ftsSegments']} word-index segment(s)"
        )
    return "\n".join(lines)
