"""The explain block: the formula with its numbers, each list's rank and evidence."""

from __future__ import annotations

import html
import math
import re
from dataclasses import replace

import pytest

from explorer.index.vectors import CosineSpread
from explorer.search.explain.arithmetic_text import formula as scored_formula
from explorer.search.explain.scoring import ExplainContext, scored
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions
from tests.preview.helpers import block, hit

SEED = SearchOptions(fusion="rrf", k=60, w_fts=0.7, w_vec=0.3)


def formula(h: Hit, options: SearchOptions) -> str:
    return scored_formula(scored(h, ExplainContext(options, 1, 1, 5, 5, True)))


def test_formula_has_the_numbers_filled_in() -> None:
    assert formula(hit(), SEED) == "0.7 / (60 + 1) + 0.3 / (60 + 4) = 0.01616"
    lexical_only = hit(vector_rank=None, fused_score=0.7 / 63, fts_rank=3)
    assert formula(lexical_only, SEED) == "0.7 / (60 + 3) = 0.01111"
    assert formula(hit(), replace(SEED, k=10, w_fts=1.0, w_vec=0.5)).startswith(
        "1 / (10 + 1) + 0.5 / (10 + 4)"
    )


def test_convex_formula_shows_each_lists_normalised_score() -> None:
    convex = replace(SEED, fusion="convex", w_fts=0.5, w_vec=0.5)
    both = hit(contributions={"fts": 0.35, "vector": 0.5}, fused_score=0.85)
    assert formula(both, convex) == "0.5 × 0.700 + 0.5 × 1.000 = 0.85000"
    vector_only = hit(fts_rank=None, contributions={"fts": 0.0, "vector": 0.2}, fused_score=0.2)
    assert formula(vector_only, convex) == "0.5 × 0.400 = 0.20000"
    out = block(both, ExplainContext(convex, 1, 5, 5, 5, True))
    assert "Convex" in out and "best score of its list" in out and "RRF" not in out


def test_explain_block_has_scores_ranks_and_formula() -> None:
    ctx = ExplainContext(SEED, 2, 20, 34, 50, True)
    out = block(hit(best_chunk=(10, 400)), ctx)
    for fragment in (
        "Fused rank 2",
        "rank 1 of 34",
        "bm25 7.1234",
        "rank 4 of 50",
        "cosine 0.6131",
        "0.7 / (60 + 1) + 0.3 / (60 + 4) = 0.01616",
        "characters 10–400",
    ):
        assert fragment in out
    degraded = ExplainContext(SEED, 1, 5, 5, 0, False, "model x is still loading")
    out = block(hit(vector_rank=None, source="fts"), degraded)
    assert "unavailable (model x is still loading)" in out


def test_explain_block_states_each_lists_evidence_and_the_calibrated_formula() -> None:
    calibrated = replace(SEED, fusion="calibrated", w_fts=1.0, w_vec=1.0)
    spread = CosineSpread(notes=51, mean=0.12, std=0.07)
    a, b = 0.9, 0.83
    both = hit(
        fts_pass="all words",
        coverage=1.0,
        fts_score=7.2,
        vector_score=0.48,
        vector_sigmas=spread.sigmas(0.48),
        evidence={"fts": a, "vector": b},
        fused_score=1 - (1 - a) * (1 - b),
        contributions={"fts": a - a * b / 2, "vector": b - a * b / 2},
    )
    ctx = ExplainContext(calibrated, 1, 5, 5, 5, True, content_words=4, spread=spread)
    out = html.unescape(block(both, ctx))
    for fragment in (
        "cosine 0.4800, 5.1 σ above this query's vault mean 0.120 → vector evidence 0.83000",
        "all words pass, holds 4 of 4 content words, bm25 7.2000 → lexical evidence 0.90000",
        "Calibrated",
        "Calibrated\u00a0 <code>fused = 1 − (1 − a)(1 − b)</code>",
        "<br/><code>= 1 − (1 − 0.90000)(1 − 0.83000) = 0.98300</code>",
        "a = 1 × 0.90000 = 0.90000 (lexical), b = 1 × 0.83000 = 0.83000 (vector)",
        "contributions a − ab/2 = 0.52650, b − ab/2 = 0.45650",
    ):
        assert fragment in out, fragment
    assert "RRF" not in out and "Convex" not in out
    one = replace(both, fts_rank=None, evidence={"vector": b}, fused_score=b)
    out = html.unescape(block(one, ctx))
    assert "<code>fused = a = 0.83000</code> <span" in out and "(one list found it:" in out
    assert "<br/>a = 1 × 0.83000 = 0.83000 (vector): weight × evidence" in out
    # The evidence is stated under every method (it is what "close match" is decided on).
    out = html.unescape(block(both, replace(ctx, options=SEED)))
    assert "→ vector evidence 0.83000" in out and "a − ab/2" not in out


