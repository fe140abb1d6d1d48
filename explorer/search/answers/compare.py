"""Two search settings side by side: how each note moved, and how much the two rankings agree.

A comparison takes two :class:`~explorer.search.fusion.results.SearchResponse` of one query, A (the
baseline) and B (the settings tried), and gives a row for every note of either top N with its
rank under each and the move from A to B (positive: B ranks it higher), the overlap of the two
top-10s (:func:`jaccard_at`) and of the two whole rankings (:func:`rbo`, rank-biased overlap),
and, for each side, how much its lexical and vector lists agree (:class:`ListAgreement`).

:func:`compare_lists` fuses both settings from one
:class:`~explorer.search.fusion.cached.CachedLists` (no search at all); :func:`compare_query`
fetches one set of lists that covers both settings (:func:`covering`) and compares from it, so a
comparison costs one search.  No Qt here: the command line (``vault-explorer compare``) and the
window's pinned baseline use the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from explorer.search.fusion.cached import CachedLists, fetch_options
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import Candidates, Hit, SearchResponse, SemanticUnavailable
from explorer.search.query.options import Fusion, Mode, SearchOptions

#: The depth of the top lists whose Jaccard overlap is reported.
JACCARD_DEPTH = 10
#: The persistence of rank-biased overlap: the weight of the top d ranks is 1 - p^d (0.9: the
#: top 10 carry 86% of the weight).
RBO_P = 0.9

NEW = "new"
GONE = "gone"


def jaccard_at(a: Sequence[str], b: Sequence[str], n: int = JACCARD_DEPTH) -> float:
    """|A ∩ B| / |A ∪ B| over the first ``n`` of each list; two empty lists agree (1.0)."""
    top_a, top_b = set(a[:n]), set(b[:n])
    union = top_a | top_b
    return len(top_a & top_b) / len(union) if union else 1.0


def rbo(a: Sequence[str], b: Sequence[str], p: float = RBO_P) -> float:
    """Rank-biased overlap of two rankings, extrapolated (RBO_ext, Webber, Moffat and Zobel
    2010, eq. 32): the agreement seen down to the end of the shorter list is assumed to go on.

    1.0 for identical lists, 0.0 for disjoint ones; top ranks weigh more (``p`` near 1 looks
    deeper).  Two empty lists agree (1.0); an empty and a non-empty one do not (0.0).
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be between 0 and 1, got {p:g}")
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, ell = len(short), len(long_)
    if ell == 0:
        return 1.0
    if s == 0:
        return 0.0
    seen_short: set[str] = set()
    seen_long: set[str] = set()
    overlap = 0
    x_s = 0
    weighted = 0.0  # Σ_{d=1..l} X_d / d · p^d
    tail = 0.0  # Σ_{d=s+1..l} X_s (d - s) / (s d) · p^d
    for d in range(1, ell + 1):
        if d <= s:
            item = short[d - 1]
            seen_short.add(item)
            overlap += item in seen_long
        item = long_[d - 1]
        seen_long.add(item)
        overlap += item in seen_short
        if d == s:
            x_s = overlap
        weighted += overlap / d * p**d
        if d > s:
            tail += x_s * (d - s) / (s * d) * p**d
    x_l = overlap
    return (1 - p) / p * (weighted + tail) + ((x_l - x_s) / ell + x_s / s) * p**ell


@dataclass(frozen=True, slots=True)
class ListAgreement:
    """How much one side's lexical and vector lists agree (after depth and floors)."""

    lexical: int  # notes in the lexical list
    vector: int  # notes in the vector list
    common: int  # notes in both lists
    jaccard10: float  # Jaccard of the two lists' top 10
    hits_in_both: int  # shown hits that both lists found

    def to_json(self) -> dict[str, Any]:
        return {
            "lexical": self.lexical,
            "vector": self.vector,
            "common": self.common,
            "jaccard10": round(self.jaccard10, 4),
            "hitsInBoth": self.hits_in_both,
        }

    def text(self) -> str:
        if not (self.lexical and self.vector):
            return f"one list ({self.lexical} lexical, {self.vector} vector)"
        return (
            f"lists agree {self.jaccard10:.2f}@10 ({self.common} in both of "
            f"{self.lexical} lexical, {self.vector} vector)"
        )


