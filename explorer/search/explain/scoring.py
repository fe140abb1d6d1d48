"""How a hit's fused score was made, as values: each list's rank, evidence and contribution, the
fused score and its arithmetic, the best passage — :class:`Scored`, the part of an
:class:`~explorer.search.explain.explanation.Explanation` every renderer states (the window's
explain block, ``explain``'s text and JSON).

:func:`scored` is the one function that computes its numbers, from a hit of the search's own
fusion and what the search's candidates say of it (:class:`ExplainContext`); the renderers only
format them.  Numbers a renderer states to five decimals (contributions, evidence, the weighed
evidence, the fused score) are held here rounded to five, so that every rendering states the
same ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from explorer.index.vectors import CosineSpread
from explorer.search.fusion.evidence import weighs_otherwise
from explorer.search.fusion.fusion import list_weights
from explorer.search.fusion.methods import TITLE
from explorer.search.fusion.results import Candidates, Hit, SearchResponse
from explorer.search.query.options import Fusion, Mode, SearchOptions

#: The lists whose evidence the calibrated fusion weighs, in the order its letters name them,
#: and the word each is said by.
LISTS = (("fts", "lexical"), ("vector", "vector"), (TITLE, "title"))

#: The decimals a score, a contribution or an evidence is stated to.
PLACES = 5


def _five(value: float) -> float:
    return round(value, PLACES)


@dataclass(frozen=True)
class ExplainContext:
    """What a hit's explanation needs besides the hit: the settings and the lists' lengths."""

    options: SearchOptions
    rank: int
    total: int
    lexical_count: int
    vector_count: int
    semantic_available: bool
    semantic_reason: str | None = None
    listing: bool = False
    extra: list[str] = field(default_factory=list)
    #: The query's content words (what a lexical hit's coverage counts), and how its cosines
    #: spread over the vault (what a vector hit's σ are counted from).
    content_words: int = 0
    spread: CosineSpread | None = None
    #: The query's vector and the model it is of (``None``: no vector list), so that the
    #: preview can score every chunk of the note (:mod:`explorer.search.lists.chunk_scores`).
    query_vector: Any = field(default=None, compare=False, repr=False)
    model: str | None = None


def explain_context(
    hit: Hit,
    rank: int,
    response: SearchResponse,
    candidates: Candidates | None,
    total: int | None = None,
) -> ExplainContext:
    """What the explanation of ``hit`` needs, at fused ``rank`` of ``response`` (of ``total``
    notes ranked: default the hits of ``response``)."""
    depth = min(response.options.depth, candidates.depth) if candidates else 0
    return ExplainContext(
        options=response.options,
        rank=rank,
        total=len(response.hits) if total is None else total,
        lexical_count=len(candidates.lexical[:depth]) if candidates else 0,
        vector_count=len(candidates.vector[:depth]) if candidates else 0,
        semantic_available=response.semantic.available,
        semantic_reason=response.semantic.reason,
        listing=response.listing,
        content_words=len(candidates.query.content_parts()) if candidates else 0,
        spread=response.spread,
        query_vector=(
            candidates.query_vector if candidates and response.semantic.available else None
        ),
        model=response.semantic.model,
    )


# ----------------------------------------------------------------------------- the values


@dataclass(frozen=True, slots=True)
class LexicalEvidence:
    """What the lexical list says of the note: the pass that found it, the content words it
    holds (and their weight, where rarity weighs them otherwise than their count), its bm25."""

    passed: str | None
    held: int | None  # content words it holds (None: the query's count is not known)
    words: int
    coverage: float | None  # the share of them it holds
    weighted: float | None  # that share weighed by rarity (None: it weighs the same)
    bm25: float | None


@dataclass(frozen=True, slots=True)
class VectorEvidence:
    """What the vector list says of the note: its best chunk's cosine, and how far that
    stands from the query's cosines over the vault."""

    cosine: float
    sigmas: float | None  # how far from the vault mean, unsigned (None: the spread is unknown)
    above: bool
    mean: float | None
    std: float | None
    flat: bool  # the query's cosines do not spread over the vault


@dataclass(frozen=True, slots=True)
class Share:
    """One list's part in the fused score: the note's rank in it, what it adds, its evidence,
    and what each fusion makes of it."""

    name: str  # "fts", "vector" or "title"
    rank: int | None  # in the list (None: the list did not find it)
    listed: int  # notes in the list, to the depth
    contribution: float | None  # what it adds to the fused score (None: not in the list)
    evidence: float | None  # calibrated, 0..1 (None: it says nothing of the note)
    weight: float
    #: The convex fusion's term: the contribution over the weight (None: another fusion,
    #: weight 0, or not in the list).
    normalised: float | None = None
    #: The calibrated fusion's term: weight × evidence, held to 1 (None: no evidence).
    weighed: float | None = None
    held_to_one: bool = False
    lexical: LexicalEvidence | None = None
    vector: VectorEvidence | None = None


@dataclass(frozen=True, slots=True)
class TitleShare:
    """The note's title or an alias matching the query: how closely, and the name."""

    share: Share
    closeness: str  # "exact" or "near"
    name: str
    alias: bool


@dataclass(frozen=True, slots=True)
class RecencyShare:
    """The recency prior's part: how recent the note is and what that adds."""

    recent: float  # ½ every half-life since it was modified
    half_life: float
    weight: float
    contribution: float


