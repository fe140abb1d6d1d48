"""Fusing a search's :class:`~explorer.search.fusion.results.Candidates`: each list read as the
mode uses it, turned into calibrated evidence (:mod:`explorer.search.fusion.evidence`) where the
method wants it, fused by one of :mod:`explorer.search.fusion.methods`, stale notes demoted, and
the hits built.  Pure over its input: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TypeVar

from explorer.search.fusion import evidence
from explorer.search.fusion.methods import (
    TITLE,
    Fused,
    convex,
    noisy_or,
    rrf,
)
from explorer.search.fusion.recency import recency, recency_prior
from explorer.search.fusion.results import (
    Candidates,
    Hit,
    SearchResponse,
    VectorCandidate,
    is_demoted,
    model_reads,
)
from explorer.search.lists.lexical import PASSES
from explorer.search.lists.snippet import marked_words, plain_snippet
from explorer.search.lists.titles import TitleMatch
from explorer.search.query.options import Fusion, Mode, SearchOptions

_T = TypeVar("_T")


# ----------------------------------------------------------------------------- a search's lists

#: Lower bounds of the convex fusion's normalisation, per list (a list not named here is
#: min-max normalised over its own candidates).  0 for both: bm25 cannot go below 0, and a cosine
#: at or below 0 means "unrelated" for sentence embeddings, so each list's scores count as a
#: fraction of its best one.  Measured on SciFact train (nDCG@10, w_fts 0.2..0.7): min-max over
#: the candidates 0.702-0.736, these bounds 0.727-0.737 (flattest across weights), Bruch et al.'s
#: theoretical minima (0 for bm25, -1 for cosine) 0.719-0.736, best at the lowest w_fts.
CONVEX_LOWER_BOUNDS: dict[str, float] = {"fts": 0.0, "vector": 0.0}


def fuse(
    candidates: Candidates, options: SearchOptions, *, upto: int | None = None
) -> SearchResponse:
    """Ranked hits from cached candidates: fusion, stale demotion, limit.  Pure over its input.
    ``upto``: hits made down to that rank instead of the limit (``explain``'s, for a note
    further down than a search shows)."""
    options = options.validate().in_effect()
    semantic = candidates.semantic
    depth = min(options.depth, candidates.depth)
    lexical = candidates.lexical[:depth]
    vector = candidates.vector[:depth]
    limit = options.limit if upto is None else upto
    if candidates.listing:  # as many notes as the limit, the lists' depth aside
        hits = [
            _hit(candidates, path, snippet, 0.0, {}, fused_rank=rank)
            for rank, (path, _, snippet) in enumerate(candidates.lexical, start=1)
        ]
        return SearchResponse(
            candidates.query.raw,
            options,
            semantic,
            hits[:limit],
            listing=True,
            timings=dict(candidates.timings),
            notes=tuple(candidates.query.notes),
            matched=candidates.matched,
        )
    weighted = lexical_coverage(candidates)  # once: the evidence and the hits read it
    fused, lists, weighed = _ranked(candidates, options, lexical, vector, weighted)
    lex_by_path = {p: (s, snip) for p, s, snip in lexical}
    vec_by_path = {v.path: v for v in vector}
    strength = (
        _by_note(weighed)
        if weighed is not None
        else calibrated_scores(candidates, options, lexical, vector, weighted)
    )
    # Hits (and snippets, the costly part) are made only for what is shown.
    marked = marked_words(candidates.query)
    hits = []
    for rank, item in enumerate(fused[:limit], start=1):
        lex = lex_by_path.get(item.id) if "fts" in lists else None
        vec = vec_by_path.get(item.id) if "vector" in lists else None
        contributions = {"fts": item.contributions.get("fts", 0.0)}
        contributions["vector"] = item.contributions.get("vector", 0.0)
        for extra in (TITLE, "recency"):
            if extra in item.contributions:
                contributions[extra] = item.contributions[extra]
        snippet = lex[1] if lex else plain_snippet(vec.chunk_text if vec else "", marked)
        hits.append(
            _hit(
                candidates,
                item.id,
                snippet,
                item.score,
                contributions,
                item.ranks.get("fts"),
                item.ranks.get("vector"),
                lex[0] if lex else None,
                vec.score if vec else None,
                item.source,
                vec.chunk if vec else None,
                strength.get(item.id, {}),
                vec,
                weighted,
                rank,
                recency(candidates, item.id, options.half_life) if options.recency else None,
                candidates.titles.get(item.id) if TITLE in lists else None,
            )
        )
    return SearchResponse(
        candidates.query.raw,
        options,
        semantic,
        hits,
        timings=dict(candidates.timings),
        close_match=close_match(strength, [f.id for f in fused], options, lists),
        judged_on=judged_on(lists, options),
        spread=candidates.spread if options.mode != Mode.FTS and semantic.available else None,
        notes=tuple(candidates.query.notes),
    )


def calibrated_scores(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
    coverage: Mapping[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """Each candidate's calibrated evidence per list (:mod:`explorer.search.fusion.evidence`),
    whatever method ranks the hits: what "close match" is decided on, and what explain shows."""
    scored = scored_lists(candidates, options, lexical, vector)
    return _by_note(evidence_lists(candidates, scored, coverage))


def _by_note(weighed: dict[str, list[tuple[str, float]]]) -> dict[str, dict[str, float]]:
    """Evidence lists (:func:`evidence_lists`) as each note's evidence per list."""
    out: dict[str, dict[str, float]] = {}
    for name, items in weighed.items():
        for doc, value in items:
            out.setdefault(doc, {})[name] = max(value, out.get(doc, {}).get(name, 0.0))
    return out


