"""A hit's calibrated evidence in words, with its numbers: what the explain block says of each
list, and the calibrated fusion's formula with the numbers filled in.

Evidence is each list's raw score read as a number from 0 to 1 that means the same for every
query (:mod:`explorer.search.fusion.evidence`): for the vector list, how high a note's cosine is and
how far it stands above this query's cosines over the vault; for the lexical list, the pass that
found the note, the share of the query's content words it holds, and its bm25.  The calibrated
fusion (:func:`explorer.search.fusion.fusion.noisy_or`) weighs each list's evidence (``a = w_fts ·
e_fts``, ``b = w_vec · e_vec``, held to 1) and fuses them as ``1 − (1 − a)(1 − b)``; each list's
contribution is its Shapley share, ``a − ab/2`` and ``b − ab/2``.  Plain text, no Qt.
"""

from __future__ import annotations

from explorer.index.vectors import CosineSpread
from explorer.search.fusion.evidence import weighs_otherwise
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions

LISTS = (("fts", "lexical"), ("vector", "vector"), ("title", "title"))


def vector_evidence_text(hit: Hit, spread: CosineSpread | None) -> str | None:
    """``cosine 0.4729, 3.3 σ above this query's vault mean 0.128 → vector evidence 0.47335``
    (``None`` when the vector list did not find ``hit``)."""
    if hit.vector_rank is None or hit.vector_score is None:
        return None
    parts = [f"cosine {hit.vector_score:.4f}"]
    if spread is not None and spread.notes and spread.flat:
        parts.append(
            f"no spread: this query's cosines over the vault all lie within σ {spread.std:.0e}"
        )
    elif hit.vector_sigmas is not None and spread is not None and spread.notes:
        side = "above" if hit.vector_sigmas >= 0 else "below"
        parts.append(
            f"{abs(hit.vector_sigmas):.1f} σ {side} this query's vault mean {spread.mean:.3f}"
        )
    return ", ".join(parts) + _evidence(hit, "vector", "vector")


def lexical_evidence_text(hit: Hit, content_words: int) -> str | None:
    """``any word pass, holds 2 of 3 content words, bm25 4.7528 → lexical evidence 0.46488``
    (``None`` when the lexical list did not find ``hit``)."""
    if hit.fts_rank is None:
        return None
    parts = [f"{hit.fts_pass} pass"] if hit.fts_pass else []
    if hit.coverage is not None:
        if content_words > 0:
            held = round(hit.coverage * content_words)
            noun = "content word" if content_words == 1 else "content words"
            parts.append(f"holds {held} of {content_words} {noun}" + _weight(hit))
        else:
            parts.append(f"holds {100 * hit.coverage:.0f}% of the content words" + _weight(hit))
    if hit.fts_score is not None:
        parts.append(f"bm25 {_bm25(hit.fts_score)}")
    return ", ".join(parts) + _evidence(hit, "fts", "lexical")


def _bm25(score: float) -> str:
    """Four decimals, or three significant digits for a score too small for them (a ranked
    hit read "bm25 0.0000")."""
    return f"{score:.4f}" if abs(score) >= 0.001 or score == 0 else f"{score:.3g}"


def title_evidence_text(hit: Hit) -> str | None:
    """``the title matches the query ("Refund policy") → title evidence 1.00000`` (``None``
    when neither its title nor an alias matches the query)."""
    match = hit.title_match
    if match is None or "title" not in hit.evidence:
        return None
    name = "an alias" if match.alias else "the title"
    how = "matches" if match.closeness == "exact" else "nearly matches"
    return f'{name} {how} the query ("{match.name}")' + _evidence(hit, "title", "title")


def _weight(hit: Hit) -> str:
    """`` (48% of their weight)`` when rarity weighs the words the note holds otherwise than
    their count (:attr:`Hit.weighted_coverage`)."""
    if not weighs_otherwise(hit.coverage, hit.weighted_coverage):
        return ""
    return f" ({100 * (hit.weighted_coverage or 0.0):.0f}% of their weight)"


def _evidence(hit: Hit, name: str, label: str) -> str:
    value = hit.evidence.get(name)
    return "" if value is None else f" → {label} evidence {value:.5f}"


def weighted(hit: Hit, options: SearchOptions) -> dict[str, float]:
    """Each list's evidence times its weight, held to [0, 1]: what the noisy-OR fuses (the
    lists that found ``hit`` only)."""
    out = {}
    for name, weight in options.weights.items():
        if name in hit.evidence:
            out[name] = min(1.0, max(0.0, weight * hit.evidence[name]))
    if "title" in hit.evidence and "title" in hit.contributions:  # at full weight
        out["title"] = min(1.0, max(0.0, hit.evidence["title"]))
    return out


def calibrated_formula(hit: Hit, options: SearchOptions) -> str:
    """``1 − (1 − a)(1 − b) = 1 − (1 − 0.13946)(1 − 0.33134) = 0.42460``; a hit one list found
    scores that list's weighted evidence: ``a = 0.27000``."""
    return " = ".join(calibrated_formula_parts(hit, options))


def calibrated_formula_parts(hit: Hit, options: SearchOptions) -> tuple[str, str]:
    """The calibrated formula in letters and with its numbers: ``("1 − (1 − a)(1 − b)",
    "1 − (1 − 0.13946)(1 − 0.33134) = 0.42460")``, or ``("a", "0.27000")`` for one list; with
    the recency prior on, ``+ r`` and its contribution after the lists'."""
    prior = hit.contributions.get("recency")
    score = hit.fused_score - (prior or 0.0)
    terms = weighted(hit, options)
    if not terms:
        symbols, numbers = "0", f"{score:.5f}"
    elif len(terms) == 1:
        symbols, numbers = "a", f"{score:.5f}"
    else:
        missing = "".join(f"(1 − {value:.5f})" for value in terms.values())
        letters = "".join(f"(1 − {letter})" for letter in "abc"[: len(terms)])
        symbols, numbers = f"1 − {letters}", f"1 − {missing} = {score:.5f}"
    if prior is None:
        return symbols, numbers
    return f"{symbols} + r", f"{numbers} + {prior:.5f} = {hit.fused_score:.5f}"


def calibrated_lines(hit: Hit, options: SearchOptions) -> list[str]:
    """What the calibrated formula's letters stand for, and each list's contribution as the
    formula gives it: ``a = 0.3 × 0.46488 = 0.13946 (lexical), b = 0.7 × 0.47335 = 0.33135
    (vector): weight × evidence`` and ``contributions a − ab/2 = 0.11636, b − ab/2 = 0.30824``."""
    terms = weighted(hit, options)
    letters = [name for name, _ in LISTS if name in terms]
    parts = []
    for letter, name in zip("abc", letters, strict=False):
        weight, value = options.weights.get(name, 1.0), hit.evidence[name]
        held = ", held to 1" if weight * value > 1 else ""
        parts.append(
            f"{letter} = {weight:g} × {value:.5f} = {terms[name]:.5f} ({dict(LISTS)[name]}{held})"
        )
    if not parts:
        return []
    lines = [", ".join(parts) + ": weight × evidence"]
    c = hit.contributions
    if len(terms) == 2:
        first, second = letters
        lines.append(
            f"contributions a − ab/2 = {c.get(first, 0.0):.5f}, b − ab/2 = {c.get(second, 0.0):.5f}"
        )
    elif len(terms) == 3:
        shares = ", ".join(f"{x} {c.get(n, 0.0):.5f}" for x, n in zip("abc", letters, strict=True))
        lines.append(f"contributions (each one's Shapley share of the score): {shares}")
    return lines
