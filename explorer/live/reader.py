"""The read side of an open vault: one thread, one read-only connection, one vector matrix.

Whatever a window reads from its index (the search, the Quality dock's judged queries, the Tune
run, Why Not, Around, the preview's links), and every tool of the MCP server
(:mod:`explorer.mcp.reader`), runs here, as a *job*: a function of a :class:`ReadContext`,
which holds the connection and the vector matrix (loaded once, refreshed when the index's
generation moves).  So a process holds one matrix, however many panels read.

The reader is a one-thread :class:`~explorer.jobs.PriorityExecutor`, and its jobs follow that
executor's rules.  A newer job of a group supersedes the older ones: a queued one is dropped
(its future cancelled), a running one is stopped (its statement interrupted with
``Connection.interrupt()``, a progress handler stops any later statement, and its next
:meth:`ReadContext.checkpoint` raises :class:`Superseded`); a job of no group is never
superseded.  Jobs run most urgent first (:data:`~explorer.jobs.URGENT` before
:data:`~explorer.jobs.NORMAL`), and a long job calls :meth:`ReadContext.checkpoint` between its
steps, which runs any more urgent job queued meanwhile right there, on the same thread and
connection: the window's search never waits for the Quality dock's judged queries.

The connection is opened at the first job with :meth:`IndexDB.open_reader`, which never writes:
while the index is missing or not migrated yet, the reader waits for the live index (the only
writer) to create or migrate it.  No Qt here.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB, IndexNotReady, IndexUnavailable
from explorer.index.migrations import LATEST_VERSION
from explorer.index.vectors import VectorIndex
from explorer.jobs import NORMAL, URGENT, Job, PriorityExecutor, Superseded
from explorer.live.writer import LiveIndex
from explorer.search.fusion.hybrid import EMBED_TIMEOUT_S, Searcher

T = TypeVar("T")

#: SQLite calls the cancellation check every this many virtual-machine steps (about a
#: millisecond of work: often enough to stop promptly, rare enough to cost nothing).
PROGRESS_STEPS = 100_000
#: How often a reader waiting for the writer to create the index looks again (seconds).
WAIT_STEP = 0.05

__all__ = ["NORMAL", "URGENT", "IndexReader", "Job", "ReadContext", "Superseded"]


class ReadContext:
    """What a job reads with: the connection, the shared vector matrix, searchers over both."""

    def __init__(self, reader: IndexReader, db: IndexDB) -> None:
        self._reader = reader
        self.db = db
        self.provider = reader.provider

    def vectors(self, model: str) -> VectorIndex:
        """The matrix of ``model``'s vectors, shared by every job (one model's at a time);
        :meth:`VectorIndex.refresh` keeps it current."""
        return self._reader._vectors_of(model)

    def searcher(
        self,
        *,
        embed_timeout: float = EMBED_TIMEOUT_S,
        wait_for_model: bool = False,
        priority: int | None = None,
    ) -> Searcher:
        """A searcher over this connection and the shared matrix; its query embedding queues at
        the job's own priority unless told otherwise."""
        if priority is None:
            job = self._reader._jobs.current()
            priority = job.priority if job is not None else NORMAL
        return Searcher(
            self.db,
            self.provider,
            wait_for_model=wait_for_model,
            embed_timeout=embed_timeout,
            vectors=self.vectors(self.provider.name),
            priority=priority,
        )

    @property
    def request(self) -> int:
        """The number of the job's request (:attr:`~explorer.jobs.Job.seq`)."""
        job = self._reader._jobs.current()
        assert job is not None
        return job.seq

    def checkpoint(self) -> None:
        """Between two steps of a long job: stop here if a newer job of its group (or closing)
        made it pointless, and run any more urgent job that is waiting."""
        self._reader._jobs.checkpoint()