def judged_on(lists: Iterable[str], options: SearchOptions) -> tuple[str, ...]:
    """The lists that judge whether a search has a close match: those that answered, and that
    the search weighs (a weight of 0 ranks nothing); a title or alias matching the query
    (:data:`TITLE`) always."""
    weights = list_weights(options)
    return tuple(name for name in lists if weights.get(name, 0.0) > 0)


def list_weights(options: SearchOptions) -> dict[str, float]:
    """The weight of each list the calibrated fusion fuses: the options' own, and the title
    evidence's (:data:`TITLE`), 1 while the lexical list is weighed at all (a name is words:
    a search that weighs no words weighs no name either)."""
    return {**options.weights, TITLE: 1.0 if options.w_fts > 0 else 0.0}


def close_match(
    strength: dict[str, dict[str, float]],
    listed: list[str],
    options: SearchOptions,
    lists: Iterable[str],
) -> bool | None:
    """Whether a note the search lists is close to the query: its calibrated evidence, at full
    weight, from the lists that judge (:func:`judged_on`), reaches the bar.  The weights order
    the hits; whether a note is close is what the lists say of it.  No hit, no close match.

    ``None`` (not judged) when a hybrid search has only its words to judge by (the meaning
    model still loading, or no vectors yet) and they fall short: a note that holds half of
    "Erstattung meines Abos" may be the refund policy or may be nothing, and only the meaning
    list could tell; it is not said to be far for want of that list."""
    judges = judged_on(lists, options)
    best = max(
        (
            combined({n: e for n, e in strength.get(path, {}).items() if n in judges})
            for path in listed
        ),
        default=0.0,
    )
    if best >= evidence.CALIBRATION.close:
        return True
    if listed and options.mode == Mode.HYBRID and judges == ("fts",):
        return None
    return False


def combined(strength: dict[str, float]) -> float:
    """Calibrated evidence of every list, combined as :func:`noisy_or` does (weights 1).
    One list's evidence is itself (``1 − (1 − 0.45)`` is 0.44999999999999996, under a bar of
    0.45 that the evidence reaches)."""
    values = list(strength.values())
    if len(values) == 1:
        return values[0]
    missing = 1.0
    for value in values:
        missing *= 1.0 - value
    return 1.0 - missing


def ranked(candidates: Candidates, options: SearchOptions) -> list[str]:
    """The note paths :func:`fuse` ranks, best first and cut to the limit, without building
    hits or snippets: what a sweep scores (:mod:`explorer.evaluate.sweep`)."""
    options = options.validate().in_effect()
    depth = min(options.depth, candidates.depth)
    if candidates.listing:
        return [path for path, _, _ in candidates.lexical][: options.limit]
    fused, _, _ = _ranked(
        candidates, options, candidates.lexical[:depth], candidates.vector[:depth]
    )
    return [f.id for f in fused[: options.limit]]


