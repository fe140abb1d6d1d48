"""The query on screen, as one value: the lists fetched for it, the settings shown and the pinned
baseline.  Everything a window shows of it is derived from those three: the response, the lists
it was fused from, the baseline's response and the comparison of the two.

A change of the fusion settings or of the baseline is a new value over the same lists
(:meth:`Shown.with_options`, :meth:`Shown.with_baseline`); :attr:`Shown.needs_search` says when
the lists cannot answer it and a new fetch (:meth:`Shown.fetch`) is needed.  No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from explorer.search.answers.compare import Comparison, compare_responses, covering
from explorer.search.fusion.cached import CachedLists
from explorer.search.fusion.results import Candidates, SearchResponse
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import Query


@dataclass(frozen=True)
class Shown:
    """The query on screen (see the module)."""

    options: SearchOptions
    baseline: SearchOptions | None = None
    lists: CachedLists | None = None
    #: The query of the last search that came back (with lists, or with ``error``).
    raw: str | None = None
    error: str | None = None

    # ------------------------------------------------------------------ changes

    def with_options(self, options: SearchOptions) -> Shown:
        return replace(self, options=options)

    def with_baseline(self, baseline: SearchOptions | None) -> Shown:
        return replace(self, baseline=baseline)

    def with_lists(self, lists: CachedLists) -> Shown:
        return replace(self, lists=lists, raw=lists.raw, error=None)

    def failed(self, raw: str, error: str) -> Shown:
        return replace(self, lists=None, raw=raw, error=error)

    def cleared(self) -> Shown:
        """Another vault: nothing shown, the settings and the baseline kept."""
        return replace(self, lists=None, raw=None, error=None)

    def with_snippets(self, snippets: dict[str, str]) -> Shown:
        """The same lists with the snippets made for these lexical notes (path to snippet)."""
        lists = self.lists
        if lists is None or not snippets:
            return self
        found = lists.candidates
        lexical = [(path, score, snippets.get(path, text)) for path, score, text in found.lexical]
        waiting = {path: note for path, note in found.unsnipped.items() if path not in snippets}
        candidates = replace(found, lexical=lexical, unsnipped=waiting)
        return replace(self, lists=replace(lists, candidates=candidates))

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
        lists were fetched without them): path to (note id, what the snippet marks), for
        :func:`~explorer.search.lists.lexical.make_snippets`."""
        waiting = self.lists.candidates.unsnipped if self.lists is not None else {}
        if not waiting:
            return {}
        shown = [self.response, self.baseline_shown[0] if self.baseline_shown else None]
        return {
            hit.path: waiting[hit.path]
            for response in shown
            if response is not None
            for hit in response.hits
            if hit.fts_rank is not None and hit.path in waiting
        }

    @cached_property
    def comparison(self) -> Comparison | None:
        """The baseline (A) against what is shown (B)."""
        base, shown = self.baseline_shown, self._fused
        if base is None or shown is None:
            return None
        return compare_responses(base[0], shown[0], candidates_a=base[1], candidates_b=shown[1])
