"""The writer of the live index: it owns the index, supervises the watcher, applies its batches.

The writer opens the index, starts the watcher, reconciles the whole vault with a stat scan
(``sync_vault``), then applies the watcher's batches one targeted sync each, and reconciles again
every ``reconcile_interval`` seconds (sooner while the watcher is degraded) so that missed events
cannot make the index drift for long.  The watcher starts *before* the first reconcile, so a file
saved during it is not missed.  While another process holds the writer lease, it only follows
what that process writes, and takes over when it ends.

:class:`LiveIndex` is what the window and ``watch`` use: this writer, the embedding queue
(:mod:`explorer.live.embedder`) and the event log (:mod:`explorer.live.events`) together.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.embed.provider import EmbedderProvider
from explorer.home import expand_home
from explorer.index.db import IndexDB, IndexUnavailable, connect, index_path
from explorer.index.lease import Holder, IndexHeld, WriterLease, holder
from explorer.index.sync import SyncReport, sync_vault
from explorer.live.embedder import EMBED_BATCH, EmbeddingQueue
from explorer.live.events import (
    EmbedDone,
    ErrorEvent,
    EventLog,
    LiveEvent,
    NoticeEvent,
    SyncEvent,
    WatcherEvent,
)
from explorer.live.health import (
    Health,
    HealthBoard,
    LastBatch,
    WatcherHealth,
    WatcherState,
    count,
)
from explorer.live.power import BatteryCheck
from explorer.live.problems import Problem, diagnose, log_problem
from explorer.live.state import persist_watcher
from explorer.vault.watch import DEFAULT_MAX_WAIT, DEFAULT_QUIET, Batch, VaultWatcher, WatchError

log = logging.getLogger(__name__)

#: Seconds between attempts to start a failed watcher again.
RESTART_DELAY = 30.0
#: While the watcher is degraded, reconcile at least this often.
DEGRADED_RECONCILE = 60.0
#: While another process holds the writer lease: how often to look for its changes, and
#: whether it has gone (then this one takes over).
READER_POLL = 1.0
#: During a long sync, the counts shown are read again at most this often (seconds).
RECOUNT_EVERY = 1.0


class _Stopping(Exception):
    """Raised from the sync progress callback: stop between two committed transactions."""


class LiveIndex:
    """Keeps the index of ``vault`` current: the single writer of that index in this process."""

    def __init__(
        self,
        vault: Path,
        data_dir: str | os.PathLike[str] | None,
        provider: EmbedderProvider,
        *,
        watch: bool = True,
        reconcile_interval: float = 300.0,
        quiet: float = DEFAULT_QUIET,
        max_wait: float = DEFAULT_MAX_WAIT,
        embed_batch: int = EMBED_BATCH,
        retry_delay: float = 1.0,
        max_retry_delay: float = 60.0,
        role: str = "the vault-explorer window",
        share: bool = True,
        battery: BatteryCheck | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``role`` names this process to another that finds the index taken.  With ``share``,
        an index another process is writing is read (state :attr:`WatcherState.READER`) until
        that process ends, then taken over; without it, that is an error (``watch``).
        ``battery`` and ``clock`` go to the embedding queue (:class:`EmbeddingQueue`: whether
        the machine runs on battery, the time its rate is measured by)."""
        if reconcile_interval <= 0:
            raise ValueError(f"reconcile interval must be positive, got {reconcile_interval:g}")
        self.vault = expand_home(vault).resolve()
        self.data_dir = data_dir
        self.provider = provider
        self.reconcile_interval = reconcile_interval
        self.role = role
        self.share = share
        self._db_path = index_path(self.vault, data_dir)
        self._watcher = VaultWatcher(self.vault, quiet=quiet, max_wait=max_wait) if watch else None
        self._stop = threading.Event()
        self._opened = threading.Event()  # set once the writer opened the index (or failed to)
        #: Set once the index holds the vault as it was at the start (the start-up reconcile
        #: done here, or another process keeps the index), or the writer gave up.
        self._caught_up = threading.Event()
        self._reconcile = threading.Event()
        self._wake = threading.Event()  # wakes the writer when there is no watcher
        self._lock = threading.Lock()
        self._events = EventLog()
        self._writer: threading.Thread | None = None
        self._embedder = EmbeddingQueue(
            self._db_path,
            self.vault,
            provider,
            self._events,
            stop=self._stop,
            opened=self._opened,
            open_error=lambda: self._open_error,
            report=lambda embedding: self._board.post(embedding=embedding),
            stored=self._request_count,
            batch=embed_batch,
            retry_delay=retry_delay,
            max_retry_delay=max_retry_delay,
            battery=battery,
            clock=clock,
        )
        # Writer state (written by the writer thread, read by any).
        self._state = WatcherState.STOPPED
        self._reason: str | None = None
        self._open_error: str | None = None
        self._problem: Problem | None = None  # what keeps the writer from following the vault
        self._other: Holder | None = None  # who writes the index while this one reads it
        self._initial_done = False
        self._busy = False
        self._sync_failures = 0
        self._sync_degraded = False  # DEGRADED because syncs fail, not because of the watcher
        self._last_batch: LastBatch | None = None
        self._recounted = 0.0  # time.monotonic() of the last count during a sync
        self._persist_wanted = False  # the state to write down again (a pause, a resume)
        self._counts_wanted = 0  # requests to count again (the embedder stored vectors) …
        self._counts_done = 0  # … and how many of them the counts shown have seen
        self._db: IndexDB | None = None  # the writer's connection, while it has one
        self._board = HealthBoard(
            Health(
                str(self.vault),
                str(self._db_path),
                watcher=self._watcher_health(),
                embedding=self._embedder.health,
            )
        )

    # ------------------------------------------------------------------ public API

    @property
    def db_path(self) -> Path:
        return self._db_path

    @property
    def state(self) -> WatcherState:
        return self._state

    @property
    def state_reason(self) -> str | None:
        return self._reason

    @property
    def running(self) -> bool:
        """Whether the writer thread is alive (it ends on :meth:`stop` or if the index cannot
        be opened: see :attr:`state_reason`)."""
        return self._writer is not None and self._writer.is_alive()

    def start(self) -> None:
        """Start the writer and the embedder in the background; returns at once."""
        if self._writer is not None:
            raise RuntimeError("this live index was already started")
        self.provider.start()
        self._set_state(WatcherState.STARTING, None, persist=None)
        self._writer = threading.Thread(target=self._run_writer, name="live-writer", daemon=True)
        self._writer.start()
        self._embedder.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop watching and embedding.  The writer finishes the transaction it is in (a sync is
        interrupted between two committed transactions), so the index stays consistent."""
        self._stop.set()
        self._caught_up.set()  # nothing more will be caught up: nobody waits for it
        if self._watcher is not None:
            self._watcher.kick()
        self._wake.set()
        self._embedder.wake()
        deadline = time.monotonic() + timeout
        if self._writer is not None and self._writer.is_alive():
            self._writer.join(max(0.0, deadline - time.monotonic()))
        self._embedder.join(max(0.0, deadline - time.monotonic()))

    def pause_embedding(self, paused: bool = True) -> None:
        """Hold embedding after the batch under way (``paused``), or let it go on; its health
        says "paused" meanwhile.  Lexical updates go on either way."""
        self._embedder.set_paused(paused)
        with self._lock:  # for another process's ``status``: the writer writes it down
            self._persist_wanted = True
        self._wake.set()
        if self._watcher is not None:
            self._watcher.kick()

    @property
    def embedding_paused(self) -> bool:
        """Whether embedding was paused with :meth:`pause_embedding`."""
        return self._embedder.paused

    def wait_opened(self, timeout: float) -> bool:
        """Wait until the writer has opened the index (created, migrated or rebuilt it) or
        failed to (:attr:`open_error` says why); ``False`` if neither happened within
        ``timeout`` (the writer may be waiting for another process's lease: then that process
        keeps the index)."""
        return self._opened.wait(timeout)

    @property
    def caught_up(self) -> bool:
        """Whether the index holds the vault as it was when this started (see
        :meth:`wait_caught_up`)."""
        return self._caught_up.is_set()

    def wait_caught_up(self, timeout: float) -> bool:
        """Wait until the start-up reconcile has run (on a new index: the whole vault is in
        it), another process is found to keep the index, or the writer gave up; ``False`` if
        none happened within ``timeout``.  What a search of the index waits for to answer as
        one that synced first would."""
        return self._caught_up.wait(timeout)

    @property
    def open_error(self) -> str | None:
        """Why the writer could not open the index, once it gave up."""
        return self._open_error

    def subscribe(self, callback: Callable[[LiveEvent], None]) -> Callable[[], None]:
        """Call ``callback`` with every event from now on (on a background thread); returns a
        function that unsubscribes it."""
        return self._events.subscribe(callback)

    def events(self) -> list[LiveEvent]:
        """The most recent events, oldest first (for a log shown after the fact)."""
        return self._events.events()

    def request_reconcile(self) -> None:
        """Ask for a full stat-scan reconcile as soon as the writer is free."""
        self._reconcile.set()
        self._wake.set()
        if self._watcher is not None:
            self._watcher.kick()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no batch is pending or being applied and the embedding queue is empty (or
        there is no model to empty it), and :meth:`health` counts what was done; ``False`` if
        that did not happen within ``timeout``.

        Events the operating system has not delivered yet cannot be waited for: after writing
        files, wait for their effect rather than for idleness alone.
        """
        deadline = time.monotonic() + timeout
        while not self._idle():
            if time.monotonic() >= deadline or (self._writer is not None and not self.running):
                return self._idle()
            self._stop.wait(0.02)
        return True

    def health(self) -> Health:
        """The latest health: index counts, watcher state, last batch and embedding progress
        (in memory: the writer and the embedder keep it current).  Safe from any thread."""
        return self._board.current

    def subscribe_health(self, callback: Callable[[Health], None]) -> Callable[[], None]:
        """Call ``callback`` with every new :class:`Health` from now on (on a background
        thread); returns a function that unsubscribes it.  Read :meth:`health` after
        subscribing for the state before."""
        return self._board.subscribe(callback)

    # ------------------------------------------------------------------ events

    def _event(self, kind: type[LiveEvent], message: str, **fields: Any) -> None:
        self._events.emit(kind, message, **fields)

    def _idle(self) -> bool:
        if self._state is WatcherState.READER:
            return True  # another process does the work; this one has nothing pending
        with self._lock:
            if not self._initial_done or self._busy or self._sync_failures:
                return False
            behind = self._counts_done != self._counts_wanted  # the health is not current yet
        if behind and self.running:
            return False
        embedding_done = self._embedder.idle
        if self._reconcile.is_set():
            return False
        return embedding_done and (self._watcher is None or self._watcher.idle)

    # ------------------------------------------------------------------ writer thread

    def _set_state(self, state: WatcherState, reason: str | None, persist: IndexDB | None) -> None:
        changed = (state, reason) != (self._state, self._reason)
        with self._lock:
            self._state, self._reason = state, reason
        self._board.post(watcher=self._watcher_health())
        if persist is not None:
            self._persist(persist)
        if changed and state is not WatcherState.STARTING:
            self._event(WatcherEvent, f"watcher {state.value}" + (f": {reason}" if reason else ""))

    def _watcher_health(self) -> WatcherHealth:
        """The state, and who keeps the index current: the other process while this one only
        reads, else this one."""
        other = self._other if self._state is WatcherState.READER else None
        if other is not None:
            return WatcherHealth(self._state, self._reason, other.pid, other.role, self._problem)
        return WatcherHealth(self._state, self._reason, os.getpid(), self.role, self._problem)

    def _set_problem(self, problem: Problem | None) -> None:
        with self._lock:
            self._problem = problem
        self._board.post(watcher=self._watcher_health())

    def _count(self, db: IndexDB) -> None:
        """Read the index's counts on ``db`` and show them.  Only the writer thread counts (on
        its connection, or on the reader's), so counts are shown in the order they were read."""
        with self._lock:
            wanted = self._counts_wanted
        try:
            counts = count(db, self.provider.name)
        except sqlite3.Error as exc:
            problem = diagnose(exc, self._db_path)
            log_problem(log, problem, "counting the index")
            self._board.post(
                error=Problem(problem.kind, f"cannot read the index: {problem.message}")
            )
        else:
            self._board.post(index=counts, error=None)
        with self._lock:
            self._counts_done = max(self._counts_done, wanted)

    def _request_count(self) -> None:
        """Ask the writer to count again when it is free (the embedder stored vectors)."""
        with self._lock:
            self._counts_wanted += 1
        self._wake.set()
        if self._watcher is not None:
            self._watcher.kick()

    def _persist(self, db: IndexDB) -> None:
        """Write the watcher's state where another process's ``status`` can read it."""
        with self._lock:
            self._persist_wanted = False
        paused = self._embedder.paused
        persist_watcher(db, self._state, self._reason, self._last_batch, paused)

    def _run_writer(self) -> None:
        try:
            lease = self._take_lease()
            if lease is None:
                return
            try:
                self._run_owner(lease)
            finally:
                lease.release()
        except Exception as exc:  # outside the writer loop, which reports its own
            self._fail_open("the index writer could not start", exc)

    def _take_lease(self) -> WriterLease | None:
        """The index's writer lease; while another process holds it, read what it writes."""
        seen_generation: int | None = None
        seen_ns = time.time_ns()
        while not self._stop.is_set():
            try:
                lease = WriterLease.try_acquire(self._db_path, self.role)
            except IndexUnavailable as exc:
                self._fail_open(None, exc)  # says what it was doing, and what to do
                return None
            if lease is not None:
                if self._state is WatcherState.READER:
                    self._set_state(WatcherState.STARTING, None, persist=None)
                    self._event(NoticeEvent, "the other writer has gone: this one keeps the index")
                return lease
            other = holder(self._db_path) or Holder(None, "another process", "", None)
            if not self.share:
                self._fail_open(None, IndexHeld(self._db_path, other, self.role))
                return None
            self._other = other
            self._set_state(
                WatcherState.READER,
                f"{other.describe()} keeps this index current; here it is only read",
                persist=None,
            )
            self._caught_up.set()
            seen_generation, seen_ns = self._follow(seen_generation, seen_ns)
            self._stop.wait(READER_POLL)
        return None

    def _follow(self, generation: int | None, since_ns: int) -> tuple[int | None, int]:
        """Publish what the writer in another process changed since the last look."""
        if not self._db_path.exists():
            return generation, since_ns
        now_ns = time.time_ns()
        try:
            conn = connect(self._db_path, readonly=True)
            try:
                db = IndexDB(conn, self._db_path, self.vault)
                current = db.generation()
                changed = [
                    str(p)
                    for (p,) in conn.execute(
                        "SELECT path FROM notes WHERE indexed_ns >= ?", (since_ns,)
                    )
                ]
                if current != generation:
                    self._board.post(index=count(db, self.provider.name), error=None)
            finally:
                conn.close()
        except sqlite3.Error:
            return generation, since_ns  # mid-creation, or it is being rebuilt: next time
        if generation is not None and current != generation:
            message = "the index was updated by the process that keeps it"
            if changed:
                self._event(SyncEvent, message, touched=frozenset(changed))
            else:  # vectors arrived, or notes were deleted
                self._event(EmbedDone, message)
        return current, now_ns

    def _fail_open(self, doing: str | None, exc: Exception) -> None:
        """The writer cannot go on: say why (what it was ``doing``, and the problem)."""
        problem = diagnose(exc, self._db_path)
        log_problem(log, problem, doing or "the index writer")
        message = f"{doing}: {problem.message}" if doing else problem.message
        self._open_error = message
        self._opened.set()
        self._caught_up.set()
        with self._lock:
            self._problem = Problem(problem.kind, message)
        self._set_state(WatcherState.STOPPED, message, persist=None)
        self._event(ErrorEvent, message)

    def _run_owner(self, lease: WriterLease) -> None:
        try:
            db = IndexDB.open_writer(lease, self.vault, self.data_dir)
        except Exception as exc:
            self._fail_open("cannot open the index", exc)
            return
        self._db = db
        self._opened.set()
        for notice in db.notices:
            self._event(NoticeEvent, notice)
        final_reason = None
        try:
            self._writer_loop(db)
        except _Stopping:
            pass
        except Exception as exc:  # the machine, or a bug: the index stays as the last commit
            problem = diagnose(exc, self._db_path)
            log_problem(log, problem, "the index writer stopped")
            final_reason = f"the index writer stopped: {problem.message}"
            self._set_problem(Problem(problem.kind, final_reason))
            self._event(ErrorEvent, final_reason)
        finally:
            if self._watcher is not None:
                self._watcher.stop()
            self._set_state(WatcherState.STOPPED, final_reason, persist=db)
            self._caught_up.set()
            self._db = None
            db.close()

    def _writer_loop(self, db: IndexDB) -> None:
        self._count(db)  # what the index holds before the start-up reconcile
        next_restart = 0.0
        if self._watcher is not None:
            next_restart = self._start_watcher(db)
        ok = self._full_sync(db, "start-up reconcile")
        with self._lock:
            self._initial_done = True
        self._caught_up.set()
        if self._watcher is None:
            self._set_state(
                WatcherState.STOPPED,
                f"file watching is off; reconciling every {self.reconcile_interval:g} s",
                persist=db,
            )
        elif self._state is WatcherState.STARTING:
            self._set_state(WatcherState.RUNNING, None, persist=db)
        next_reconcile = time.monotonic() + (
            self.reconcile_interval if ok else self._retry_after_failure()
        )
        while not self._stop.is_set():
            if self._counts_done != self._counts_wanted:
                self._count(db)
            if self._persist_wanted:
                self._persist(db)
            now = time.monotonic()
            if self._watcher is not None:
                next_restart = self._check_watcher(db, now, next_restart)
            if self._state is WatcherState.DEGRADED:
                next_reconcile = min(next_reconcile, now + DEGRADED_RECONCILE)
            if self._reconcile.is_set() or now >= next_reconcile:
                ok = self._full_sync(db, "reconcile")
                delay = self.reconcile_interval if ok else self._retry_after_failure()
                next_reconcile = time.monotonic() + delay
                continue
            batch = self._wait_for_batch(min(1.0, next_reconcile - now))
            if batch is None:
                continue
            try:
                if batch.reconcile:
                    ok = self._full_sync(db, "reconcile (events were lost or ignore rules changed)")
                else:
                    ok = self._apply_batch(db, batch)
                if not ok:
                    next_reconcile = time.monotonic() + self._retry_after_failure()
            finally:
                assert self._watcher is not None
                self._watcher.task_done()

    def _wait_for_batch(self, timeout: float) -> Batch | None:
        if self._watcher is None:
            self._wake.wait(max(0.0, timeout))
            self._wake.clear()
            return None
        return self._watcher.next_batch(max(0.0, timeout))

    def _start_watcher(self, db: IndexDB) -> float:
        """Start the observer; returns when to try again if it could not be started."""
        assert self._watcher is not None
        try:
            self._watcher.start()
        except WatchError as exc:
            self._set_state(WatcherState.DEGRADED, self._degraded(str(exc)), persist=db)
            return time.monotonic() + RESTART_DELAY
        return 0.0

    def _check_watcher(self, db: IndexDB, now: float, next_restart: float) -> float:
        assert self._watcher is not None
        if self._watcher.running:
            failure = self._watcher.failure()
            if failure is None:
                return next_restart
            self._watcher.stop()
            self._set_state(WatcherState.DEGRADED, self._degraded(failure), persist=db)
            self._reconcile.set()
            return now + RESTART_DELAY
        if now < next_restart:
            return next_restart
        retry = self._start_watcher(db)
        if retry == 0.0:
            self._set_state(WatcherState.RUNNING, None, persist=db)
            self._reconcile.set()  # whatever happened while it was down
        return retry

    def _degraded(self, reason: str) -> str:
        every = min(self.reconcile_interval, DEGRADED_RECONCILE)
        return f"{reason}; reconciling every {every:g} s instead"

    def _retry_after_failure(self) -> float:
        with self._lock:
            failures = self._sync_failures
        return min(self.reconcile_interval, 2.0 ** min(failures, 8))

    def _sync_progress(self, phase: str, done: int, total: int) -> None:
        if self._stop.is_set():
            raise _Stopping
        if phase == "index" and done:
            # New chunks were committed: the embedder may start on them during a long sync.
            self._embedder.changed()
            if time.monotonic() - self._recounted >= RECOUNT_EVERY and self._db is not None:
                self._recounted = time.monotonic()
                self._count(self._db)  # the counts grow as it goes

    def _full_sync(self, db: IndexDB, why: str) -> bool:
        with self._lock:
            self._busy = True
        self._reconcile.clear()
        try:
            report = sync_vault(db, self._sync_progress)
        except _Stopping:
            raise
        except Exception as exc:
            self._sync_failed(db, why, exc)
            return False
        finally:
            with self._lock:
                self._busy = False
        self._synced(db, report, why, None)
        return True

    def _apply_batch(self, db: IndexDB, batch: Batch) -> bool:
        try:
            report = sync_vault(db, self._sync_progress, paths=batch.paths)
        except _Stopping:
            raise
        except Exception as exc:
            self._sync_failed(db, f"batch of {len(batch.paths)} paths", exc)
            return False
        self._synced(db, report, f"batch of {len(batch.paths)} paths", batch)
        return True

    def _sync_failed(self, db: IndexDB, what: str, exc: Exception) -> None:
        problem = diagnose(exc, self._db_path)
        log_problem(log, problem, f"{what} failed")
        message = f"{what} failed: {problem.message}"
        with self._lock:
            self._sync_failures += 1
        self._reconcile.clear()
        self._set_problem(Problem(problem.kind, message))
        self._event(ErrorEvent, message + "; a full reconcile will follow")
        # The index is not following the vault: the state says so until a sync succeeds.
        if self._state in (WatcherState.RUNNING, WatcherState.STARTING):
            self._sync_degraded = True
            self._set_state(WatcherState.DEGRADED, message, persist=db)

    def _synced(self, db: IndexDB, report: SyncReport, what: str, batch: Batch | None) -> None:
        moved = len(report.renamed)
        last = LastBatch(
            kind="batch" if batch is not None else "reconcile",
            time=time.time(),
            seconds=round(report.seconds, 4),
            paths=len(batch.paths) if batch is not None else None,
            events=batch.events if batch is not None else None,
            latency=round(time.monotonic() - batch.first_event, 4) if batch is not None else None,
            added=len(report.added) - moved,
            changed=len(report.changed),
            moved=moved,
            deleted=len(report.deleted) - moved,
            skipped=len(report.skipped),
            summary=report.summary(),
        )
        fresh = [*report.added, *report.changed]
        with self._lock:
            self._problem = None  # following the vault again
        if self._sync_degraded:
            self._sync_degraded = False
            watching = self._watcher is not None and self._watcher.running
            if self._state is WatcherState.DEGRADED and watching:
                self._set_state(WatcherState.RUNNING, None, persist=None)  # persisted below
        if fresh:  # what the user just saved goes before any backlog
            self._embedder.changed(fresh, saved=batch is not None)
        with self._lock:
            self._sync_failures = 0
            self._last_batch = last
        self._board.post(last_batch=last, watcher=self._watcher_health())
        self._count(db)
        self._persist(db)
        self._event(
            SyncEvent,
            f"{what}: {report.summary()}",
            report=report,
            touched=frozenset(report.touched),
        )
