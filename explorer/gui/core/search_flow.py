"""The window's query, from the field to what the table shows: searching, re-fusing and
re-searching when the index changes.

:class:`SearchFlow` keeps the query on screen as one :class:`~explorer.search.answers.shown.Shown`
value (the lists fetched for it, the settings shown, the pinned baseline).  A search goes to the
vault session (:meth:`~explorer.gui.core.session.VaultSession.search`, fetching once for the
settings and the baseline); a change of the settings re-fuses the kept lists on the spot, and
searches only when they cannot answer it.  The session's live events re-search the query when a
change may affect it (coalesced by a timer).  The window shows what ``showing`` hands it.

A sort other than relevance (``SearchOptions.sort``) orders the hits shown by a read of the
index (:func:`~explorer.search.fusion.order.sort_hits`, on the session's reader, as ``search
--sort`` does) before they are shown; :attr:`SearchFlow.order` is that order, the response itself
stays in fused order (its ranks are the fused ranks).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from explorer.gui.core.session import SearchResult, VaultSession, snippets_of
from explorer.live import EmbedDone, LiveEvent, SyncEvent, VectorsStored
from explorer.live.reader import URGENT
from explorer.preview.explain import ExplainContext, explain_context
from explorer.search.answers.shown import Shown
from explorer.search.fusion.cached import CachedLists
from explorer.search.fusion.order import sort_hits
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions

#: Live changes are coalesced into one re-search at most this often.
REFRESH_MS = 400
#: The session's query group of the snippets made when more lexical hits are shown.
SNIPPETS_GROUP = "snippets"
#: While embedding, results are re-searched at most this often (vectors keep arriving).
EMBED_REFRESH_MS = 2000
#: The session's query group of the reads that order the hits by a sort.
ORDER_GROUP = "order"


class SearchFlow(QObject):
    """The query on screen and how it is kept current (see the module)."""

    searchStarted = Signal()
    #: (Shown, compare: mark how rows moved, new query: the selection follows the top hit)
    showing = Signal(object, bool, bool)
    failed = Signal(object)  # Shown whose search failed (its ``error`` says why)

    def __init__(
        self,
        text: Callable[[], str],
        options: Callable[[], SearchOptions],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._text = text
        self._options = options
        self.shown = Shown(options())
        self.session: VaultSession | None = None
        self.refresh_timer = QTimer(self)
        self.refresh_timer.setSingleShot(True)
        self.refresh_timer.timeout.connect(self._refresh)
        #: The shown hits' paths in the order of the sort (None: the fused order), and what
        #: it was read for (the lists, the sort, the hits).
        self.order: list[str] | None = None
        self._ordered: tuple[object, ...] | None = None

    # ------------------------------------------------------------------ the vault

    def attach(self, session: VaultSession) -> None:
        """Search ``session``'s vault from now on; nothing of the last vault is shown."""
        self.detach()
        self.session = session
        self.shown = self.shown.cleared()
        session.searched.connect(self._finished)
        session.liveEvent.connect(self._live_event)

    def detach(self) -> None:
        self.refresh_timer.stop()
        session, self.session = self.session, None
        if session is not None:
            session.searched.disconnect(self._finished)
            session.liveEvent.disconnect(self._live_event)

    @property
    def searching(self) -> bool:
        return self.session is not None and self.session.searching

    # ------------------------------------------------------------------ searching

    def search_now(self) -> None:
        """Search the field's text now.  Before the index is open this does nothing: the
        window searches as soon as it is."""
        session = self.session
        if session is None or not session.is_open:
            return
        # One fetch for both: the baseline is fused from it too.  Snippets are made for the
        # hits the settings on screen show of it; the others when they are shown.
        shown = self.shown.with_options(self._options())
        session.search(self._text(), shown.fetch(), shown)
        self.searchStarted.emit()

    def _finished(self, result: SearchResult) -> None:
        if result.error is not None or result.candidates is None:
            self.shown = self.shown.failed(result.raw, result.error or "search failed")
            self.failed.emit(self.shown)
            return
        new_query = result.raw != self.shown.raw
        # Movement marks compare a refresh of the same query with what is on screen; not when
        # the vector list just arrived (every row would move, which says nothing).
        response = self.shown.response
        same_query = (
            not new_query
            and response is not None
            and response.semantic.available == result.candidates.semantic.available
        )
        lists = CachedLists.of(result.raw, result.candidates, result.options)
        self.shown = self.shown.with_lists(lists).with_snippets(result.snippets)
        self.refuse(compare=same_query, new_query=new_query)

    def refuse(self, *, compare: bool = True, new_query: bool = False) -> None:
        """Fuse the kept lists with the current settings and show them (no new search), or
        search when they cannot answer the settings or the baseline.  Lexical hits shown for
        the first time get their snippets first (one read, ahead of the panels' questions)."""
        shown = self.shown.with_options(self._options())
        if shown.needs_search:
            self.search_now()  # what is on screen stays until the new lists arrive
            return
        missing = shown.unsnipped()
        if missing and self.session is not None:
            self._snip(shown, missing, compare, new_query)
            return
        key = self._order_key(shown)
        if key is None:
            self.order, self._ordered = None, None
        elif key != self._ordered and self.session is not None:
            self._sort(shown, key, compare, new_query)
            return
        self.shown = shown
        self.showing.emit(shown, compare, new_query)

    @staticmethod
    def _order_key(shown: Shown) -> tuple[object, ...] | None:
        """What the order of ``shown``'s hits depends on; None when it is the fused order."""
        response = shown.response
        if response is None or shown.options.sort == "relevance" or len(response.hits) < 2:
            return None
        return (id(shown.lists), shown.options.sort, tuple(h.path for h in response.hits))

    def _sort(self, shown: Shown, key: tuple[object, ...], compare: bool, new_query: bool) -> None:
        """Order ``shown``'s hits by its sort (a read of their dates), then show it."""
        assert self.session is not None and shown.response is not None
        lists, hits, sort = shown.lists, list(shown.response.hits), shown.options.sort
        reply = self.session.query(
            lambda ctx: [h.path for h in sort_hits(ctx.db.conn, hits, sort)],
            group=ORDER_GROUP,
            priority=URGENT,
        )

        def ordered(paths: list[str] | None) -> None:
            if self.shown.lists is lists:  # else new lists arrived, ordered their own way
                self.order, self._ordered = paths, key
                self.refuse(compare=compare, new_query=new_query)

        reply.answered.connect(ordered)
        reply.failed.connect(lambda _exc: ordered(None))  # shown in fused order

    def _snip(
        self, shown: Shown, missing: dict[str, tuple[int, str]], compare: bool, new_query: bool
    ) -> None:
        """Make the snippets ``shown`` lacks, then show it (re-fused with the settings then)."""
        assert self.session is not None
        lists = shown.lists
        reply = self.session.query(
            lambda ctx: snippets_of(ctx, missing), group=SNIPPETS_GROUP, priority=URGENT
        )

        def made(snippets: dict[str, str]) -> None:
            if self.shown.lists is lists:  # else new lists arrived, shown their own way
                self.shown = self.shown.with_snippets(snippets)
                self.refuse(compare=compare, new_query=new_query)

        def failed(_exc: Exception) -> None:
            if self.shown.lists is lists:  # shown without them, as a search would be
                self.shown = shown
                self.showing.emit(shown, compare, new_query)

        reply.answered.connect(made)
        reply.failed.connect(failed)

    def settings_changed(self, *, compare: bool) -> None:
        """The mode or the fusion settings changed: re-fuse what is kept, else search."""
        if self.shown.lists is not None:
            self.refuse(compare=compare)
        else:
            self.search_now()

    # ------------------------------------------------------------------ what is shown

    def explain_context(self, hit: Hit, rank: int) -> ExplainContext | None:
        """What the preview's explanation of ``hit`` (at ``rank`` in the table) needs: its
        rank and the lists it came from; a baseline row that left the top is explained where
        the baseline had it.  ``None`` when nothing is shown."""
        shown = self.shown
        response = shown.response
        if response is None:
            return None
        row = shown.comparison.row(hit.path) if shown.comparison is not None else None
        base = shown.baseline_shown
        if row is not None and row.rank_a is not None and row.rank_b is None and base is not None:
            return explain_context(hit, row.rank_a, base[0], base[1])
        return explain_context(hit, rank, response, shown.candidates)

    @property
    def graded_query(self) -> str | None:
        """The query a grade is for: the one whose hits are shown (None for the listing)."""
        lists, response = self.shown.lists, self.shown.response
        if lists is None or response is None or response.listing:
            return None
        return lists.raw

    # ------------------------------------------------------------------ the baseline

    def set_baseline(self, baseline: SearchOptions | None) -> None:
        """Pin ``baseline`` (None: unpin) without showing anything yet."""
        self.shown = self.shown.with_baseline(baseline)

    def pin(self, baseline: SearchOptions | None) -> None:
        """Compare every result from now on with ``baseline`` (None: stop comparing)."""
        self.set_baseline(baseline)
        if self.shown.lists is not None:
            self.refuse(compare=False)
        elif baseline is not None:
            self.search_now()

    # ------------------------------------------------------------------ keeping it current

    def _live_event(self, event: LiveEvent) -> None:
        if isinstance(event, SyncEvent) and event.touched:
            self.schedule_refresh(event.touched, REFRESH_MS)
        elif isinstance(event, VectorsStored):
            # New vectors: worth a re-search when the shown result has none yet, or when they
            # belong to notes on screen (the rest arrives with EmbedDone).
            response = self.shown.response
            if response is not None and (
                not response.semantic.available or {h.path for h in response.hits} & event.touched
            ):
                self.schedule_refresh(None, EMBED_REFRESH_MS)
        elif isinstance(event, EmbedDone):
            self.schedule_refresh(None, REFRESH_MS)

    def schedule_refresh(self, touched: frozenset[str] | None, delay: int) -> None:
        """Re-search the current query soon, if a change may affect it: it names a note shown,
        or it could match (a path filter rules out notes elsewhere; anything else may now
        match).  The re-search runs on the session's reader; if the hits are the same, nothing
        visible changes."""
        response, query = self.shown.response, self.shown.query
        if self.shown.lists is None and response is None:
            return
        if touched is not None and response is not None and query is not None:
            shown = {hit.path for hit in response.hits}
            paths = tuple(query.paths)
            if not shown & touched and paths and not any(t.startswith(paths) for t in touched):
                return
        if self.refresh_timer.isActive() and self.refresh_timer.remainingTime() <= delay:
            return
        self.refresh_timer.start(delay)

    def _refresh(self) -> None:
        if self.searching:
            self.refresh_timer.start(REFRESH_MS)  # after the search under way
        else:
            self.search_now()