def list_agreement(candidates: Candidates | None, response: SearchResponse) -> ListAgreement:
    """The agreement of the lists ``response`` was fused from (``candidates`` as fused, after
    the floors; ``None``: read what the hits say)."""
    depth = response.options.depth
    if candidates is not None:
        lexical = [p for p, _, _ in candidates.lexical[:depth]]
        available = candidates.semantic.available
        vector = [v.path for v in candidates.vector[:depth]] if available else []
    else:
        lexical = [h.path for h in sorted(response.hits, key=_fts_key) if h.fts_rank is not None]
        vector = [h.path for h in sorted(response.hits, key=_vec_key) if h.vector_rank is not None]
    if response.options.mode == Mode.FTS:
        vector = []
    elif response.options.mode == Mode.SEMANTIC:
        lexical = []
    hits_in_both = sum(h.fts_rank is not None and h.vector_rank is not None for h in response.hits)
    return ListAgreement(
        lexical=len(lexical),
        vector=len(vector),
        common=len(set(lexical) & set(vector)),
        jaccard10=jaccard_at(lexical, vector) if lexical or vector else 0.0,
        hits_in_both=hits_in_both,
    )


def _fts_key(hit: Hit) -> int:
    return hit.fts_rank or 0


def _vec_key(hit: Hit) -> int:
    return hit.vector_rank or 0


@dataclass(frozen=True, slots=True)
class Row:
    """One note of either top N: its ranks under A and under B (``None``: not in that top)."""

    path: str
    title: str
    rank_a: int | None
    rank_b: int | None
    hit: Hit  # B's hit when B has it, else A's

    @property
    def delta(self) -> int | None:
        """The move from A to B (positive: up); ``None`` when one side does not have it."""
        if self.rank_a is None or self.rank_b is None:
            return None
        return self.rank_a - self.rank_b

    @property
    def move(self) -> int | str:
        """:attr:`delta`, or ``"new"`` (only in B) or ``"gone"`` (only in A)."""
        if self.rank_a is None:
            return NEW
        if self.rank_b is None:
            return GONE
        return self.rank_a - self.rank_b

    def move_text(self) -> str:
        move = self.move
        if isinstance(move, str):
            return move
        return f"↑{move}" if move > 0 else f"↓{-move}" if move < 0 else "="

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "rankA": self.rank_a,
            "rankB": self.rank_b,
            "delta": self.delta,
            "move": self.move if isinstance(self.move, str) else _move_word(self.move),
        }


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


def _move_word(delta: int) -> str:
    return "up" if delta > 0 else "down" if delta < 0 else "same"


@dataclass(frozen=True, slots=True)
class Comparison:
    query: str
    a: SearchOptions
    b: SearchOptions
    rows: tuple[Row, ...]  # B's order, then the notes only A has in A's order
    jaccard10: float
    rbo: float
    lists_a: ListAgreement
    lists_b: ListAgreement
    rbo_p: float = RBO_P
    semantic_reason: str | None = None  # why a side that asked for vectors has none

    def row(self, path: str) -> Row | None:
        return next((r for r in self.rows if r.path == path), None)

    @property
    def gone(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.rank_b is None)

    def overlap_text(self) -> str:
        return (
            f"Jaccard@{JACCARD_DEPTH} {self.jaccard10:.2f} · RBO(p={self.rbo_p:g}) {self.rbo:.2f}"
        )

    def lines(self, title_width: int = 40) -> list[str]:
        """The readable form: both settings, the overlap, then one line a row."""
        width = min(title_width, max((len(r.title) for r in self.rows), default=5))
        out = [
            f"A  {describe(self.a)}",
            f"B  {describe(self.b)}",
            self.overlap_text(),
            f"A {self.lists_a.text()} · B {self.lists_b.text()}",
            f"{'A':>3}  {'B':>3}  {'move':>4}  {'title':<{width}}  path",
        ]
        for r in self.rows:
            title = r.title if len(r.title) <= width else r.title[: width - 1] + "…"
            out.append(
                f"{_rank(r.rank_a):>3}  {_rank(r.rank_b):>3}  {r.move_text():>4}  "
                f"{title:<{width}}  {r.path}"
            )
        if not self.rows:
            out.append("no results under either setting")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "overlap": {"jaccard10": round(self.jaccard10, 4), "rbo": round(self.rbo, 4)},
            "rboP": self.rbo_p,
            "lists": {"a": self.lists_a.to_json(), "b": self.lists_b.to_json()},
            "rows": [r.to_json() for r in self.rows],
        }


