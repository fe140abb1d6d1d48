"""Calibrated evidence: each list's raw scores as numbers that mean the same across queries.

Min-max normalisation (the convex fusion) gives the best candidate of every list 1.0 however
weak it is, so gibberish gets a confident top hit.  Here each hit's evidence is a number in
[0, 1] read from what the engine already knows about the query:

- **Vector list.**  The query is scored against every note of the vault, so its cosine
  distribution is known at no extra pass (:class:`~explorer.index.vectors.CosineSpread`).  A
  note's evidence is the product of two ramps: how high its cosine is in absolute terms
  (``cos_low`` → ``cos_high``: an off-topic query's best cosine stays low) and how far it
  stands above this query's bulk in standard deviations (``z_low`` → ``z_high``: outside the
  model's language every cosine is high and none stands out, so none is evidence).  A query in
  a language the model does not read (:func:`explorer.embed.provider.model_languages`) makes a
  list that is blind however it spreads: its evidence is taken at :attr:`Calibration.unread`
  of its worth, so that it cannot outweigh a note that holds the query's words.
- **Title.**  A note whose title or alias is the query's words (case, punctuation and accents
  aside) is decisive (:attr:`Calibration.title_exact`); one a step from them is a close match
  (:attr:`Calibration.title_near`): :mod:`explorer.search.lists.titles`.
- **Lexical list.**  A note found verbatim (the phrase pass) is decisive; one holding every
  word (all-words pass) nearly so; one holding some of the words (any-word pass) counts by the
  share of the query's content words it holds.  Within a pass, bm25 against the pass's best
  moves the evidence by at most ``bm25_share``, so bm25 still orders notes of equal coverage.

:func:`explorer.search.fusion.fusion.noisy_or` combines the lists: a decisive match in one list
stays decisive whatever the other says, two lukewarm ones add up, and a weak one stays weak.  A
query whose best fused score is below :attr:`Calibration.close` has no close match.

The constants were chosen on the dev halves of the judged sets and the off-topic queries
(``benchmarks/calibrate.py``; README "Figures"), never on the test halves.  Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from explorer.index.vectors import CosineSpread
from explorer.search.lists.lexical import PASSES


@dataclass(frozen=True, slots=True)
class Calibration:
    """The ramps that turn raw scores into evidence (see the module's docstring)."""

    cos_low: float = 0.0
    cos_high: float = 0.8
    #: A note counts as found by meaning only when its cosine stands this many standard
    #: deviations above the query's vault mean: below it, it is not in the vector list at all
    #: (in a 51-note vault a looser cut puts nearly every note there, and no row is lexical-only).
    found_sigmas: float = 1.0
    #: Above that, how far it stands out ramps from ``z_low`` to ``z_high`` σ.
    z_low: float = 0.5
    z_high: float = 3.0
    #: Evidence of a note found by each lexical pass before coverage and bm25 (phrase, all
    #: words, any word).
    passes: tuple[float, float, float] = (1.0, 0.9, 0.9)
    #: Coverage is raised to this power: a note holding half the words gets 0.5 ** power.
    coverage_power: float = 1.0
    #: How much bm25 (relative to the best of its pass) moves the lexical evidence.
    bm25_share: float = 0.8
    #: Coverage weighs each content word by its idf in the vault raised to this power (0: every
    #: word alike, the plain share), so that holding the words in a third of the notes is weak
    #: evidence and holding the rare ones strong (:func:`weighted_coverage`).
    rarity: float = 1.0
    #: Whether a content word no note holds counts in the whole coverage is a share of.
    absent_terms: bool = True
    #: The fused score a query's best hit needs for a close match.
    close: float = 0.6
    #: What the vector list's evidence is worth when the model does not read the query's
    #: language (1: as much as any other).
    unread: float = 0.25
    #: The evidence of a note whose title or alias is the query
    #: (:mod:`explorer.search.lists.titles`): decisive, whatever the lists say of the others...
    title_exact: float = 1.0
    #: ...and of one whose title or alias is one step from it (a word missing or extra, a
    #: plural, a typo): a close match on its own, which the lists' evidence then orders.
    title_near: float = 0.8


CALIBRATION = Calibration()

#: The vector ramps of a model whose cosines spread otherwise than all-MiniLM-L6-v2's (for which
#: :data:`CALIBRATION` was chosen), by the name its vectors are tagged with.  Only the vector
#: list's ramps differ: the lexical evidence and the bar of a close match are the same for all.
#: multilingual-e5-small's cosines sit high and close together (0.75–0.9 for most notes of any
#: query), so its absolute ramp starts at 0.75, and standing out takes 2–3 σ: chosen on the dev
#: halves of the translated tldr sets and the sample vault (``benchmarks/calibrate.py report
#: --model multilingual-e5-small --grid``: the best worst-margin of hybrid over either list
#: among the points that give off-topic queries no more close matches than MiniLM's ramps do).
MODEL_RAMPS: dict[str, dict[str, float]] = {
    # Rarity too: on the translated sets' dev halves, e5's own, each word weighed by the
    # square root of its idf (0.5) ranked best, where the English sets with all-MiniLM-L6-v2
    # chose the whole idf (issue 44: docs/figures.md).
    "multilingual-e5-small": {
        "cos_low": 0.75,
        "cos_high": 0.95,
        "z_low": 2.0,
        "z_high": 3.0,
        "rarity": 0.5,
    },
}


def calibration_for(model: str | None) -> Calibration:
    """The calibration the evidence of a search with ``model`` is read with (its vector ramps,
    and the rarity its lexical coverage weighs words by)."""
    ramps = MODEL_RAMPS.get(model or "")
    if not ramps:
        return CALIBRATION
    return replace(
        CALIBRATION,
        cos_low=ramps.get("cos_low", CALIBRATION.cos_low),
        cos_high=ramps.get("cos_high", CALIBRATION.cos_high),
        z_low=ramps.get("z_low", CALIBRATION.z_low),
        z_high=ramps.get("z_high", CALIBRATION.z_high),
        rarity=ramps.get("rarity", CALIBRATION.rarity),
    )


def _ramp(value: float, low: float, high: float) -> float:
    if high <= low:
        return 1.0 if value >= high else 0.0
    return min(1.0, max(0.0, (value - low) / (high - low)))


def vector_evidence(
    cosine: float, spread: CosineSpread | None, cal: Calibration | None = None
) -> float:
    """Evidence of a note whose best chunk has ``cosine`` with the query."""
    cal = cal or CALIBRATION
    absolute = _ramp(cosine, cal.cos_low, cal.cos_high)
    if spread is None or spread.notes < 2:
        return absolute
    # Among n notes none can stand more than sqrt(n - 1) σ above the mean: in a vault too small
    # to reach the ramp's top, standing out counts that much less (all of it from z_high² + 1
    # notes on: 10 at 3 σ).
    reach = min(1.0, math.sqrt(spread.notes - 1) / cal.z_high) if cal.z_high > 0 else 1.0
    sigmas = spread.sigmas(cosine)
    stands_out = 0.0 if sigmas < cal.found_sigmas else _ramp(sigmas, cal.z_low, cal.z_high)
    return absolute * (1.0 - reach + reach * stands_out)


def lexical_evidence(
    tier: int, coverage: float, relative_bm25: float, cal: Calibration | None = None
) -> float:
    """Evidence of a note the lexical pass ``tier`` found, holding ``coverage`` of the query's
    content words, with bm25 ``relative_bm25`` of its pass's best (0..1)."""
    cal = cal or CALIBRATION
    strength = cal.passes[min(tier, len(cal.passes) - 1)]
    if tier >= PASSES.index("any word"):
        strength *= max(0.0, min(1.0, coverage)) ** cal.coverage_power
    shaped = 1.0 - cal.bm25_share + cal.bm25_share * max(0.0, min(1.0, relative_bm25))
    return strength * shaped


def term_weights(
    term_notes: Sequence[int], notes: int, cal: Calibration | None = None
) -> list[float]:
    """What each content word of a query weighs in its coverage: its idf among ``notes``
    notes (held by ``term_notes`` of them; Lucene's ``log(1 + (N - n + 0.5) / (n + 0.5))``,
    which stays above 0 for the commonest) raised to :attr:`Calibration.rarity`."""
    cal = cal or CALIBRATION
    out = []
    for held_by in term_notes:
        if held_by <= 0 and not cal.absent_terms:
            out.append(0.0)
            continue
        idf = math.log(1.0 + (max(notes, held_by) - held_by + 0.5) / (held_by + 0.5))
        out.append(idf**cal.rarity)
    return out


def weighted_coverage(
    held: Mapping[str, Sequence[int]],
    term_notes: Sequence[int],
    notes: int,
    cal: Calibration | None = None,
) -> dict[str, float]:
    """The coverage of each note of ``held`` (note -> the indexes of the content words it
    holds), each word weighed by :func:`term_weights`: the plain share of the words with
    ``rarity`` 0."""
    weights = term_weights(term_notes, notes, cal)
    total = sum(weights)
    if total <= 0:
        return {doc: 0.0 for doc in held}
    return {doc: sum(weights[i] for i in parts) / total for doc, parts in held.items()}


def weighs_otherwise(share: float | None, weighted: float | None) -> bool:
    """Whether rarity weighs the words a note holds otherwise than their count, to the whole
    percent that :func:`weighted_coverage`'s explanations show."""
    return share is not None and weighted is not None and abs(weighted - share) >= 0.005


def lexical_list_evidence(
    scored: list[tuple[str, float]],
    tiers: Mapping[str, int],
    coverage: Mapping[str, float],
    cal: Calibration | None = None,
) -> list[tuple[str, float]]:
    """Each ``(id, bm25)`` of the lexical list as ``(id, evidence)``, in the list's order."""
    best: dict[int, float] = {}
    for doc, score in scored:
        tier = tiers.get(doc, 0)
        best[tier] = max(best.get(tier, 0.0), score)
    out = []
    for doc, score in scored:
        tier = tiers.get(doc, 0)
        relative = score / best[tier] if best[tier] > 0 else 1.0
        out.append((doc, lexical_evidence(tier, coverage.get(doc, 1.0), relative, cal)))
    return out


def title_evidence(closeness: str, cal: Calibration | None = None) -> float:
    """Evidence of a note whose title or alias matches the query ``exact`` or ``near``."""
    cal = cal or CALIBRATION
    return cal.title_exact if closeness == "exact" else cal.title_near


def vector_list_evidence(
    scored: list[tuple[str, float]],
    spread: CosineSpread | None,
    cal: Calibration | None = None,
    *,
    unread: bool = False,
) -> list[tuple[str, float]]:
    """Each ``(id, cosine)`` of the vector list as ``(id, evidence)``, in the list's order;
    ``unread``: the model does not read the query's language."""
    cal = cal or CALIBRATION
    worth = cal.unread if unread else 1.0
    return [(doc, worth * vector_evidence(cosine, spread, cal)) for doc, cosine in scored]
