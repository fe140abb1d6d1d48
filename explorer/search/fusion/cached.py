"""A query's two lists, fetched once, so that every fusion setting re-fuses them at once.

The window keeps one :class:`CachedLists` per shown query; a sweep in eval keeps one per
judged query.  The lists are fetched
deeper than the depth control and without a similarity floor (see
:func:`fetch_options`), so k, the weights, the depth (up to the
depth fetched), the floor and the mode (Hybrid ↔ Lexical ↔ Semantic, when both lists were
fetched) all re-fuse without a new search; :meth:`CachedLists.covers` says when one is needed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.results import Candidates, SearchResponse
from explorer.search.query.options import Mode, SearchOptions

#: Lists are fetched this deep at least, so the depth control re-fuses without a new search
#: up to here (a deeper list's first n entries are exactly the list of depth n).
MIN_FETCH_DEPTH = 100
#: The vector list is fetched without a floor and the similarity floor applied while fusing
#: (dropping the tail of a best-first list is exactly what a floor does), so it is live too.
FETCH_MIN_SIM = 0.0


def fetch_options(options: SearchOptions) -> SearchOptions:
    """What to fetch for ``options``: both lists unless the mode is lexical, deep enough for the
    depth control, no similarity floor (applied at fusion)."""
    return replace(
        options,
        mode=Mode.FTS if options.mode == Mode.FTS else Mode.HYBRID,
        depth=max(options.depth, MIN_FETCH_DEPTH),
        min_sim=min(options.min_sim, FETCH_MIN_SIM),
        min_rel=0.0,
    )


@dataclass(frozen=True)
class CachedLists:
    raw: str
    candidates: Candidates
    fetched: SearchOptions

    @classmethod
    def of(cls, raw: str, candidates: Candidates, options: SearchOptions) -> CachedLists:
        return cls(raw, candidates, fetch_options(options))

    def covers(self, options: SearchOptions) -> bool:
        """Whether ``options`` can be answered from these lists (else: search again)."""
        if options.mode != Mode.FTS and self.fetched.mode == Mode.FTS:
            return False  # the vector list was not fetched
        return options.depth <= self.fetched.depth and options.min_sim >= self.fetched.min_sim

    def fuse(self, options: SearchOptions) -> tuple[SearchResponse, Candidates]:
        """The response for ``options``, and the lists it was fused from (after the floor)."""
        candidates = with_floor(self.candidates, options)
        if options.mode == Mode.SEMANTIC and not (
            candidates.semantic.available or candidates.listing
        ):
            return SearchResponse(
                candidates.query.raw, options, candidates.semantic, []
            ), candidates
        return fuse(candidates, options), candidates


def with_floor(candidates: Candidates, options: SearchOptions) -> Candidates:
    """``candidates`` fetched with :func:`fetch_options`, as ``options``' floors leave them.

    The floors drop the tail of the best-first vector list: exactly what a new fetch with those
    floors would return (its head is the vault's best note, whatever the depth).
    """
    kept = options.above_floor(candidates.vector)
    return candidates if len(kept) == len(candidates.vector) else replace(candidates, vector=kept)