def compare_responses(
    a: SearchResponse,
    b: SearchResponse,
    *,
    candidates_a: Candidates | None = None,
    candidates_b: Candidates | None = None,
    p: float = RBO_P,
) -> Comparison:
    """A (the baseline) against B, over each response's hits (its top ``limit``)."""
    paths_a = [h.path for h in a.hits]
    paths_b = [h.path for h in b.hits]
    rank_a = {path: rank for rank, path in enumerate(paths_a, start=1)}
    rank_b = {path: rank for rank, path in enumerate(paths_b, start=1)}
    rows = [Row(h.path, h.title, rank_a.get(h.path), rank_b[h.path], h) for h in b.hits]
    rows += [Row(h.path, h.title, rank_a[h.path], None, h) for h in a.hits if h.path not in rank_b]
    return Comparison(
        query=b.query,
        a=a.options,
        b=b.options,
        rows=tuple(rows),
        jaccard10=jaccard_at(paths_a, paths_b),
        rbo=rbo(paths_a, paths_b, p),
        lists_a=list_agreement(candidates_a, a),
        lists_b=list_agreement(candidates_b, b),
        rbo_p=p,
        semantic_reason=_semantic_reason(a) or _semantic_reason(b),
    )


def _semantic_reason(response: SearchResponse) -> str | None:
    if response.options.mode == Mode.FTS or response.listing or response.semantic.available:
        return None
    return response.semantic.reason or "no vector list"


def covering(a: SearchOptions, b: SearchOptions) -> SearchOptions:
    """Settings whose fetched lists (:func:`~explorer.search.fusion.cached.fetch_options`) answer
    both ``a`` and ``b``: both lists unless both are lexical, the deeper depth, the lower floor."""
    return fetch_options(
        replace(
            b,
            mode=Mode.FTS if a.mode == b.mode == Mode.FTS else Mode.HYBRID,
            depth=max(a.depth, b.depth),
            min_sim=min(a.min_sim, b.min_sim),
        )
    )


def compare_lists(lists: CachedLists, a: SearchOptions, b: SearchOptions) -> Comparison:
    """Fuse ``a`` and ``b`` from the same cached lists (which must cover both) and compare."""
    if not (lists.covers(a) and lists.covers(b)):
        raise ValueError("the cached lists do not cover both settings; fetch covering(a, b)")
    response_a, candidates_a = lists.fuse(a)
    response_b, candidates_b = lists.fuse(b)
    return compare_responses(
        response_a, response_b, candidates_a=candidates_a, candidates_b=candidates_b
    )


def compare_query(searcher: Searcher, raw: str, a: SearchOptions, b: SearchOptions) -> Comparison:
    """Compare ``a`` with ``b`` for the query ``raw``: one search, two fusions."""
    a, b = a.validate(), b.validate()
    fetched = covering(a, b)
    candidates = searcher.candidates(raw, fetched)
    semantic = candidates.semantic
    if Mode.SEMANTIC in (a.mode, b.mode) and not (semantic.available or candidates.listing):
        raise SemanticUnavailable(f"semantic search is unavailable: {semantic.reason}")
    return compare_lists(CachedLists.of(raw, candidates, fetched), a, b)


def describe(options: SearchOptions) -> str:
    """A short description of the ranking settings, for a heading: ``hybrid RRF k=60 …``."""
    parts: list[str] = [options.mode]
    if options.mode == Mode.HYBRID:  # one list alone keeps its own order, whatever the fusion
        parts.append("RRF" if options.fusion == Fusion.RRF else options.fusion)
        if options.fusion == Fusion.RRF:
            parts.append(f"k={options.k:g}")
        parts.append(f"w {options.w_fts:g}/{options.w_vec:g}")
    parts.append(f"depth {options.depth}")
    if options.mode != Mode.FTS:
        parts.append(f"min-sim {options.min_sim:g}")
        if options.min_rel:
            parts.append(f"min-rel {options.min_rel:g}")
    return " ".join(parts)
