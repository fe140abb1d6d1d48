"""The recency prior: a third contribution to a hit's fused score, for how recently its note was
modified (``options.recency``, off by default), on the scale of the fusion method's lists."""

from __future__ import annotations

from explorer.search.fusion.methods import Fused, best_first
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import Fusion, SearchOptions

#: Seconds in a day: the recency prior's half-life is in days.
DAY_S = 86400.0


def recency(candidates: Candidates, path: str, half_life_days: float) -> float:
    """How recent the note at ``path`` is when the lists were made: ½ for every
    ``half_life_days`` since it was modified (1 modified then or later, 0 for a note the
    candidates do not describe)."""
    info = candidates.notes.get(path)
    if info is None:
        return 0.0
    age = max(0.0, candidates.now - info.mtime_ns / 1e9) / DAY_S
    return float(0.5 ** (age / half_life_days))


def recency_prior(
    candidates: Candidates, options: SearchOptions, fused: list[Fused]
) -> list[Fused]:
    """``fused`` with the recency prior added, as a third named contribution (``recency``),
    re-ranked; ``fused`` itself when the prior is off (``options.recency`` 0).

    A note's contribution is ``w × recency`` (:func:`recency`) on the scale of the method's
    lists: as it is under the convex and the calibrated fusion (a list adds up to its weight);
    over ``k + 1`` under RRF (what a list's first hit adds at weight 1).  Added, not a chance
    combined with the lists' (``w × recency × (1 − score)`` would leave two notes of certain
    evidence, which the calibrated fusion scores 1, tied, however old one of them is).  The
    prior only reorders the notes a list found: it finds none itself, nor does it judge a close
    match.  The lists' contributions are left as they are, and the contributions still add up
    to the score.
    """
    weight = options.recency
    if weight <= 0:
        return fused
    out = []
    for item in fused:
        prior = weight * recency(candidates, item.id, options.half_life)
        if options.fusion == Fusion.RRF:
            prior /= options.k + 1.0
        contributions = {**item.contributions, "recency": prior}
        out.append(Fused(item.id, item.score + prior, item.ranks, contributions))
    out.sort(key=best_first)
    return out