def _ranked(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
    coverage: Mapping[str, float] | None = None,
) -> tuple[list[Fused], dict[str, list[str]], dict[str, list[tuple[str, float]]] | None]:
    """The fused list, stale notes after all others (keeping their order within each tier), the
    id lists it was fused from, by list name, and their calibrated evidence if the fusion used
    it (``None``: it did not)."""
    fused, scored, weighed = _fuse_lists(candidates, options, lexical, vector, coverage)
    fused = [f for f in fused if f.score > 0]  # a note worth nothing is not a hit
    fused.sort(key=lambda f: demoted(candidates, f.id))
    return fused, {name: [p for p, _ in items] for name, items in scored.items()}, weighed


def fuse_lists(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
    coverage: Mapping[str, float] | None = None,
) -> tuple[list[Fused], dict[str, list[tuple[str, float]]]]:
    """The lists the mode uses, fused by the options' method, before stale demotion; and those
    lists as ``(id, score)`` by list name (what :mod:`explorer.search.explain.explain` reasons
    over)."""
    fused, scored, _ = _fuse_lists(candidates, options, lexical, vector, coverage)
    return fused, scored


def _fuse_lists(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
    coverage: Mapping[str, float] | None = None,
) -> tuple[
    list[Fused],
    dict[str, list[tuple[str, float]]],
    dict[str, list[tuple[str, float]]] | None,
]:
    """:func:`fuse_lists`, and the evidence lists the calibrated fusion fused (else ``None``)."""
    weighed = None
    scored = scored_lists(candidates, options, lexical, vector)
    lists = {name: [p for p, _ in items] for name, items in scored.items()}
    # The title evidence is the calibrated fusion's: RRF and convex fuse the two lists as ever.
    own = [name for name in lists if name != TITLE]
    if options.fusion == Fusion.CALIBRATED:
        weighed = evidence_lists(candidates, scored, coverage)
        if "vector" in weighed:  # a note that does not stand above the bulk was not found
            scored["vector"] = scored["vector"][: len(weighed["vector"])]
            lists["vector"] = lists["vector"][: len(weighed["vector"])]
        fused = noisy_or(weighed, list_weights(options))
        if len(own) == 1:
            # One list fused is that list, in its own order (as convex), but for the notes
            # whose title or alias matches the query: exact ones first, then near ones.
            (only,) = own
            titles = candidates.titles if TITLE in scored else {}  # semantic mode reads none
            tier = {path: closeness_tier(match) for path, match in titles.items()}
            fused.sort(key=lambda f: (tier.get(f.id, 2), f.ranks.get(only) or math.inf))
    elif options.fusion == Fusion.CONVEX:
        bounds, tiers = CONVEX_LOWER_BOUNDS, convex_tiers(candidates)
        fused = convex(_without_title(scored), options.weights, lower_bounds=bounds, tiers=tiers)
        if len(own) == 1:
            # One list fused is that list: fts mode (and hybrid without vectors) keep the
            # lexical list's order (phrase pass first), whatever the bm25 scores say.
            (only,) = own
            fused.sort(key=lambda f: f.ranks[only] or 0)
    else:
        fused = rrf(_without_title(lists), options.k, options.weights)
    return recency_prior(candidates, options, fused), scored, weighed


def demoted(candidates: Candidates, path: str) -> bool:
    """Whether the note at ``path`` goes after every other hit: it is stale, and the query is
    not its very title or alias (typed, it is the note asked for, stale or not)."""
    match = candidates.titles.get(path)
    exact = match is not None and match.closeness == "exact"
    return not exact and is_demoted(candidates.notes, path)


def closeness_tier(match: TitleMatch) -> int:
    """Where a note whose title or alias matches goes in a one-list mode: 0 exact, 1 near."""
    return 0 if match.closeness == "exact" else 1


def _without_title(lists: Mapping[str, _T]) -> dict[str, _T]:
    """The lists but the title evidence (what RRF and the convex fusion fuse)."""
    return {name: items for name, items in lists.items() if name != TITLE}


