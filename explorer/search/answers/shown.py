"""The query on screen, as one value: the lists fetched for it, the settings shown and the pinned
baseline.  Everything a window shows of it is derived from those three: the response, the lists
it was fused from, the baseline's response and the comparison of the two.

A change of the fusion settings or of the baseline is a new value over the same lists
(:meth:`Shown.with_options`, :meth:`Shown.with_baseline`); :attr:`Shown.needs_search` says when
the lists cannot answer it and a new fetch (:meth:`Shown.fetch`) is needed.  What painting it
needs from the index — the snippets of the lexical hits it shows, its hits' order under a sort —
is read in one go by :meth:`Shown.settle` (on the reader, with the search when there is one);
:attr:`Shown.settled` says when nothing is left to read.  No Qt.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from functools import cached_property

from explorer.search.answers.compare import Comparison, compare_responses, covering
from explorer.search.fusion.cached import CachedLists
from explorer.search.fusion.order import sort_hits
from explorer.search.fusion.results import Candidates, SearchResponse
from explorer.search.lists.lexical import snippets_of
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import Query

#: The cached properties of :class:`Shown` that hold a fusion: what a value made from another
#: over the same fused lists keeps instead of fusing again.
_FUSIONS = ("_fused", "baseline_shown")


@dataclass(frozen=True)
class Shown:
    """The query on screen (see the module)."""

    options: SearchOptions
    baseline: SearchOptions | None = None
    lists: CachedLists | None = None
    #: The query of the last search that came back (with lists, or with ``error``).
    raw: str | None = None
    error: str | None = None
    #: The hits' paths in the order of the sort, and what that order was read for
    #: (:attr:`order_key`); read by :meth:`settle`.
    order: tuple[str, ...] | None = None
    ordered_for: tuple[object, ...] | None = None

    # ------------------------------------------------------------------ changes

    def with_options(self, options: SearchOptions) -> Shown:
        """The same lists under ``options`` (this very value, fused already, when they are the
        ones shown)."""
        return self if options == self.options else replace(self, options=options)

    def with_baseline(self, baseline: SearchOptions | None) -> Shown:
        return self if baseline == self.baseline else replace(self, baseline=baseline)

    def with_lists(self, lists: CachedLists) -> Shown:
        return replace(self, lists=lists, raw=lists.raw, error=None, order=None, ordered_for=None)

    def failed(self, raw: str, error: str) -> Shown:
        return replace(self, lists=None, raw=raw, error=error)

    def cleared(self) -> Shown:
        """Another vault: nothing shown, the settings and the baseline kept."""
        return replace(self, lists=None, raw=None, error=None)

    def with_snippets(self, snippets: dict[str, str]) -> Shown:
        """The same lists with the snippets made for these lexical notes (path to snippet).
        What is fused already stays fused: a snippet moves no hit, so the hits only get their
        snippets (as a new fusion would give them)."""
        lists = self.lists
        if lists is None or not snippets:
            return self
        found = replace(lists, candidates=lists.candidates.with_snippets(snippets))
        shown = replace(self, lists=found)
        for name in _FUSIONS:
            fused = self.__dict__.get(name)
            if fused is not None:
                shown.__dict__[name] = _snipped(fused, snippets)
        return shown

    def fetch(self, options: SearchOptions | None = None) -> SearchOptions:
        """What to search for ``options`` (default: the shown ones): one fetch that also
        answers the baseline."""
        options = options or self.options
        return covering(self.baseline, options) if self.baseline is not None else options

    # ------------------------------------------------------------------ derived

    @property
    def needs_search(self) -> bool:
        """Whether the lists cannot answer the settings or the baseline (or there are none)."""
        lists = self.lists
        if lists is None or not lists.covers(self.options):
            return True
        return self.baseline is not None and not lists.covers(self.baseline)

    @property
    def query(self) -> Query | None:
        return self.lists.candidates.query if self.lists is not None else None

    @cached_property
    def _fused(self) -> tuple[SearchResponse, Candidates] | None:
        lists = self.lists
        if lists is None or not lists.covers(self.options):
            return None
        return lists.fuse(self.options)

    @property
    def response(self) -> SearchResponse | None:
        """What the table shows."""
        return self._fused[0] if self._fused is not None else None

    @property
    def candidates(self) -> Candidates | None:
        """The lists the response was fused from (after the similarity floor)."""
        return self._fused[1] if self._fused is not None else None

    @cached_property
    def baseline_shown(self) -> tuple[SearchResponse, Candidates] | None:
        """The baseline's response and lists, from the same fetch."""
        lists, baseline = self.lists, self.baseline
        if baseline is None or self._fused is None or lists is None or not lists.covers(baseline):
            return None
        return lists.fuse(baseline)

    def unsnipped(self) -> dict[str, tuple[int, str]]:
        """The lexical hits shown (and the baseline's) whose snippet is still to be made (the
        lists were fetched without them): path to (note id, what the snippet marks)."""
        if self.lists is None:
            return {}
        base = self.baseline_shown[0] if self.baseline_shown else None
        return self.lists.candidates.unsnipped_of(self.response, base)

    @property
    def order_key(self) -> tuple[object, ...] | None:
        """What the order of the hits shown depends on; None when it is the fused order."""
        response = self.response
        if response is None or self.options.sort == "relevance" or len(response.hits) < 2:
            return None
        return (self.options.sort, tuple(h.path for h in response.hits))

    @property
    def hit_order(self) -> list[str] | None:
        """The paths of the hits shown in the order of the sort; None: the fused order (or
        the order is not read yet: :attr:`settled`)."""
        key = self.order_key
        if key is None or self.order is None or key != self.ordered_for:
            return None
        return list(self.order)

    @property
    def settled(self) -> bool:
        """Whether everything painting it needs from the index is here (:meth:`settle`)."""
        key = self.order_key
        return not self.unsnipped() and (key is None or key == self.ordered_for)

    def settle(self, conn: sqlite3.Connection) -> Shown:
        """This value with what painting it needs from the index, read in one go: the snippets
        of the lexical hits it shows and, under a sort other than relevance, the order of its
        hits (:func:`~explorer.search.fusion.order.sort_hits`, as ``search --sort`` orders).
        Fused when it returns, so whoever shows it fuses nothing again."""
        made = snippets_of(conn, self.unsnipped())
        key, response = self.order_key, self.response
        order, ordered_for = self.order, self.ordered_for
        if key is not None and key != ordered_for and response is not None:
            hits = sort_hits(conn, list(response.hits), self.options.sort)
            order, ordered_for = tuple(h.path for h in hits), key
        if ordered_for == self.ordered_for:
            return self.with_snippets(made)
        ordered = replace(self, order=order, ordered_for=ordered_for)
        for name in _FUSIONS:  # the same lists and settings: the same fusion
            if name in self.__dict__:
                ordered.__dict__[name] = self.__dict__[name]
        return ordered.with_snippets(made)

    @cached_property
    def comparison(self) -> Comparison | None:
        """The baseline (A) against what is shown (B)."""
        base, shown = self.baseline_shown, self._fused
        if base is None or shown is None:
            return None
        return compare_responses(base[0], shown[0], candidates_a=base[1], candidates_b=shown[1])


def _snipped(
    fused: tuple[SearchResponse, Candidates], snippets: dict[str, str]
) -> tuple[SearchResponse, Candidates]:
    """A fusion's response and lists with the snippets made for these lexical notes."""
    response, candidates = fused
    snipped = replace(response, hits=response.snipped_hits(snippets))
    return snipped, candidates.with_snippets(snippets)
