"""Fusing bare ranked lists, as pure functions: weighted Reciprocal Rank Fusion, a convex
combination of normalised scores, and the noisy-OR of calibrated evidence.

RRF (the default): ``score(d) = Σ over lists L of w_L / (k + rank_L(d))`` with 1-based ranks.
It sees only ranks, so it is blind to confidence: a cosine of 0.9 far above the rest of the
vector list and a lukewarm keyword hit enter as equals.  :func:`convex` uses the scores
themselves, normalised per list (Bruch et al., 2023, "An Analysis of Fusion Functions for Hybrid
Retrieval").  In both, a document found by one list still scores from that list, ties are broken
by document id ascending (so the result is deterministic, and scores equal to 12 significant
digits are a tie: the order of a sum's terms cannot break it), and each fused item carries, per
list, its rank and its contribution, which is what the window and ``--json`` show.

A search's candidates are fused by :mod:`explorer.search.fusion.fusion`, which calls these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations

#: The name of the title evidence among the lists (:mod:`explorer.search.lists.titles`): a note
#: whose title or alias matches the query, fused by the calibrated fusion as a list of its own.
TITLE = "title"


@dataclass(frozen=True, slots=True)
class Fused:
    """One document after fusion."""

    id: str
    score: float
    ranks: dict[str, int | None] = field(default_factory=dict)
    contributions: dict[str, float] = field(default_factory=dict)

    @property
    def source(self) -> str:
        """``both`` when both lists found it, else the name of the one list that did (the
        title evidence is no list that finds: ``title`` when only it did)."""
        found = [name for name, rank in self.ranks.items() if rank is not None]
        lists = [name for name in found if name != TITLE]
        if not lists:
            return TITLE if found else "none"
        return "both" if len(lists) > 1 else lists[0]


def rrf(
    lists: Mapping[str, Sequence[str]],
    k: float,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Weighted RRF of ranked id lists (best first), fused best first.

    ``lists`` maps a list name to its ids; a name missing from ``weights`` (or every name, without
    ``weights``) weighs 1 (the program's defaults: :mod:`explorer.search.query.options`).  An id
    that appears twice in one list counts at its best rank.  Raises ``ValueError`` when ``k <= 0``.
    """
    if not k > 0:
        raise ValueError(f"k must be positive, got {k}")
    weights = weights or {}
    ranks: dict[str, dict[str, int | None]] = {}
    for name, ids in lists.items():
        for position, doc in enumerate(ids, start=1):
            entry = ranks.setdefault(doc, dict.fromkeys(lists, None))
            if entry[name] is None:
                entry[name] = position
    fused = []
    for doc, doc_ranks in ranks.items():
        contributions = {
            name: (weights.get(name, 1.0) / (k + rank) if rank is not None else 0.0)
            for name, rank in doc_ranks.items()
        }
        fused.append(Fused(doc, sum(contributions.values()), doc_ranks, contributions))
    fused.sort(key=best_first)
    return fused


def convex(
    lists: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    *,
    lower_bounds: Mapping[str, float] | None = None,
    tiers: Mapping[str, Mapping[str, int]] | None = None,
) -> list[Fused]:
    """Convex combination of normalised scores (Bruch, Gai & Ingber, 2023), best first.

    ``lists`` maps a list name to its ``(id, score)`` candidates, best first, higher scores
    better.  Each list's scores are min-max normalised over that list's own candidates,
    ``(s - min) / (max - min)``, so the best candidate of a list gets 1 and its worst 0; when
    every candidate of a list has the same score they all get 1 (none is worse than another).
    ``lower_bounds`` replaces the observed minimum of a list by a fixed one (the paper's
    "theoretical min-max", e.g. 0 for bm25): ``(s - low) / (max - low)``, and a score below it
    normalises to 0; a list whose best score is not above its bound contributes nothing.

    ``score(d) = Σ over lists L of w_L · norm_L(d)``; a document a list did not find gets 0 from
    it.  Unlike RRF, the fused score keeps each list's confidence: a cosine far above the rest
    of its list outweighs a lukewarm keyword hit.  Ranks are the 1-based positions in each list
    (an id repeated in one list counts at its best position and best score); contributions are
    ``w_L · norm_L(d)``.  Ties are broken by id ascending.

    ``tiers`` gives, for a list whose order is not its scores' order, each id's tier (lower is
    better: the lexical list's passes, phrase before all words before any word).  Such a list
    is normalised per tier, and the ``T`` tiers present share the unit interval, best tier on
    top: ``norm = (T - 1 - j + norm_tier(d)) / T`` for the ``j``-th tier (0 the best), so every
    note of a better tier outscores every note of a worse one, as in the list itself.
    """
    weights = weights or {}
    bounds = lower_bounds or {}
    ranks: dict[str, dict[str, int | None]] = {}
    normalised: dict[str, dict[str, float]] = {}
    for name, items in lists.items():
        best: dict[str, float] = {}
        for position, (doc, score) in enumerate(items, start=1):
            entry = ranks.setdefault(doc, dict.fromkeys(lists, None))
            if entry[name] is None:
                entry[name] = position
            if doc not in best or score > best[doc]:
                best[doc] = float(score)
        tier_of = (tiers or {}).get(name)
        if tier_of is None:
            normalised[name] = _min_max(best, bounds.get(name))
            continue
        groups: dict[int, dict[str, float]] = {}
        for doc, score in best.items():
            groups.setdefault(tier_of.get(doc, 0), {})[doc] = score
        present = sorted(groups)
        normalised[name] = {
            doc: (len(present) - 1 - j + norm) / len(present)
            for j, tier in enumerate(present)
            for doc, norm in _min_max(groups[tier], bounds.get(name)).items()
        }
    fused = []
    for doc, doc_ranks in ranks.items():
        contributions = {
            name: weights.get(name, 1.0) * normalised[name].get(doc, 0.0) for name in lists
        }
        fused.append(Fused(doc, sum(contributions.values()), doc_ranks, contributions))
    fused.sort(key=best_first)
    return fused