def scored_lists(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
) -> dict[str, list[tuple[str, float]]]:
    """The lists the mode uses, as ``(id, raw score)`` by list name."""
    scored: dict[str, list[tuple[str, float]]] = {}
    if options.mode in (Mode.FTS, Mode.HYBRID):
        scored["fts"] = [(p, s) for p, s, _ in lexical]
    if options.mode in (Mode.SEMANTIC, Mode.HYBRID) and candidates.semantic.available:
        scored["vector"] = [(v.path, v.score) for v in vector]
    if options.mode in (Mode.FTS, Mode.HYBRID) and candidates.titles:
        # Exact before near; the raw score is the evidence (it has no other).
        found = sorted(candidates.titles.items(), key=lambda kv: (closeness_tier(kv[1]), kv[0]))
        scored[TITLE] = [(p, evidence.title_evidence(m.closeness)) for p, m in found]
    return scored


def evidence_lists(
    candidates: Candidates,
    scored: dict[str, list[tuple[str, float]]],
    coverage: Mapping[str, float] | None = None,
) -> dict[str, list[tuple[str, float]]]:
    """The lists as calibrated evidence (:mod:`explorer.search.fusion.evidence`), by list name;
    ``coverage``: :func:`lexical_coverage` of the candidates, where the caller has it."""
    out: dict[str, list[tuple[str, float]]] = {}
    if "fts" in scored:
        if coverage is None:
            coverage = lexical_coverage(candidates)
        out["fts"] = evidence.lexical_list_evidence(
            scored["fts"], candidates.lexical_tiers, coverage
        )
    if "vector" in scored:
        unread = model_reads(candidates.query, candidates.semantic.model) is False
        cal = evidence.calibration_for(candidates.semantic.model)
        found = evidence.vector_list_evidence(
            scored["vector"], candidates.spread, cal, unread=unread
        )
        while found and found[-1][1] <= 0:  # best first: the notes worth nothing are a tail
            found.pop()
        out["vector"] = found
    if TITLE in scored:
        out[TITLE] = list(scored[TITLE])
    return out


def lexical_coverage(candidates: Candidates) -> Mapping[str, float]:
    """The coverage the lexical evidence reads for each any-word-pass note: its content words
    weighed by their rarity in the vault
    (:func:`explorer.search.fusion.evidence.weighted_coverage`), or the plain share where the
    candidates carry no counts."""
    held = getattr(candidates, "lexical_held", None)
    term_notes = getattr(candidates, "term_notes", ())
    if not held or not term_notes:
        return candidates.lexical_coverage
    cal = evidence.calibration_for(candidates.semantic.model)
    return evidence.weighted_coverage(held, term_notes, candidates.note_count, cal)


def convex_tiers(candidates: Candidates) -> dict[str, dict[str, int]]:
    """The tiers the convex fusion normalises the lexical list by: its passes, so that a note
    the phrase pass found outscores, lexically, every note only the any-word pass found (bm25
    compares notes within one pass, not across passes)."""
    return {"fts": candidates.lexical_tiers}


def _hit(
    candidates: Candidates,
    path: str,
    snippet: str,
    score: float,
    contributions: dict[str, float],
    fts_rank: int | None = None,
    vector_rank: int | None = None,
    fts_score: float | None = None,
    vector_score: float | None = None,
    source: str | None = None,
    chunk: tuple[int, int] | None = None,
    strength: dict[str, float] | None = None,
    vec: VectorCandidate | None = None,
    weighted: Mapping[str, float] | None = None,
    fused_rank: int | None = None,
    recent: float | None = None,
    title_match: TitleMatch | None = None,
) -> Hit:
    info = candidates.notes.get(path)
    tier = candidates.lexical_tiers.get(path) if fts_rank is not None else None
    spread = candidates.spread
    return Hit(
        path=path,
        title=info.title if info else path,
        snippet=snippet,
        fused_score=score,
        contributions=contributions,
        fts_rank=fts_rank,
        vector_rank=vector_rank,
        fts_score=fts_score,
        vector_score=vector_score,
        source=source,
        best_chunk=chunk,
        status=info.status if info else None,
        tags=info.tags if info else (),
        fts_pass=PASSES[tier] if tier is not None else None,
        evidence=strength or {},
        vector_sigmas=(
            spread.sigmas(vector_score) if spread is not None and vector_score is not None else None
        ),
        coverage=candidates.lexical_coverage.get(path, 1.0) if tier is not None else None,
        weighted_coverage=(weighted or {}).get(path, 1.0) if tier is not None else None,
        best_chunk_seq=vec.seq if vec is not None else None,
        runner_up_chunk=vec.runner_up if vec is not None else None,
        fused_rank=fused_rank,
        recency=recent,
        title_match=title_match,
    )
