"""The window's query, from the field to what the table shows: searching, re-fusing and
re-searching when the index changes.

:class:`SearchFlow` keeps the query on screen as one :class:`~explorer.search.answers.shown.Shown`
value (the lists fetched for it, the settings shown, the pinned baseline).  A search goes to the
vault session (:meth:`~explorer.gui.core.session.VaultSession.search`, fetching once for the
settings and the baseline); a change of the settings re-fuses the kept lists on the spot, and
searches only when they cannot answer it.  The session's live events re-search the query when a
change may affect it (coalesced by a timer).  The window shows what ``showing`` hands it.

What showing a query needs from the index is read on the reader in one job
(:meth:`~explorer.search.answers.shown.Shown.settle`): with the search itself, or, for a change
of the settings, in one round trip — the snippets of the lexical hits shown for the first time,
and, under a sort other than relevance (``SearchOptions.sort``), the order of the hits shown
(:func:`~explorer.search.fusion.order.sort_hits`, as ``search --sort`` does).  The value comes
back fused, and is shown as it is unless the settings moved meanwhile.  :attr:`SearchFlow.order`
is the sort's order; the response itself stays in fused order (its ranks are the fused ranks).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from explorer.gui.core.session import SearchResult, VaultSession
from explorer.live import EmbedDone, LiveEvent, SyncEvent, VectorsStored
from explorer.live.reader import URGENT
from explorer.search.answers.shown import Shown
from explorer.search.explain.scoring import ExplainContext, explain_context
from explorer.search.fusion.cached import CachedLists
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions

#: Live changes are coalesced into one re-search at most this often.
REFRESH_MS = 400
#: The session's query group of what a change of the settings needs read before it is shown
#: (:meth:`Shown.settle`: the snippets of hits shown for the first time, a sort's order).
SETTLE_GROUP = "settle"
#: While embedding, results are re-searched at most this often (vectors keep arriving).
EMBED_REFRESH_MS = 2000


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
        # One fetch for both: the baseline is fused from it too.  It comes back settled for
        # the settings on screen: fused, snippets made for the hits they show, the sort read.
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
        settled = result.shown or self.shown.with_lists(lists)
        # The baseline as it is now (pinned or unpinned while it searched); the settings are
        # taken as they are now by show_fused, which fuses again only if they moved.
        self.shown = settled.with_baseline(self.shown.baseline)
        self.show_fused(compare=same_query, new_query=new_query)

    def show_fused(self, *, compare: bool = True, new_query: bool = False) -> None:
        """Fuse the kept lists with the current settings and show them (no new search), or
        search when they cannot answer the settings or the baseline.  What showing them needs
        from the index (snippets of lexical hits shown for the first time, a sort's order) is
        read first, in one round trip (:meth:`Shown.settle`)."""
        shown = self.shown.with_options(self._options())
        if shown.needs_search:
            self.search_now()  # what is on screen stays until the new lists arrive
            return
        if not shown.settled and self.session is not None:
            self._settle(shown, compare, new_query)
            return
        self.shown = shown
        self.showing.emit(shown, compare, new_query)

    @property
    def order(self) -> list[str] | None:
        """The shown hits' paths in the order of the sort (None: the fused order)."""
        return self.shown.hit_order

    def _settle(self, shown: Shown, compare: bool, new_query: bool) -> None:
        """Read what ``shown`` needs from the index on the reader, then show it."""
        assert self.session is not None
        lists = self.shown.lists
        reply = self.session.query(
            lambda ctx: shown.settle(ctx.db.conn), group=SETTLE_GROUP, priority=URGENT
        )

        def settled(done: Shown) -> None:
            if self.shown.lists is lists:  # else new lists arrived, shown their own way
                self.shown = done
                self.show_fused(compare=compare, new_query=new_query)

        def failed(_exc: Exception) -> None:
            if self.shown.lists is lists:  # shown without them, as a search would be
                self.shown = shown
                self.showing.emit(shown, compare, new_query)

        reply.answered.connect(settled)
        reply.failed.connect(failed)

    def settings_changed(self, *, compare: bool) -> None:
        """The mode or the fusion settings changed: re-fuse what is kept, else search."""
        if self.shown.lists is not None:
            self.show_fused(compare=compare)
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
            self.show_fused(compare=False)
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
