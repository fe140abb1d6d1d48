"""A hit's evidence in words and the calibrated formula, checked against hand-computed numbers
and against the fusion itself (the formula evaluates to the fused score, the contributions to
a − ab/2 and b − ab/2)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from explorer.index.vectors import CosineSpread
from explorer.search.explain import arithmetic_text as evidence_text
from explorer.search.explain.scoring import ExplainContext, Scored, scored
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions
from tests.search.helpers import candidates

CALIBRATED = SearchOptions(fusion="calibrated", w_fts=0.3, w_vec=0.7)
SPREAD = CosineSpread(notes=51, mean=0.12805, std=0.1031)


def said(hit: Hit, options: SearchOptions = CALIBRATED, **ctx: object) -> Scored:
    """``hit``'s explanation's numbers (content words 3 and :data:`SPREAD` unless told)."""
    known: dict[str, object] = {"content_words": 3, "spread": SPREAD, **ctx}
    return scored(hit, ExplainContext(options, 1, 1, 5, 5, True, **known))  # type: ignore[arg-type]


def vector_evidence_text(hit: Hit, spread: CosineSpread | None) -> str | None:
    share = said(hit, spread=spread).vector
    return None if share is None else evidence_text.vector_evidence_text(share)


def lexical_evidence_text(hit: Hit, words: int) -> str | None:
    share = said(hit, content_words=words).lexical
    return None if share is None else evidence_text.lexical_evidence_text(share)


def calibrated_formula(hit: Hit, options: SearchOptions) -> str:
    return evidence_text.formula(said(hit, options))


def calibrated_lines(hit: Hit, options: SearchOptions) -> list[str]:
    return evidence_text.calibrated_lines(said(hit, options))


def weighted(hit: Hit, options: SearchOptions) -> dict[str, float | None]:
    return {t.name: t.weighed for t in said(hit, options).terms}


def both(**fields: object) -> Hit:
    a, b = 0.3 * 0.46488, 0.7 * 0.47334
    base: dict[str, object] = {
        "path": "ops/cdn-purge.md",
        "title": "CDN purge",
        "snippet": "",
        "fused_score": 1 - (1 - a) * (1 - b),
        "contributions": {"fts": a - a * b / 2, "vector": b - a * b / 2},
        "fts_rank": 5,
        "vector_rank": 1,
        "fts_score": 4.75281,
        "vector_score": 0.47294,
        "source": "both",
        "best_chunk": (0, 400),
        "fts_pass": "any word",
        "evidence": {"fts": 0.46488, "vector": 0.47334},
        "vector_sigmas": SPREAD.sigmas(0.47294),
        "coverage": 2 / 3,
    }
    base.update(fields)
    return Hit(**base)  # type: ignore[arg-type]


def test_each_lists_evidence_is_said_with_its_numbers() -> None:
    hit = both()
    assert vector_evidence_text(hit, SPREAD) == (
        "cosine 0.4729, 3.3 σ above this query's vault mean 0.128 → vector evidence 0.47334"
    )
    assert lexical_evidence_text(hit, 3) == (
        "any word pass, holds 2 of 3 content words, bm25 4.7528 → lexical evidence 0.46488"
    )
    assert lexical_evidence_text(hit, 0) == (
        "any word pass, holds 67% of the content words, bm25 4.7528 → lexical evidence 0.46488"
    )
    rare = both(weighted_coverage=0.4)  # the two words it holds are the vault's common ones
    assert lexical_evidence_text(rare, 3) == (
        "any word pass, holds 2 of 3 content words (40% of their weight), bm25 4.7528"
        " → lexical evidence 0.46488"
    )
    assert lexical_evidence_text(both(weighted_coverage=0.668), 3) == lexical_evidence_text(hit, 3)
    below = both(vector_score=0.05, vector_sigmas=SPREAD.sigmas(0.05), evidence={})
    assert vector_evidence_text(below, SPREAD) == (
        "cosine 0.0500, 0.8 σ below this query's vault mean 0.128"
    )
    assert vector_evidence_text(both(), None) == "cosine 0.4729 → vector evidence 0.47334"
    assert vector_evidence_text(both(vector_rank=None), SPREAD) is None
    assert lexical_evidence_text(both(fts_rank=None), 3) is None


def test_the_calibrated_formula_has_the_numbers_filled_in() -> None:
    hit = both()
    assert calibrated_formula(hit, CALIBRATED) == (
        "1 − (1 − a)(1 − b) = 1 − (1 − 0.13946)(1 − 0.33134) = 0.42459"
    )
    assert calibrated_lines(hit, CALIBRATED) == [
        "a = 0.3 × 0.46488 = 0.13946 (lexical), b = 0.7 × 0.47334 = 0.33134 (vector): "
        "weight × evidence",
        "contributions a − ab/2 = 0.11636, b − ab/2 = 0.30823",
    ]
    one = both(
        vector_rank=None, evidence={"fts": 0.9}, fused_score=0.27, contributions={"fts": 0.27}
    )
    assert calibrated_formula(one, CALIBRATED) == "a = 0.27000"
    assert calibrated_lines(one, CALIBRATED) == [
        "a = 0.3 × 0.90000 = 0.27000 (lexical): weight × evidence"
    ]
    heavy = replace(CALIBRATED, w_fts=2.0)
    assert calibrated_lines(one, heavy)[0] == (
        "a = 2 × 0.90000 = 1.00000 (lexical, held to 1): weight × evidence"
    )
    vector_only = both(fts_rank=None, evidence={"vector": 0.5}, fused_score=0.35)
    assert calibrated_lines(vector_only, CALIBRATED) == [
        "a = 0.7 × 0.50000 = 0.35000 (vector): weight × evidence"
    ]
    assert calibrated_formula(vector_only, CALIBRATED) == "a = 0.35000"


def test_the_formula_is_the_fusions_own_arithmetic() -> None:
    """On a real fused response: the formula's numbers give the fused score, and a − ab/2,
    b − ab/2 the contributions it reports."""
    c = candidates()
    c.spread = CosineSpread.of(np.array([0.9, 0.8, 0.7, 0.1, 0.05, 0.0, 0.02, 0.1], "f4"))
    response = fuse(c, CALIBRATED)
    two = [h for h in response.hits if len(weighted(h, CALIBRATED)) == 2]
    assert two, [h.evidence for h in response.hits]
    for hit in two:
        a, b = weighted(hit, CALIBRATED).values()
        assert a is not None and b is not None
        assert 1 - (1 - a) * (1 - b) == pytest.approx(hit.fused_score, abs=1e-5)
        assert hit.contributions["fts"] == pytest.approx(a - a * b / 2, abs=1e-5)
        assert hit.contributions["vector"] == pytest.approx(b - a * b / 2, abs=1e-5)
        assert calibrated_formula(hit, CALIBRATED).endswith(f"= {hit.fused_score:.5f}")
