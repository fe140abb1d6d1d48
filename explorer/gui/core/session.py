"""One open vault, seen from the GUI thread: every read of its index, and its live index.

The session is the only part of the window that opens the index.  The live index
(:class:`~explorer.live.LiveIndex`) is the one writer: it takes the writer lease and creates,
migrates or rebuilds the index.  Everything else reads through one
:class:`~explorer.live.reader.IndexReader`: one thread, one read-only connection, one vector
matrix, shared by the window's search, the Quality dock, Tune, Why Not and Around.  A panel
asks with :meth:`VaultSession.query` (a function of the reader's context, a group in which a
newer request supersedes an older one, a priority) and gets a
:class:`~explorer.gui.core.workers.Reply` whose signals arrive on the GUI thread, only while its
request is the newest of its group (:func:`~explorer.gui.core.workers.reply_to`); the window's own
search (:meth:`VaultSession.search`) is :data:`~explorer.jobs.URGENT` and goes ahead of every
panel's question.

Live events and health changes arrive as signals too; panels connect to them directly.
Closing never waits on the GUI thread unless asked to (the application's exit does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.live_bridge import LiveBridge
from explorer.gui.core.workers import Reply, reply_to
from explorer.home import expand_home
from explorer.index.db import IndexDB
from explorer.live import Health, LiveEvent, LiveIndex
from explorer.live.reader import NORMAL, URGENT, IndexReader, ReadContext
from explorer.mcp.warm import WarmServer, serve_vault
from explorer.search.answers.shown import Shown
from explorer.search.fusion.cached import CachedLists, fetch_options
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import QueryError

#: Closing with ``wait`` waits this long at most for the reader (a running job is interrupted;
#: this bounds work SQLite cannot interrupt, such as a query embedding).
CLOSE_WAIT_S = 5.0


@dataclass(frozen=True)
class SearchResult:
    request: int
    raw: str
    options: SearchOptions
    candidates: Candidates | None
    error: str | None = None
    #: The query on screen over these lists, settled on the reader (:meth:`Shown.settle`:
    #: fused, the snippets of the hits it shows made, its sort read); None without one.
    shown: Shown | None = None


class VaultSession(QObject):
    """The reader and the live index of one vault."""

    opened = Signal(object)  # list of notices from opening the index
    openFailed = Signal(str)
    searched = Signal(object)  # SearchResult of the latest request only
    liveEvent = Signal(object)  # LiveEvent
    healthChanged = Signal(object)  # Health, whenever the live index's health changes

    def __init__(
        self,
        vault: Path,
        data_dir: str | None,
        provider: EmbedderProvider,
        *,
        watch: bool = True,
        live: bool = True,
        parent: QObject | None = None,
    ) -> None:
        """Without ``live`` the session only reads (a panel shown on its own, in tests)."""
        super().__init__(parent)
        self.vault = expand_home(vault).resolve()
        self.data_dir = data_dir
        self.provider = provider
        self.watch = watch
        self.live: LiveIndex | None = None
        if live:
            self.live = LiveIndex(self.vault, data_dir, provider, watch=watch)
        # The reader's thread, which ends after the session is let go of, holds nothing of it
        # (plain data, no bound method: no cycle): the session dies on the GUI thread.
        self.reader = IndexReader(
            partial(_open_reader, self.vault, data_dir), provider, writer=self.live
        )
        self.bridge: LiveBridge | None = None
        #: Answers the command line and the MCP tools through :attr:`reader` (explorer.mcp.warm).
        self.server: WarmServer | None = None
        self.health: Health | None = None
        self.searching = False
        self.closed = False
        self.is_open = False
        self.calls = 0  # searches actually run (the cached lists are re-fused without one)

    # ------------------------------------------------------------------ life

    def open(self) -> None:
        """Start the live index (which creates or migrates the index), then open the reader;
        ``opened`` or ``openFailed`` says how it went."""
        if self.live is not None:
            self.bridge = LiveBridge(self.live, self)
            self.bridge.liveEvent.connect(self._live_event)
            self.bridge.healthChanged.connect(self._health_changed)
            self.bridge.start()
            self.server = serve_vault(
                self.vault, self.data_dir, "the window", self.provider, self.reader, self.live
            )
        reply = self.query(lambda ctx: list(ctx.db.notices), group="open", priority=URGENT)
        reply.answered.connect(self._opened)
        reply.failed.connect(lambda exc: self.openFailed.emit(str(exc)))

    def _opened(self, notices: list[str]) -> None:
        if not self.closed:
            self.is_open = True
            self.opened.emit(notices)

    def close(self, wait: bool = False) -> None:
        """Stop the live index and the reader (in the background unless ``wait``)."""
        if self.closed:
            return
        self.closed = True
        self.is_open = False
        if self.server is not None:
            self.server.stop()
        if self.bridge is not None:
            self.bridge.stop(wait=wait)
        self.reader.close(CLOSE_WAIT_S if wait else None)

    # ------------------------------------------------------------------ asking

    def query(
        self,
        fn: Callable[[ReadContext], Any],
        *,
        group: str,
        priority: int = NORMAL,
    ) -> Reply:
        """Run ``fn(context)`` on the reader thread; its :class:`Reply` answers on the GUI
        thread.  A newer query of ``group`` supersedes this one (which then says nothing), and
        closing the session drops it."""
        return reply_to(self.reader.submit(fn, group=group, priority=priority))

    def drop(self, group: str) -> None:
        """Supersede every query of ``group`` asked for so far, without asking another: none of
        their answers arrives."""
        self.reader.supersede(group)

    # ------------------------------------------------------------------ searching

    def search(self, raw: str, options: SearchOptions, shown: Shown | None = None) -> int:
        """Queue a search; its result arrives as ``searched`` unless a newer one supersedes it.
        With ``shown`` (the query on screen), it comes back over the new lists settled
        (:meth:`Shown.settle`: snippets are made only for the lexical notes it shows, its sort
        read), all in this one job; without it, every lexical note gets its snippet.  Returns
        the request's number, which its :class:`SearchResult` carries."""
        self.searching = True

        def run(ctx: ReadContext) -> SearchResult:
            request = ctx.request
            self.calls += 1
            try:
                candidates = ctx.searcher().candidates(
                    raw, fetch_options(options), snippets=shown is None
                )
            except QueryError as exc:
                return SearchResult(request, raw, options, None, str(exc))
            settled = None
            if shown is not None:
                lists = CachedLists.of(raw, candidates, options)
                settled = shown.with_lists(lists).settle(ctx.db.conn)
            return SearchResult(request, raw, options, candidates, shown=settled)

        reply = self.query(run, group="search", priority=URGENT)
        request = reply.job.seq
        reply.answered.connect(self._searched)
        reply.failed.connect(
            lambda exc: self._searched(SearchResult(request, raw, options, None, _describe(exc)))
        )
        return request

    def _searched(self, result: SearchResult) -> None:
        self.searching = False
        self.searched.emit(result)

    # ------------------------------------------------------------------ the live index

    def _live_event(self, event: LiveEvent) -> None:
        if not self.closed:
            self.liveEvent.emit(event)

    def _health_changed(self, health: Health) -> None:
        if not self.closed:
            self.health = health
            self.healthChanged.emit(health)

    def reconcile(self) -> None:
        if self.live is not None:
            self.live.request_reconcile()

    def settled(self) -> bool:
        """Whether the live index is idle: start-up reconcile done, nothing left to embed."""
        return self.live is not None and self.live.wait_idle(0)


def _open_reader(vault: Path, data_dir: str | None) -> IndexDB:
    # The one place of the window that opens the index (read-only: the live index writes).
    return IndexDB.open_reader(vault, data_dir)


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"
