"""The embedding queue of the live index: vectors for the chunks that have none, in the
background.

The queue is the database (chunks without a vector for the model), so a crash loses nothing.
Notes the writer just added or changed go first, newest first; the rest follows in chunk order,
a batch at a time, each batch its own short transaction on the queue's own connection.  A model
that fails is retried with exponential back-off, and so is a database that cannot take the
vectors for now (busy, a full disk: see :mod:`explorer.live.problems`); a bug stops the queue
and says so.  The writer never waits for it: lexical results of a save are searchable after the
batch delay, whatever the embedder is doing.

Between two batches the queue holds while it is paused (:meth:`EmbeddingQueue.pause`, the
window's Pause Embedding, ``watch``'s SIGUSR1) or while the machine runs on battery
(:mod:`explorer.live.power`): it waits on an event, using no CPU, and says so in its health
(:attr:`EmbeddingState.PAUSED`).  Its rate is measured over the last batches
(:mod:`explorer.live.progress`), a pause left out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from explorer.embed.base import Embedder, EmbedderUnavailable
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.embed.threads import lower_this_thread
from explorer.index.db import IndexDB, connect
from explorer.index.embedding import NO_VECTOR, pending_count, pending_counts, store_vectors
from explorer.live import power
from explorer.live.events import EmbedDone, ErrorEvent, EventLog, NoticeEvent, VectorsStored
from explorer.live.health import EmbeddingHealth, EmbeddingState, paused_text
from explorer.live.problems import Problem, diagnose, log_problem
from explorer.live.progress import RateMeter, progress_text, searchable_text

log = logging.getLogger(__name__)

#: Chunks per embedding call.  The model is shared with query embedding (one call at a time), so
#: a batch is what a search typed meanwhile, or a note just saved, may have to wait for: 16 short
#: chunks take ~1 s on a slow 2-core laptop, and larger batches are barely faster per chunk.
EMBED_BATCH = 16
#: How often, at most, a run recounts the chunks still waiting (seconds).
RECOUNT_EVERY = 1.0
#: Notes saved recently are embedded before the backlog, newest first: how many are looked up
#: per embedding batch, and how many are remembered (the others wait in the chunk-order pass).
_HOT_LOOKUP = 64
_HOT_MAX = 2000
#: Why the queue holds when the user paused it (its health then has no reason: "embedding
#: paused" says it all).
_BY_USER = "paused"


@dataclass(frozen=True, slots=True)
class _Pending:
    hash: str
    text: str
    path: str
    note_id: int
    seq: int


_PENDING_SQL = (
    "SELECT c.hash, c.text, n.path, c.note_id, c.seq FROM chunks c "
    "JOIN notes n ON n.id = c.note_id "
    f"WHERE {{where}} AND {NO_VECTOR} "
    "ORDER BY c.note_id, c.seq LIMIT ?"
)


class EmbeddingQueue:
    """Embeds what the writer committed, on its own thread, once the writer has opened the
    index (``opened``; ``open_error()`` says whether that failed).  Its health goes to
    ``report`` at every change; ``stored`` is called after each batch of vectors committed.

    ``clock`` times the batches for the rate (tests give their own); ``battery`` tells whether
    the machine runs on battery (default :func:`explorer.live.power.on_battery`), asked at most
    every ``battery_every`` seconds of ``clock``; ``embed_on_battery`` (default: the
    environment's ``VAULT_EXPLORER_EMBED_ON_BATTERY``) keeps embedding on battery."""

    def __init__(
        self,
        db_path: Path,
        vault: Path,
        provider: EmbedderProvider,
        events: EventLog,
        *,
        stop: threading.Event,
        opened: threading.Event,
        open_error: Callable[[], str | None],
        report: Callable[[EmbeddingHealth], None],
        stored: Callable[[], None],
        batch: int = EMBED_BATCH,
        retry_delay: float = 1.0,
        max_retry_delay: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        battery: power.BatteryCheck | None = None,
        battery_every: float = power.BATTERY_EVERY,
        embed_on_battery: bool | None = None,
    ) -> None:
        self.db_path = db_path
        self.vault = vault
        self.provider = provider
        self.events = events
        self.batch = batch
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self._stop = stop
        self._opened = opened
        self._open_error = open_error
        self._report = report
        self._stored = stored
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._hot: dict[str, None] = {}  # notes added or changed by batches, newest last
        self._dirty = True
        self._idle = False
        self._health = EmbeddingHealth(EmbeddingState.IDLE, provider.name)
        self._clock = clock
        self._meter = RateMeter(clock=clock)
        #: The last count of :meth:`_counts`: (when, chunks done then, waiting, notes waiting,
        #: notes).
        self._counted: tuple[float, int, int, int, int] | None = None
        self._battery = power.on_battery if battery is None else battery
        self._battery_every = battery_every
        self._battery_allowed = (
            power.embed_on_battery() if embed_on_battery is None else embed_on_battery
        )
        self._battery_seen: tuple[float, bool | None] | None = None  # (clock, on battery)
        self._user_paused = False
        #: Set when the loop, holding between two batches, should look again whether it may go
        #: on (a resume, a wake-up, the stop); it waits on nothing else while paused.
        self._recheck = threading.Event()

    # ------------------------------------------------------------------ seen from the writer

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="live-embedder", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()
        self._recheck.set()

    def pause(self) -> None:
        """Hold embedding after the batch under way (if any) until :meth:`resume`."""
        self.set_paused(True)

    def resume(self) -> None:
        self.set_paused(False)

    def set_paused(self, paused: bool) -> None:
        with self._lock:
            self._user_paused = paused
        self._recheck.set()

    @property
    def paused(self) -> bool:
        """Whether the user paused embedding (the battery may hold it too: see the health)."""
        with self._lock:
            return self._user_paused

    def join(self, timeout: float) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout)

    def changed(self, paths: list[str] | None = None, *, saved: bool = False) -> None:
        """New chunks were committed (of ``paths``; ``saved``: by a batch of the watcher, so
        what the user just saved goes before any backlog)."""
        with self._lock:
            self._dirty, self._idle = True, False
            if saved:
                for path in paths or ():
                    self._hot.pop(path, None)
                    self._hot[path] = None
                while len(self._hot) > _HOT_MAX:
                    del self._hot[next(iter(self._hot))]
        self._wake.set()

    @property
    def idle(self) -> bool:
        """Nothing left to embed, or no model to embed it."""
        with self._lock:
            return self._idle or self._health.finished

    @property
    def health(self) -> EmbeddingHealth:
        with self._lock:
            return self._health

    # ------------------------------------------------------------------ the thread

    def _set(self, **fields: Any) -> None:
        with self._lock:
            self._health = health = replace(self._health, **fields)
        self._report(health)

    def _run(self) -> None:
        lower_this_thread()  # a search's question, the window and the machine go first
        if self.provider.state is ModelState.DISABLED:
            self._set(state=EmbeddingState.OFF, reason=self.provider.error)
            return
        while not self._opened.wait(0.5):
            if self._stop.is_set():
                return
        if self._open_error() is not None:
            return
        embedder = self._await_model()
        if embedder is None:
            return
        db: IndexDB | None = None
        try:
            db = IndexDB(connect(self.db_path), self.db_path, self.vault)
            self._loop(db, embedder)
        except Exception as exc:
            problem = diagnose(exc, self.db_path)
            log_problem(log, problem, "embedding stopped")
            reason = f"embedding stopped: {problem.message}"
            problem = Problem(problem.kind, reason)
            self._set(state=EmbeddingState.UNAVAILABLE, reason=reason, problem=problem)
            self.events.emit(ErrorEvent, reason)
        finally:
            if db is not None:
                db.close()
            if not self.health.finished:
                self._set(state=EmbeddingState.STOPPED)

    def _await_model(self) -> Embedder | None:
        while not self._stop.is_set():
            try:
                embedder = self.provider.get(timeout=0.5)
            except EmbedderUnavailable as exc:
                if self.provider.state in (ModelState.FAILED, ModelState.DISABLED):
                    self._set(state=EmbeddingState.UNAVAILABLE, reason=str(exc))
                    self.events.emit(NoticeEvent, f"vectors are not being updated: {exc}")
                    return None
                self._set(state=EmbeddingState.LOADING, reason=str(exc))
                continue
            self._set(state=EmbeddingState.IDLE, reason=None, model=embedder.name)
            return embedder
        return None

    def _loop(self, db: IndexDB, embedder: Embedder) -> None:
        cursor = (-1, -1)
        failures = 0
        run_started: float | None = None
        done = 0
        while not self._stop.is_set():
            self._wake.clear()
            with self._lock:
                self._dirty = False
            rows, cursor_after = self._next_rows(db, embedder.name, cursor)
            if not rows:
                cursor = (-1, -1)
                if run_started is not None:
                    seconds = self._clock() - run_started
                    rate = done / seconds if seconds > 0 else 0.0
                    self._set(state=EmbeddingState.IDLE, total=done, rate=rate, note="")
                    self.events.emit(
                        EmbedDone,
                        f"embedded {done} chunks in {seconds:.1f}s ({rate:.0f}/s)",
                        done=done,
                    )
                    run_started, done = None, 0
                with self._lock:
                    self._idle = not self._dirty
                self._wake.wait(5.0)
                continue
            with self._lock:
                self._idle = False
            if run_started is None:
                run_started = self._clock()
                done = 0
                self._meter.restart(0)
                total = pending_count(db, embedder.name)
                self._set(state=EmbeddingState.EMBEDDING, done=0, total=total, rate=0.0)
            why = self._why_paused()
            if why is not None:
                held = self._hold(db, embedder.name, done, why)
                if held is None:
                    return  # stopping
                run_started += held  # the run's rate leaves the pause out
                continue  # what to embed may have changed meanwhile: look again
            try:
                matrix = embedder.embed([r.text for r in rows])
                if matrix.shape != (len(rows), embedder.dimension):
                    raise ValueError(
                        f"embedder returned shape {matrix.shape}, "
                        f"expected {(len(rows), embedder.dimension)}"
                    )
            except Exception as exc:
                failures += 1
                delay = min(self.max_retry_delay, self.retry_delay * 2 ** (failures - 1))
                reason = f"embedding failed ({type(exc).__name__}: {exc}); retry in {delay:g} s"
                self._set(state=EmbeddingState.RETRYING, reason=reason)
                self.events.emit(ErrorEvent, reason)
                self._stop.wait(delay)
                continue
            try:
                with db.transaction() as conn:
                    store_vectors(conn, embedder.name, [r.hash for r in rows], matrix)
                    db.bump_generation()
            except Exception as exc:
                problem = diagnose(exc, self.db_path)
                if problem.is_bug:
                    raise
                failures += 1
                delay = min(self.max_retry_delay, self.retry_delay * 2 ** (failures - 1))
                reason = f"cannot store vectors: {problem.message}; retry in {delay:g} s"
                log_problem(log, problem, "storing vectors")
                self._set(
                    state=EmbeddingState.RETRYING,
                    reason=reason,
                    problem=Problem(problem.kind, reason),
                )
                self.events.emit(ErrorEvent, reason)
                self._stop.wait(delay)
                continue
            if failures:
                failures = 0
                self._set(state=EmbeddingState.EMBEDDING, reason=None, problem=None)
            if cursor_after is not None:
                cursor = cursor_after
            done += len(rows)
            now_rate = self._meter.add(done)
            self._stored()
            pending, waiting_notes, notes = self._counts(db, embedder.name, done)
            total = done + pending
            paths = list(dict.fromkeys(r.path for r in rows))
            self._set(done=done, total=total, rate=now_rate or 0.0, note=paths[-1])
            self.events.emit(
                VectorsStored,
                f"embedded {progress_text(done, total, now_rate, 'chunks')}; "
                f"{searchable_text(max(0, notes - waiting_notes), notes)}; {paths[-1]}",
                touched=frozenset(paths),
            )

    def _counts(self, db: IndexDB, model: str, done: int) -> tuple[int, int, int]:
        """Chunks still waiting, notes with a chunk waiting, and notes: counted over the index
        at most once every :data:`RECOUNT_EVERY` seconds (a count reads every chunk; a batch
        is 16), in between the chunks embedded since taken off the last count."""
        now = self._clock()
        last = self._counted
        if last is None or now - last[0] >= RECOUNT_EVERY or done < last[1]:
            pending, waiting_notes = pending_counts(db, model)
            notes = int(db.conn.execute("SELECT count(*) FROM notes").fetchone()[0])
            self._counted = last = (now, done, pending, waiting_notes, notes)
        _, done_then, pending, waiting_notes, notes = last
        return max(0, pending - (done - done_then)), waiting_notes, notes

    # ------------------------------------------------------------------ pausing

    def _why_paused(self) -> str | None:
        """Why embedding holds now (:data:`_BY_USER`, or the battery's reason), or ``None``."""
        with self._lock:
            if self._user_paused:
                return _BY_USER
        if self._battery_allowed:
            return None
        now = self._clock()
        seen = self._battery_seen
        if seen is None or now - seen[0] >= self._battery_every:
            try:
                state = self._battery()
            except Exception:  # a battery that cannot be read is no reason to hold
                log.exception("reading the battery state")
                state = None
            self._battery_seen = seen = (now, state)
        return power.battery_pause(seen[1], self._battery_allowed)

    def _hold(self, db: IndexDB, model: str, done: int, why: str) -> float | None:
        """Wait between two batches while embedding is paused (``why``), saying so; returns
        the seconds held (of the clock), or ``None`` if the queue is stopping meanwhile."""
        started = self._clock()
        holding: str | None = why
        said: str | None = None
        while holding is not None:
            if self._stop.is_set():
                return None
            if holding != said:
                reason = None if holding == _BY_USER else holding
                total = done + pending_count(db, model)
                self._set(state=EmbeddingState.PAUSED, reason=reason, total=total, rate=0.0)
                self.events.emit(NoticeEvent, paused_text(reason))
                said = holding
            self._recheck.clear()
            if self._why_paused() == holding:  # looked at after the clear: no resume is missed
                # Paused by the user, only a resume (or the stop) wakes the queue; on battery,
                # the battery is asked again now and then.
                self._recheck.wait(None if holding == _BY_USER else max(1.0, self._battery_every))
            holding = self._why_paused()
        if self._stop.is_set():
            return None
        self._set(state=EmbeddingState.EMBEDDING, reason=None)
        self.events.emit(NoticeEvent, "embedding resumed")
        self._meter.restart(done)
        return self._clock() - started

    def _next_rows(
        self, db: IndexDB, model: str, cursor: tuple[int, int]
    ) -> tuple[list[_Pending], tuple[int, int] | None]:
        """The next batch of chunk texts to embed, and where the chunk-order pass stands after
        it (``None`` if the batch came from recently changed notes, which go first)."""
        with self._lock:
            hot = list(self._hot)[-_HOT_LOOKUP:]
        if hot:
            marks = ",".join("?" * len(hot))
            rows = self._pending(db, f"n.path IN ({marks})", [*hot], model)
            if len(rows) < self.batch:  # every hot note not in ``rows`` is fully embedded
                still = {r.path for r in rows}
                with self._lock:
                    for path in hot:
                        if path not in still:
                            self._hot.pop(path, None)
            if rows:
                return rows, None
        rows = self._pending(db, "(c.note_id, c.seq) > (?, ?)", [*cursor], model)
        if not rows and cursor != (-1, -1):  # the end of a pass: look again from the start
            rows = self._pending(db, "(c.note_id, c.seq) > (?, ?)", [-1, -1], model)
        if not rows:
            return [], None
        return rows, (rows[-1].note_id, rows[-1].seq)

    def _pending(self, db: IndexDB, where: str, params: list[Any], model: str) -> list[_Pending]:
        sql = _PENDING_SQL.format(where=where)
        rows = db.conn.execute(sql, (*params, model, self.batch)).fetchall()
        seen: set[str] = set()
        out = []
        for digest, text, path, note_id, seq in rows:
            if digest not in seen:  # the same text in two chunks is embedded once
                seen.add(digest)
                out.append(_Pending(digest, text, path, note_id, seq))
        return out