class IndexReader:
    """One thread that runs read jobs on one read-only connection (see the module): a
    one-thread :class:`~explorer.jobs.PriorityExecutor` that stops a superseded job's statement
    and gives each job the connection."""

    def __init__(
        self,
        open_db: Callable[[], IndexDB],
        provider: EmbedderProvider,
        *,
        writer: LiveIndex | None = None,
        name: str = "index-reader",
        reopen_if_replaced: bool = False,
    ) -> None:
        """``open_db`` opens the read-only connection (:meth:`IndexDB.open_reader`); while it
        says :class:`IndexNotReady`, the reader waits for ``writer`` to create the index.  With
        ``reopen_if_replaced`` (a reader with no writer of its own, whose index another process
        keeps), each job first looks whether the connection still reads the index: when another
        process has rebuilt, deleted or migrated it since, the connection is opened again."""
        self._open_db = open_db
        self.provider = provider
        self._writer = writer
        self._reopen = reopen_if_replaced
        self._jobs = PriorityExecutor(name, on_supersede=self._superseded, on_exit=self._forget)
        self._vectors: VectorIndex | None = None
        self._db: IndexDB | None = None
        self._file: tuple[int, int] | None = None  # the file the connection was opened on
        self._depth = 0  # jobs under way, one inside the other (reader thread)
        self.opened = 0  # connections opened (tests)

    # ------------------------------------------------------------------ asking

    def submit(
        self, fn: Callable[[ReadContext], T], *, group: str | None, priority: int = NORMAL
    ) -> Job[T]:
        """Run ``fn(context)`` on the reader thread; a newer job of ``group`` supersedes this
        one (its future is then cancelled, or ends with :class:`Superseded`); a job of no
        group is never superseded."""
        return self._jobs.submit(self._run, fn, group=group, priority=priority)

    def supersede(self, group: str) -> None:
        """Supersede every job of ``group`` asked for so far, without asking for another."""
        self._jobs.supersede(group)

    @property
    def ran(self) -> dict[str | None, int]:
        """Jobs run to their end, per group (tests)."""
        return self._jobs.ran

    @property
    def cancelled(self) -> int:
        """Jobs stopped under way by a newer one or by closing (tests)."""
        return self._jobs.cancelled

    @property
    def db(self) -> IndexDB | None:
        """The reader's connection once open (only the reader thread uses it; tests look)."""
        return self._db

    @property
    def is_open(self) -> bool:
        return self._db is not None

    def close(self, wait: float | None = None) -> None:
        """Drop what is queued, stop the job under way, close the connection (on the reader
        thread).  Waits at most ``wait`` seconds for that, or not at all."""
        self._jobs.close()
        self._interrupt()
        if wait is not None:
            self._jobs.join(wait)

    @property
    def alive(self) -> bool:
        return self._jobs.alive

    # ------------------------------------------------------------------ the reader thread

    def _run(self, fn: Callable[[ReadContext], T]) -> T:
        """A job: ``fn`` with the context; a statement interrupted for it is its end."""
        job = self._jobs.current()
        assert job is not None
        self._depth += 1
        try:
            for attempt in range(2):
                try:
                    return fn(self._context())
                except sqlite3.OperationalError as exc:
                    if not _interrupted(exc):
                        raise
                    if job.wanted() and not attempt:
                        continue  # an interrupt meant for the job before: once more
                    raise Superseded from None
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            self._depth -= 1

    def _forget(self) -> None:
        """Close the connection and let go of the matrix (the thread ends, or the index was
        replaced)."""
        db, self._db, self._vectors = self._db, None, None
        if db is not None:
            db.close()

    def _context(self) -> ReadContext:
        outermost = self._depth == 1  # no job's context is in use around this one
        if self._db is not None and self._reopen and outermost and not self._reads_the_index():
            self._forget()  # open the index as it is now
        if self._db is None:
            db = self._open()
            db.conn.set_progress_handler(self._abandoned, PROGRESS_STEPS)
            self._db, self._file = db, _file_of(db.path)
            self.opened += 1
        return ReadContext(self, self._db)

    def _reads_the_index(self) -> bool:
        """Whether the connection still reads the index: the same file at its path, at this
        program's schema."""
        assert self._db is not None
        if self._file is None or _file_of(self._db.path) != self._file:
            return False
        version = self._db.conn.execute("PRAGMA user_version").fetchone()[0]
        return bool(version == LATEST_VERSION)

    def _open(self) -> IndexDB:
        """The read-only connection; while there is no current index yet, wait for the
        writer to make it (or to give up: then its reason is the error)."""
        while True:
            try:
                return self._open_db()
            except IndexNotReady:
                writer = self._writer
                if writer is None:
                    raise
                if writer.wait_opened(0) and writer.open_error is not None:
                    raise IndexUnavailable(writer.open_error) from None
            if self._jobs.closed.wait(WAIT_STEP):
                raise Superseded

    def _vectors_of(self, model: str) -> VectorIndex:
        if self._vectors is None or self._vectors.model != model:
            self._vectors = VectorIndex(model)
        return self._vectors

    def _abandoned(self) -> int:
        """The progress handler (reader thread): non-zero aborts the running statement, when
        the job it belongs to is no longer wanted."""
        job = self._jobs.current()
        return int(job is not None and not job.wanted())

    def _superseded(self, job: Job[Any]) -> None:
        if self._jobs.under_way() is job:
            self._interrupt()  # the search under way is superseded: stop its statement now

    def _interrupt(self) -> None:
        db = self._db
        if db is not None and self._jobs.under_way() is not None:
            with contextlib.suppress(sqlite3.ProgrammingError):  # closed meanwhile
                db.conn.interrupt()


def _file_of(path: Path) -> tuple[int, int] | None:
    """Which file is at ``path`` (device and inode), if any."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _interrupted(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code == sqlite3.SQLITE_INTERRUPT)
    return str(exc) == "interrupted"
