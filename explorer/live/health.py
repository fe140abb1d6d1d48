"""The health of a live index as a typed value, and the board that keeps it current.

:class:`Health` is one immutable snapshot: the index's counts (:class:`IndexReport`), the
watcher's state, the last batch and the embedding queue's progress.  Its :meth:`Health.to_json`
is what ``vault-explorer status --json`` prints.  Inside a process, the writer and the embedder
post their parts to a :class:`HealthBoard`, which publishes a new snapshot to its subscribers
whenever one changes: nobody has to read the database to find out how the index is doing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from explorer.index.db import IndexDB
from explorer.index.status import IndexReport, NoteWarning, SkippedFile, read_status
from explorer.live.events import Subscribers
from explorer.live.problems import Problem
from explorer.live.progress import progress_text, remaining_seconds


def waiting_text(chunks: int) -> str:
    """How many chunks wait for their vectors: "1 chunk waiting", "8,666 chunks waiting"."""
    chunks = max(0, chunks)
    return f"{chunks:,} chunk{'s' * (chunks != 1)} waiting"


def paused_text(reason: str | None) -> str:
    """What a paused embedding says: "embedding paused", "embedding paused: on battery"."""
    return f"embedding paused: {reason}" if reason else "embedding paused"


class WatcherState(Enum):
    STARTING = "starting"
    RUNNING = "running"
    STOPPED = "stopped"
    DEGRADED = "degraded"
    #: Another process holds the index's writer lease: this one only reads (and takes over
    #: when that process ends).
    READER = "reader"


@dataclass(frozen=True)
class WatcherHealth:
    """The watcher's state and why, and the process that keeps the index current (its pid and
    the role it gave the writer lease, when known).  ``problem`` is what keeps the writer from
    following the vault, as long as it does (its message is also the reason, or in it)."""

    state: WatcherState
    reason: str | None = None
    pid: int | None = None
    role: str | None = None
    problem: Problem | None = None
    #: Whether its owner paused its embedding (``watch``'s SIGUSR1, File ▸ Pause Embedding).
    embedding_paused: bool = False

    def to_json(self) -> dict[str, Any]:
        state = self.state.value
        return {
            "state": state,
            "reason": self.reason,
            "pid": self.pid,
            "role": self.role,
            "embeddingPaused": self.embedding_paused,
        }


@dataclass(frozen=True)
class LastBatch:
    """The last sync the writer applied: a watcher batch or a full reconcile."""

    kind: str  # "batch" | "reconcile"
    time: float
    seconds: float
    paths: int | None  # batches only: paths in the batch, events behind them, save-to-sync
    events: int | None
    latency: float | None
    added: int
    changed: int
    moved: int
    deleted: int
    skipped: int
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "time": self.time,
            "seconds": self.seconds,
            "paths": self.paths,
            "events": self.events,
            "latency": self.latency,
            "added": self.added,
            "changed": self.changed,
            "moved": self.moved,
            "deleted": self.deleted,
            "skipped": self.skipped,
            "summary": self.summary,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LastBatch:
        def number(key: str) -> Any:
            value = data.get(key)
            return value if isinstance(value, int | float) else None

        return cls(
            kind=str(data.get("kind", "batch")),
            time=float(number("time") or 0.0),
            seconds=float(number("seconds") or 0.0),
            paths=number("paths"),
            events=number("events"),
            latency=number("latency"),
            added=int(number("added") or 0),
            changed=int(number("changed") or 0),
            moved=int(number("moved") or 0),
            deleted=int(number("deleted") or 0),
            skipped=int(number("skipped") or 0),
            summary=str(data.get("summary", "")),
        )


class EmbeddingState(Enum):
    IDLE = "idle"  # nothing to embed (or not started yet)
    LOADING = "loading"  # waiting for the model
    EMBEDDING = "embedding"
    #: Held between two batches: by the user (``reason`` ``None``), or on battery (``reason``
    #: :data:`~explorer.live.power.ON_BATTERY`).
    PAUSED = "paused"
    RETRYING = "retrying"  # the model failed: waiting to try again
    STOPPED = "stopped"
    OFF = "off"  # no model on purpose (``--no-embed``)
    UNAVAILABLE = "unavailable"  # no model to be had: it failed to load, or the embedder crashed


@dataclass(frozen=True)
class EmbeddingHealth:
    """The embedding queue: its state, and the current run's progress (``done`` of ``total``
    chunks at ``rate`` a second over the last batches — 0 before there is a rate, and while
    paused —, ``note`` the last one embedded).  ``problem``: what keeps vectors from being
    stored, other than the model (which says so in ``reason``)."""

    state: EmbeddingState
    model: str
    reason: str | None = None
    done: int = 0
    total: int = 0
    rate: float = 0.0
    note: str = ""
    problem: Problem | None = None

    @property
    def finished(self) -> bool:
        """Nothing more will be embedded: the queue is off or has no model."""
        return self.state in (EmbeddingState.OFF, EmbeddingState.UNAVAILABLE)

    @property
    def paused(self) -> bool:
        return self.state is EmbeddingState.PAUSED

    @property
    def progress(self) -> str:
        """The run's progress in words: "1,204 of 9,870 · 14/s · about 10 min left" (the rate
        and the estimate once there is a rate), "embedding paused: on battery · 8,666 chunks
        waiting (1,204 of 9,870 done)" while paused."""
        rate = self.rate if self.rate > 0 and not self.paused else None
        text = progress_text(self.done, self.total, rate)
        if self.paused:
            waiting = waiting_text(self.total - self.done)
            return f"{paused_text(self.reason)} · {waiting} ({text} done)"
        return text

    @property
    def remaining(self) -> float | None:
        """Seconds left at the current rate (``None`` without one, or while paused)."""
        if self.paused or self.state is not EmbeddingState.EMBEDDING:
            return None
        return remaining_seconds(self.done, self.total, self.rate if self.rate > 0 else None)

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state.value,
            "reason": self.reason,
            "model": self.model,
            "done": self.done,
            "total": self.total,
            "rate": self.rate,
            "remainingSeconds": self.remaining,
            "note": self.note,
        }


