"""A hit's calibrated evidence in words, and its fused score's formula with the numbers filled
in: the phrases of the explain block, each over a part of a
:class:`~explorer.search.explain.scoring.Scored` (they format its numbers; they compute none).

Evidence is each list's raw score read as a number from 0 to 1 that means the same for every
query (:mod:`explorer.search.fusion.evidence`): for the vector list, how high a note's cosine is and
how far it stands above this query's cosines over the vault; for the lexical list, the pass that
found the note, the share of the query's content words it holds, and its bm25.  The calibrated
fusion (:func:`explorer.search.fusion.fusion.noisy_or`) weighs each list's evidence (``a = w_fts ·
e_fts``, ``b = w_vec · e_vec``, held to 1) and fuses them as ``1 − (1 − a)(1 − b)``; each list's
contribution is its Shapley share, ``a − ab/2`` and ``b − ab/2``.  Plain text, no Qt.
"""

from __future__ import annotations

from explorer.search.explain.scoring import LISTS, Scored, Share, TitleShare
from explorer.search.query.options import Fusion

LABEL = dict(LISTS)


def vector_evidence_text(share: Share) -> str | None:
    """``cosine 0.4729, 3.3 σ above this query's vault mean 0.128 → vector evidence 0.47335``
    (``None`` when the vector list did not find the note)."""
    said = share.vector
    if said is None:
        return None
    parts = [f"cosine {said.cosine:.4f}"]
    if said.flat and said.std is not None:
        spread = f"this query's cosines over the vault all lie within σ {said.std:.0e}"
        parts.append(f"no spread: {spread}")
    elif said.sigmas is not None and said.mean is not None:
        side = "above" if said.above else "below"
        parts.append(f"{said.sigmas:.1f} σ {side} this query's vault mean {said.mean:.3f}")
    return ", ".join(parts) + _evidence(share)


def lexical_evidence_text(share: Share) -> str | None:
    """``any word pass, holds 2 of 3 content words, bm25 4.7528 → lexical evidence 0.46488``
    (``None`` when the lexical list did not find the note)."""
    said = share.lexical
    if said is None:
        return None
    parts = [f"{said.passed} pass"] if said.passed else []
    if said.coverage is not None:
        weight = "" if said.weighted is None else f" ({100 * said.weighted:.0f}% of their weight)"
        if said.held is not None:
            noun = "content word" if said.words == 1 else "content words"
            parts.append(f"holds {said.held} of {said.words} {noun}{weight}")
        else:
            parts.append(f"holds {100 * said.coverage:.0f}% of the content words{weight}")
    if said.bm25 is not None:
        parts.append(f"bm25 {_bm25(said.bm25)}")
    return ", ".join(parts) + _evidence(share)


def _bm25(score: float) -> str:
    """Four decimals, or three significant digits for a score too small for them (a ranked
    hit read "bm25 0.0000")."""
    return f"{score:.4f}" if abs(score) >= 0.001 or score == 0 else f"{score:.3g}"


def title_evidence_text(title: TitleShare) -> str:
    """``the title matches the query ("Refund policy") → title evidence 1.00000``."""
    name = "an alias" if title.alias else "the title"
    how = "matches" if title.closeness == "exact" else "nearly matches"
    return f'{name} {how} the query ("{title.name}")' + _evidence(title.share)


def _evidence(share: Share) -> str:
    label = LABEL[share.name]
    return "" if share.evidence is None else f" → {label} evidence {share.evidence:.5f}"


# ----------------------------------------------------------------------------- the formula


def formula(s: Scored) -> str:
    """The fused score with the numbers filled in, for its fusion method: RRF ``1 / (10 + 1) +
    0.5 / (10 + 4) = 0.12662``, convex ``0.5 × 0.873 + 0.5 × 1.000 = 0.93650`` (each term a list
    that found the hit: its weight, and its rank or its normalised score), calibrated ``1 − (1 −
    a)(1 − b) = 1 − (1 − 0.13946)(1 − 0.33134) = 0.42460`` (each list's weighed evidence)."""
    if s.method == Fusion.CALIBRATED:
        return " = ".join(calibrated_formula_parts(s))
    found = [x for x in (s.lexical, s.vector) if x is not None and x.rank is not None]
    if s.method == Fusion.CONVEX:
        terms = [f"{x.weight:g} × {_normalised(x)}" for x in found]
    else:
        terms = [f"{x.weight:g} / ({s.k:g} + {x.rank})" for x in found]
    if s.recency is not None:
        terms.append(f"{s.recency.contribution:.5f} (recency)")
    if not terms:
        return f"0 = {s.score:.5f}"
    return " + ".join(terms) + f" = {s.score:.5f}"


def _normalised(share: Share) -> str:
    return "…" if share.normalised is None else f"{share.normalised:.3f}"


def formula_legend(method: str, k: float) -> tuple[str, str]:
    """The method's name and what its terms are, for the explain block."""
    if method == Fusion.CALIBRATED:
        return "Calibrated", (
            "the chance that either list is right; a, b: each list's evidence × its weight"
        )
    if method == Fusion.CONVEX:
        return "Convex", (
            "w × score / best score of its list; the lexical list per pass "
            "(phrase, all words, any word), each pass a band below the one before"
        )
    return "RRF", f"w / (k + rank), k = {k:g}"


def calibrated_formula_parts(s: Scored) -> tuple[str, str]:
    """The calibrated formula in letters and with its numbers: ``("1 − (1 − a)(1 − b)",
    "1 − (1 − 0.13946)(1 − 0.33134) = 0.42460")``, or ``("a", "0.27000")`` for one list; with
    the recency prior on, ``+ r`` and its contribution after the lists'."""
    if not s.terms:
        symbols, numbers = "0", f"{s.lists_score:.5f}"
    elif len(s.terms) == 1:
        symbols, numbers = "a", f"{s.lists_score:.5f}"
    else:
        missing = "".join(f"(1 − {t.weighed:.5f})" for t in s.terms)
        letters = "".join(f"(1 − {letter})" for letter in "abc"[: len(s.terms)])
        symbols, numbers = f"1 − {letters}", f"1 − {missing} = {s.lists_score:.5f}"
    if s.recency is None:
        return symbols, numbers
    return f"{symbols} + r", f"{numbers} + {s.recency.contribution:.5f} = {s.score:.5f}"


def calibrated_lines(s: Scored) -> list[str]:
    """What the calibrated formula's letters stand for, and each list's contribution as the
    formula gives it: ``a = 0.3 × 0.46488 = 0.13946 (lexical), b = 0.7 × 0.47335 = 0.33135
    (vector): weight × evidence`` and ``contributions a − ab/2 = 0.11636, b − ab/2 = 0.30824``."""
    parts = []
    for letter, t in zip("abc", s.terms, strict=False):
        held = ", held to 1" if t.held_to_one else ""
        parts.append(
            f"{letter} = {t.weight:g} × {t.evidence:.5f} = {t.weighed:.5f} ({LABEL[t.name]}{held})"
        )
    if not parts:
        return []
    lines = [", ".join(parts) + ": weight × evidence"]
    shares = [t.contribution or 0.0 for t in s.terms]
    if len(shares) == 2:
        first, second = shares
        lines.append(f"contributions a − ab/2 = {first:.5f}, b − ab/2 = {second:.5f}")
    elif len(shares) == 3:
        said = ", ".join(f"{x} {c:.5f}" for x, c in zip("abc", shares, strict=True))
        lines.append(f"contributions (each one's Shapley share of the score): {said}")
    return lines
