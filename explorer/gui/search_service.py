"""Searching off the GUI thread: one search thread per open vault, results by request id.

The service owns a single-thread pool, so its :class:`~explorer.search.hybrid.Searcher` and
database connection are only ever used by one search at a time (and stay warm: the vector matrix
is loaded once and refreshed when the index moves).  Every request gets an id; a request that is
no longer the latest when its turn comes is skipped, and results of a superseded request are
dropped by the window.  ``calls`` counts the searches actually run (tests use it to prove that a
change of fusion settings re-fuses without searching again).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal

from explorer.embed.provider import EmbedderProvider
from explorer.gui.workers import Latest, Worker
from explorer.index.db import IndexDB
from explorer.search.hybrid import Candidates, QueryError, Searcher, SearchOptions

#: Lists are fetched this deep at least, so the depth control re-fuses without a new search
#: up to here (a deeper list's first n entries are exactly the list of depth n).
MIN_FETCH_DEPTH = 100
#: The vector list is fetched without a floor and the similarity floor applied while fusing
#: (dropping the tail of a best-first list is exactly what a floor does), so it is live too.
FETCH_MIN_SIM = 0.0


@dataclass(frozen=True)
class SearchResult:
    request: int
    raw: str
    options: SearchOptions
    candidates: Candidates | None
    error: str | None = None


def fetch_options(options: SearchOptions) -> SearchOptions:
    """What to fetch for ``options``: both lists unless the mode is lexical, deep enough for the
    depth control, no similarity floor (applied at fusion)."""
    from dataclasses import replace

    return replace(
        options,
        mode="fts" if options.mode == "fts" else "hybrid",
        depth=max(options.depth, MIN_FETCH_DEPTH),
        min_sim=FETCH_MIN_SIM,
    )


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
        self.is_open = False

    def open(self) -> None:
        """Open (create, migrate) the index on the search thread; emits ``opened``."""
        worker = Worker(self._open)
        worker.signals.returned.connect(self._opened)
        worker.signals.errored.connect(lambda exc: self.openFailed.emit(str(exc)))
        worker.start(self.pool)

    def _open(self) -> list[str]:
        self._db = IndexDB.open(self.vault, self.data_dir)
        self._searcher = Searcher(self._db, self.provider, wait_for_model=False)
        return list(self._db.notices)

    def _opened(self, notices: list[str]) -> None:
        self.is_open = True
        self.opened.emit(notices)

    def search(self, raw: str, options: SearchOptions) -> int:
        """Queue a search; returns its request id (results arrive via ``finished``)."""
        request = self.latest.next()
        worker = Worker(self._run, request, raw, options)
        worker.signals.returned.connect(self._deliver)
        worker.start(self.pool)
        return request

    def _run(self, request: int, raw: str, options: SearchOptions) -> SearchResult | None:
        if not self.latest.is_current(request) or self._closed.is_set():
            return None  # superseded while waiting: skip the work
        searcher = self._searcher
        if searcher is None:
            return SearchResult(request, raw, options, None, "the index is not open")
        self.calls += 1
        try:
            candidates = searcher.candidates(raw, fetch_options(options))
        except QueryError as exc:
            return SearchResult(request, raw, options, None, str(exc))
        except Exception as exc:  # a broken index must not take the window down
            return SearchResult(request, raw, options, None, f"{type(exc).__name__}: {exc}")
        return SearchResult(request, raw, options, candidates)

    def _deliver(self, result: SearchResult | None) -> None:
        if result is not None:
            self.finished.emit(result)

    def close(self, wait: bool = False) -> None:
        """Stop taking requests and close the connection after the running search (on the
        search thread, so the GUI thread never waits for it unless ``wait`` says so)."""
        self._closed.set()
        self.latest.next()
        Worker(self._close_db).start(self.pool)
        if wait:
            self.pool.waitForDone(10_000)

    def _close_db(self) -> None:
        db, self._db, self._searcher = self._db, None, None
        if db is not None:
            db.close()