@dataclass(frozen=True, slots=True)
class Scored:
    """How the note's fused score was made, and where the search placed it."""

    rank: int  # in the fused list
    total: int
    method: str  # the fusion (or "listing")
    k: float
    source: str | None  # "both", "fts", "vector", "title"
    score: float
    #: The score the lists make, before the recency prior's part.
    lists_score: float
    lexical: Share | None  # None: the mode does not read the list
    vector: Share | None  # None: the mode does not read it, or there is no vector list
    #: Why there is no vector list (None: there is one, or the mode does not read it).
    unavailable: str | None
    title: TitleShare | None
    recency: RecencyShare | None
    #: The calibrated fusion's terms, in the order of their letters (a, b, c).
    terms: tuple[Share, ...]
    #: The best passage's character range in the note, and its chunk's number (0-based).
    passage: tuple[int, int] | None
    passage_seq: int | None
    stale: bool
    depth: int
    min_sim: float
    half_life: float
    extra: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Its values as JSON's (lists, not tuples); ``terms``: the lists the calibrated
        fusion's letters name, in order."""
        return {
            **asdict(self),
            "passage": None if self.passage is None else list(self.passage),
            "terms": [t.name for t in self.terms],
            "extra": list(self.extra),
        }


# ----------------------------------------------------------------------------- the numbers


def scored(hit: Hit, ctx: ExplainContext) -> Scored:
    """Every number of ``hit``'s fused score, made once: what the renderers state."""
    o = ctx.options
    weights = list_weights(o)
    c = hit.contributions
    lexical = vector = None
    if o.mode != Mode.SEMANTIC and not ctx.listing:
        lexical = _share(hit, "fts", hit.fts_rank, ctx.lexical_count, weights, o)
        if hit.fts_rank is not None:
            lexical = replace(lexical, lexical=_lexical(hit, ctx.content_words))
    unavailable = None
    if o.mode != Mode.FTS and not ctx.listing:
        if not ctx.semantic_available:
            unavailable = ctx.semantic_reason or "unavailable"
        else:
            vector = _share(hit, "vector", hit.vector_rank, ctx.vector_count, weights, o)
            if hit.vector_rank is not None and hit.vector_score is not None:
                vector = replace(vector, vector=_vector(hit, ctx.spread))
    title = None
    match = hit.title_match
    if match is not None and TITLE in hit.evidence and not ctx.listing:
        share = _share(hit, TITLE, None, 0, weights, o)
        title = TitleShare(share, match.closeness, match.name, match.alias)
    recency = None
    prior = c.get("recency")
    if hit.recency is not None and prior is not None:
        recency = RecencyShare(hit.recency, o.half_life, o.recency, _five(prior))
    terms = tuple(
        s
        for s in (lexical, vector, title.share if title else None)
        if s is not None and s.weighed is not None
    )
    return Scored(
        rank=ctx.rank,
        total=ctx.total,
        method="listing" if ctx.listing else str(o.fusion),
        k=o.k,
        source=hit.source,
        score=_five(hit.fused_score),
        lists_score=_five(hit.fused_score - (prior or 0.0)),
        lexical=lexical,
        vector=vector,
        unavailable=unavailable,
        title=title,
        recency=recency,
        terms=terms,
        passage=hit.best_chunk if hit.vector_rank is not None else None,
        passage_seq=hit.best_chunk_seq,
        stale=hit.demoted,
        depth=o.depth,
        min_sim=o.min_sim,
        half_life=o.half_life,
        extra=tuple(ctx.extra),
    )


def _share(
    hit: Hit,
    name: str,
    rank: int | None,
    listed: int,
    weights: dict[str, float],
    options: SearchOptions,
) -> Share:
    """``hit``'s part from list ``name``; its weight is the one the fusion gave it
    (:func:`~explorer.search.fusion.fusion.list_weights`: the title's is 0 when the words'
    is)."""
    weight = weights.get(name, 0.0)
    found = rank is not None or name == TITLE
    contribution = hit.contributions.get(name, 0.0) if found else None
    evidence = hit.evidence.get(name)
    weighed = None if evidence is None else min(1.0, max(0.0, weight * evidence))
    return Share(
        name=name,
        rank=rank,
        listed=listed,
        contribution=None if contribution is None else _five(contribution),
        evidence=None if evidence is None else _five(evidence),
        weight=weight,
        normalised=(
            contribution / weight
            if options.fusion == Fusion.CONVEX and contribution is not None and weight > 0
            else None
        ),
        weighed=None if weighed is None else _five(weighed),
        held_to_one=evidence is not None and weight * evidence > 1,
    )


def _lexical(hit: Hit, content_words: int) -> LexicalEvidence:
    coverage = hit.coverage
    held = round(coverage * content_words) if coverage is not None and content_words > 0 else None
    rarer = weighs_otherwise(coverage, hit.weighted_coverage)
    return LexicalEvidence(
        passed=hit.fts_pass,
        held=held,
        words=content_words,
        coverage=coverage,
        weighted=(hit.weighted_coverage or 0.0) if rarer else None,
        bm25=hit.fts_score,
    )


def _vector(hit: Hit, spread: CosineSpread | None) -> VectorEvidence:
    assert hit.vector_score is not None
    known = spread is not None and bool(spread.notes)
    flat = known and spread is not None and spread.flat
    sigmas = hit.vector_sigmas if known and not flat else None
    return VectorEvidence(
        cosine=hit.vector_score,
        sigmas=None if sigmas is None else abs(sigmas),
        above=sigmas is None or sigmas >= 0,
        mean=spread.mean if known and spread is not None else None,
        std=spread.std if known and spread is not None else None,
        flat=flat,
    )
