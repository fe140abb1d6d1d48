"""Searching off the GUI thread: one search thread per open vault, results by request id.

The service owns a single-thread pool, so its :class:`~explorer.search.hybrid.Searcher` and
database connection are only ever used by one search at a time (and stay warm: the vector matrix
is loaded once and refreshed when the index moves).  Every request gets an id; a request that is
no longer the latest when its turn comes is skipped, and results of a superseded request are
dropped by the window.  ``calls`` counts the searches actually run (tests use it to prove that a
change of fusion settings re-fuses without searching again).

A running search is cancelled, not waited for, when a newer query arrives or the vault closes:
``Connection.interrupt()`` (thread-safe) stops the statement SQLite is running at once, and a
progress handler on the search thread's connection aborts any later statement of a search
that is no longer wanted (an interrupt that lands between two statements would be lost).  The
search then ends with ``OperationalError: interrupted``, which is a cancellation, not an
error: nothing is reported.  Closing therefore never waits on a slow search.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal

from explorer.embed.provider import EmbedderProvider
from explorer.gui.workers import Latest, Worker
from explorer.index.db import IndexDB
from explorer.search.cached import fetch_options
from explorer.search.hybrid import Candidates, QueryError, Searcher, SearchOptions

#: SQLite calls the cancellation check every this many virtual-machine steps (about a
#: millisecond of work: often enough to stop promptly, rare enough to cost nothing).
PROGRESS_STEPS = 100_000
#: Closing with ``wait`` waits this long at most for the search thread (an interrupted search
#: ends at once; this bounds work SQLite cannot interrupt, such as a query embedding).
CLOSE_WAIT_MS = 5_000


@dataclass(frozen=True)
class SearchResult:
    request: int
    raw: str
    options: SearchOptions
    candidates: Candidates | None
    error: str | None = None


class SearchService(QObject):
    """Runs :meth:`Searcher.candidates` for the window on its own thread."""

    opened = Signal(object)  # list of notices from opening the index
    openFailed = Signal(str)
    finished = Signal(object)  # SearchResult

    def __init__(
        self,
        vault: Path,
        data_dir: str | None,
        provider: EmbedderProvider,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.vault = vault
        self.data_dir = data_dir
        self.provider = provider
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.pool.setExpiryTimeout(-1)
        self.latest = Latest()
        self.calls = 0
        self._db: IndexDB | None = None
        self._searcher: Searcher | None = None
        self._closed = threading.Event()
        self._running: int | None = None  # the request on the search thread, if any
        self.cancelled = 0  # searches stopped by a newer query or by closing (tests read it)
        self.is_open = False

    @property
    def db(self) -> IndexDB | None:
        """The index as the search thread holds it (``None`` before it opens, after it
        closes).  Only the search thread uses its connection."""
        return self._db

    def open(self) -> None:
        """Open (create, migrate) the index on the search thread; emits ``opened``."""
        worker = Worker(self._open)
        worker.signals.returned.connect(self._opened)
        worker.signals.errored.connect(lambda exc: self.openFailed.emit(str(exc)))
        worker.start(self.pool)

    def _open(self) -> list[str]:
        self._db = IndexDB.open(self.vault, self.data_dir)
        self._db.conn.set_progress_handler(self._abandoned, PROGRESS_STEPS)
        self._searcher = Searcher(self._db, self.provider, wait_for_model=False)
        return list(self._db.notices)

    def _abandoned(self) -> int:
        """The progress handler (search thread): non-zero aborts the running statement, when
        the search running is no longer wanted."""
        running = self._running
        if running is None:
            return 0
        return int(self._closed.is_set() or not self.latest.is_current(running))

    def _interrupt(self) -> None:
        """Stop the statement of the running search now (from the GUI thread)."""
        db = self._db
        if self._running is not None and db is not None:
            db.conn.interrupt()

    def _opened(self, notices: list[str]) -> None:
        self.is_open = True
        self.opened.emit(notices)

    def search(self, raw: str, options: SearchOptions) -> int:
        """Queue a search; returns its request id (results arrive via ``finished``)."""
        request = self.latest.next()
        self._interrupt()  # the running search is superseded (before this one can start)
        worker = Worker(self._run, request, raw, options)
        worker.signals.returned.connect(self._deliver)
        worker.start(self.pool)
        return request

    def _run(self, request: int, raw: str, options: SearchOptions) -> SearchResult | None:
        if not self._wanted(request):
            return None  # superseded while waiting: skip the work
        searcher = self._searcher
        if searcher is None:
            return SearchResult(request, raw, options, None, "the index is not open")
        self.calls += 1
        for attempt in range(2):
            self._running = request
            try:
                candidates = searcher.candidates(raw, fetch_options(options))
            except QueryError as exc:
                return SearchResult(request, raw, options, None, str(exc))
            except sqlite3.OperationalError as exc:
                if not _interrupted(exc):
                    return SearchResult(request, raw, options, None, _describe(exc))
                if not self._wanted(request):
                    self.cancelled += 1
                    return None  # cancelled: superseded or closed, not an error
                if attempt:
                    return SearchResult(request, raw, options, None, _describe(exc))
                # Still wanted: an interrupt meant for the search before; once more.
            except Exception as exc:  # a broken index must not take the window down
                return SearchResult(request, raw, options, None, _describe(exc))
            else:
                return SearchResult(request, raw, options, candidates)
            finally:
                self._running = None
        return None  # pragma: no cover - the loop always returns

    def _wanted(self, request: int) -> bool:
        return self.latest.is_current(request) and not self._closed.is_set()

    def _deliver(self, result: SearchResult | None) -> None:
        if result is not None:
            self.finished.emit(result)

    def close(self, wait: bool = False) -> None:
        """Stop taking requests, interrupt the running search and close the connection after
        it (on the search thread).  The GUI thread never waits for a search: with ``wait`` (the
        application's exit) it waits for the interrupted search to end, at most
        :data:`CLOSE_WAIT_MS`."""
        self._closed.set()
        self.latest.next()
        self._interrupt()
        Worker(self._close_db).start(self.pool)
        if wait:
            self.pool.waitForDone(CLOSE_WAIT_MS)

    def _close_db(self) -> None:
        db, self._db, self._searcher = self._db, None, None
        if db is not None:
            db.close()


def _interrupted(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code == sqlite3.SQLITE_INTERRUPT)
    return str(exc) == "interrupted"


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"