def test_numbers_read_alike_everywhere_and_a_tiny_bm25_is_not_zero() -> None:
    """ "1440" in one place against "1,440" in the status bar; "bm25 0.0000" for a ranked hit
    (issue 46)."""
    ctx = ExplainContext(SEED, 1_203, 1_440, 2_048, 1_440, True)
    out = block(hit(fts_rank=1_100, vector_rank=1_203, fts_score=0.0000123), ctx)
    for fragment in ("Fused rank 1,203</b> of 1,440", "rank 1,100 of 2,048", "rank 1,203 of 1,440"):
        assert fragment in out, fragment
    assert "bm25 0.0000" not in out and "bm25 1.23e-05" in out
    cut = ExplainContext(SEED, 3, 1_440, 2_048, 1_440, True)
    missing = block(hit(fts_rank=None, source="vector"), cut)
    assert "2,048 candidates" in missing


def test_explain_block_names_the_title_evidence_and_fuses_three() -> None:
    """A hit whose title is the query: a Title row, what matched, and the formula of three."""
    from explorer.search.fusion.fusion import noisy_or
    from explorer.search.lists.titles import TitleMatch

    calibrated = replace(SEED, fusion="calibrated", w_fts=1.0, w_vec=1.0)
    a, b, c = 0.6, 0.5, 1.0
    (fused,) = noisy_or({"fts": [("x", a)], "vector": [("x", b)], "title": [("x", c)]})
    titled = hit(
        fts_pass="all words",
        coverage=1.0,
        evidence={"fts": a, "vector": b, "title": c},
        fused_score=fused.score,
        contributions=fused.contributions,
        title_match=TitleMatch("exact", "CDN purge"),
    )
    ctx = ExplainContext(calibrated, 1, 5, 5, 5, True, content_words=2)
    out = html.unescape(block(titled, ctx))
    for fragment in (
        "Title",
        'the title matches the query ("CDN purge") → title evidence 1.00000',
        "fused = 1 − (1 − a)(1 − b)(1 − c)",
        "c = 1 × 1.00000 = 1.00000 (title)",
        f"c {fused.contributions['title']:.5f}",
    ):
        assert fragment in out, fragment
    assert sum(fused.contributions.values()) == pytest.approx(fused.score) == 1.0


def test_the_formula_weighs_the_title_as_the_fusion_does() -> None:
    """With w_fts 0 the fusion weighs a matching title at 0 (``list_weights``): the formula
    said ``1 − (1 − 0.50000)(1 − 1.00000) = 0.50000``, the title at weight 1."""
    from explorer.search.fusion.fusion import list_weights
    from explorer.search.fusion.methods import noisy_or
    from explorer.search.lists.titles import TitleMatch

    wordless = replace(SEED, fusion="calibrated", w_fts=0.0, w_vec=1.0)
    (fused,) = noisy_or({"vector": [("x", 0.5)], "title": [("x", 1.0)]}, list_weights(wordless))
    named = hit(
        fts_rank=None,
        source="vector",
        evidence={"vector": 0.5, "title": 1.0},
        fused_score=fused.score,
        contributions=fused.contributions,
        title_match=TitleMatch("exact", "CDN purge"),
    )
    out = html.unescape(block(named, ExplainContext(wordless, 1, 5, 5, 5, True)))
    assert "= 1 − (1 − 0.50000)(1 − 0.00000) = 0.50000" in out
    assert "b = 0 × 1.00000 = 0.00000 (title)" in out
    numbers = re.search(r"= 1 − ((?:\(1 − [0-9.]+\))+) = ([0-9.]+)", out)
    assert numbers is not None, out
    missing = math.prod(1 - float(x) for x in re.findall(r"\(1 − ([0-9.]+)\)", numbers[1]))
    assert 1 - missing == pytest.approx(float(numbers[2])) == pytest.approx(fused.score)