@dataclass(frozen=True)
class Health:
    """How an index is doing.  ``index`` is ``None`` until it has been read (or when there is
    none yet); ``watcher`` and ``last_batch`` are those of the process that keeps it current;
    ``embedding`` is there only where this process embeds (a live index)."""

    vault: str
    database: str
    index: IndexReport | None = None
    watcher: WatcherHealth | None = None
    last_batch: LastBatch | None = None
    embedding: EmbeddingHealth | None = None
    error: Problem | None = None  # why the index could not be read

    @property
    def problem(self) -> Problem | None:
        """What the user should be told first: the writer's problem, then the embedder's, then
        a failed reading (``None`` when all is well)."""
        for part in (self.watcher, self.embedding):
            if part is not None and part.problem is not None:
                return part.problem
        return self.error

    @property
    def indexed(self) -> bool:
        return self.index is not None

    @property
    def notes(self) -> int:
        return self.index.notes if self.index else 0

    @property
    def vectors(self) -> int:
        return self.index.vectors if self.index else 0

    @property
    def pending_embeddings(self) -> int:
        return self.index.pending_embeddings if self.index else 0

    @property
    def skipped(self) -> tuple[SkippedFile, ...]:
        return self.index.skipped if self.index else ()

    @property
    def warnings(self) -> tuple[NoteWarning, ...]:
        return self.index.warnings if self.index else ()

    @property
    def notices(self) -> tuple[str, ...]:
        return self.index.notices if self.index else ()

    def to_json(self) -> dict[str, Any]:
        """``vault-explorer status --json``: ``indexed`` and the index's fields, then the last
        batch and the watcher, then (in a live index) the embedding queue.  Problems are said
        by the reasons and ``error``."""
        if self.index is None:
            data: dict[str, Any] = {
                "vault": self.vault,
                "database": self.database,
                "indexed": False,
            }
        else:
            data = {"indexed": True, **self.index.to_json()}
        if self.error is not None:
            data["error"] = self.error.message
        if self.watcher is not None:
            data["lastBatch"] = self.last_batch.to_json() if self.last_batch else None
            data["watcher"] = self.watcher.to_json()
        if self.embedding is not None:
            data["embedding"] = self.embedding.to_json()
        return data


def count(db: IndexDB, model: str) -> IndexReport:
    """The counts of ``db`` for ``model``, read in one read transaction (one state of the
    index); skips the checks that read the whole database."""
    db.conn.execute("BEGIN")
    try:
        return read_status(db, model, check_fts=False)
    finally:
        db.conn.execute("ROLLBACK")


class HealthBoard:
    """The parts of a live index's health, as its threads post them, and their subscribers:
    each change makes a new :class:`Health`, published in the order the changes were made."""

    def __init__(self, initial: Health) -> None:
        self._lock = threading.Lock()
        self._publishing = threading.Lock()  # snapshots reach subscribers in the order made
        self._health = initial
        self._subscribers: Subscribers[Health] = Subscribers("a health change")

    @property
    def current(self) -> Health:
        with self._lock:
            return self._health

    def subscribe(self, callback: Callable[[Health], None]) -> Callable[[], None]:
        return self._subscribers.subscribe(callback)

    def post(self, **parts: Any) -> None:
        """Replace some parts (``index``, ``watcher``, ``last_batch``, ``embedding``,
        ``error``); publishes the new snapshot if anything changed."""
        with self._publishing:
            with self._lock:
                health = replace(self._health, **parts)
                if health == self._health:
                    return
                self._health = health
            self._subscribers.publish(health)