def noisy_or(
    lists: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fuse lists of calibrated evidence (``(id, e)`` with ``e`` in [0, 1], best first) as the
    chance that at least one list is right: ``score(d) = 1 − Π over L of (1 − w_L · e_L(d))``,
    each ``w_L · e_L`` held to [0, 1] (a weight of 1 takes a list's evidence as it is).

    A decisive match in one list (``e`` near 1) stays near 1 whatever the other list says, two
    lukewarm ones add up to more than either, and weak evidence stays weak: the score keeps an
    absolute meaning, unlike a min-max normalised one.  The contributions are each list's
    Shapley share of the score (its average gain over the orders the lists can be added in):
    for two lists ``a − ab/2`` and ``b − ab/2``, never negative, summing to the score.
    Ranks are 1-based positions; ties are broken by id ascending.
    """
    weights = weights or {}
    ranks: dict[str, dict[str, int | None]] = {}
    evidence: dict[str, dict[str, float]] = {name: {} for name in lists}
    for name, items in lists.items():
        w = weights.get(name, 1.0)
        for position, (doc, e) in enumerate(items, start=1):
            entry = ranks.setdefault(doc, dict.fromkeys(lists, None))
            if entry[name] is None:
                entry[name] = position
            value = min(1.0, max(0.0, w * e))
            evidence[name][doc] = max(evidence[name].get(doc, 0.0), value)
    names = list(lists)
    orders = list(permutations(names))
    fused = []
    for doc, doc_ranks in ranks.items():
        values = {name: evidence[name].get(doc, 0.0) for name in names}
        shares = dict.fromkeys(names, 0.0)
        for order in orders:
            missing = 1.0  # the chance that every list added so far is wrong
            for name in order:
                shares[name] += missing * values[name]
                missing *= 1.0 - values[name]
        contributions = {name: share / len(orders) for name, share in shares.items()}
        fused.append(Fused(doc, sum(contributions.values()), doc_ranks, contributions))
    fused.sort(key=best_first)
    return fused


#: Fused scores are compared to this many significant digits: two that differ further down
#: differ by the order their terms were added in (0.3 and 0.5 fused by noisy-OR give 0.65 one
#: way and 0.6499999999999999 the other), and are a tie, broken by id, on every path.
SIGNIFICANT = 12


def best_first(item: Fused) -> tuple[float, str]:
    """The sort key of a fused list: the score (to :data:`SIGNIFICANT` digits) descending, then
    the id ascending."""
    return -float(f"{item.score:.{SIGNIFICANT}g}"), item.id


def _min_max(scores: Mapping[str, float], bound: float | None) -> dict[str, float]:
    """``scores`` min-max normalised (from ``bound`` instead of the minimum when given)."""
    if not scores:
        return {}
    high = max(scores.values())
    low = min(scores.values()) if bound is None else bound
    span = high - low
    if span > 0:
        return {d: max(0.0, (s - low) / span) for d, s in scores.items()}
    # All equal: none is worse than another, unless none clears a fixed bound.
    return dict.fromkeys(scores, 0.0 if bound is not None else 1.0)
