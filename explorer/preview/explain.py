"""The explain block above a note in the preview: how the hit's fused score was made, each list's
rank and evidence, the formula with the numbers filled in."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from explorer.index.vectors import CosineSpread
from explorer.preview.evidence_text import (
    calibrated_formula,
    calibrated_formula_parts,
    calibrated_lines,
    lexical_evidence_text,
    title_evidence_text,
    vector_evidence_text,
)
from explorer.preview.style import Colours, shown
from explorer.search.fusion.results import Candidates, Hit, SearchResponse
from explorer.search.query.options import Fusion, Mode, SearchOptions

#: The link in the explain block that shows or hides the fused score's arithmetic.
ARITHMETIC_URL = "vault-explain:arithmetic"


@dataclass(frozen=True)
class ExplainContext:
    """What the explain block needs besides the hit: settings and list lengths."""

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
    hit: Hit, rank: int, response: SearchResponse, candidates: Candidates | None
) -> ExplainContext:
    """What the explain block needs for ``hit`` at fused ``rank`` of ``response``."""
    depth = min(response.options.depth, candidates.depth) if candidates else 0
    return ExplainContext(
        options=response.options,
        rank=rank,
        total=len(response.hits),
        lexical_count=len(candidates.lexical[:depth]) if candidates else 0,
        vector_count=len(candidates.vector[:depth]) if candidates else 0,
        semantic_available=response.semantic.available,
        semantic_reason=response.semantic.reason,
        listing=response.listing,
        content_words=len(candidates.query.content_parts()) if candidates else 0,
        spread=response.spread,
        query_vector=candidates.query_vector
        if candidates and response.semantic.available
        else None,
        model=response.semantic.model,
    )


def formula(hit: Hit, options: SearchOptions) -> str:
    """The fused score with the numbers filled in, for the fusion method of ``options``:
    RRF ``1 / (10 + 1) + 0.5 / (10 + 4) = 0.12662``, convex ``0.5 × 0.873 + 0.5 × 1.000 = 0.93650``
    (each term a list that found the hit: its weight, and its rank or its normalised score),
    calibrated ``1 − (1 − a)(1 − b) = 1 − (1 − 0.13946)(1 − 0.33134) = 0.42460`` (each list's
    weighted evidence)."""
    if options.fusion == Fusion.CALIBRATED:
        return calibrated_formula(hit, options)
    if options.fusion == Fusion.CONVEX:
        terms = [
            f"{weight:g} × {_normalised(hit.contributions.get(name, 0.0), weight)}"
            for name, weight, rank in (
                ("fts", options.w_fts, hit.fts_rank),
                ("vector", options.w_vec, hit.vector_rank),
            )
            if rank is not None
        ]
    else:
        k = f"{options.k:g}"
        terms = []
        if hit.fts_rank is not None:
            terms.append(f"{options.w_fts:g} / ({k} + {hit.fts_rank})")
        if hit.vector_rank is not None:
            terms.append(f"{options.w_vec:g} / ({k} + {hit.vector_rank})")
    if "recency" in hit.contributions:
        terms.append(f"{hit.contributions['recency']:.5f} (recency)")
    if not terms:
        return f"0 = {hit.fused_score:.5f}"
    return " + ".join(terms) + f" = {hit.fused_score:.5f}"


def _normalised(contribution: float, weight: float) -> str:
    """A list's normalised score, from its contribution ``weight × score``."""
    return f"{contribution / weight:.3f}" if weight > 0 else "…"


def formula_legend(options: SearchOptions) -> tuple[str, str]:
    """The method's name and what its terms are, for the explain block."""
    if options.fusion == Fusion.CALIBRATED:
        return "Calibrated", (
            "the chance that either list is right; a, b: each list's evidence × its weight"
        )
    if options.fusion == Fusion.CONVEX:
        return "Convex", (
            "w × score / best score of its list; the lexical list per pass "
            "(phrase, all words, any word), each pass a band below the one before"
        )
    return "RRF", f"w / (k + rank), k = {options.k:g}"


def explain_html(
    hit: Hit, ctx: ExplainContext, colours: Colours, *, arithmetic: bool = True
) -> str:
    """Why ``hit`` ranks where it does: a row per list (rank, contribution) with its evidence
    in words and numbers under it (raw score, what it is measured against, the calibrated
    evidence), then the fusion formula with the numbers filled in — or, without
    ``arithmetic``, the fused score alone and a link (:data:`ARITHMETIC_URL`) that asks for
    the formula."""
    if ctx.listing:
        return (
            f"<b>{shown(hit.title)}</b><br/>"
            f'<span style="color:{colours.muted}">Recently modified note #{ctx.rank}: the query '
            "has no words to search, so nothing is ranked.</span>"
        )
    mode = ctx.options.mode
    source = {
        "both": "found by both lists",
        "fts": "found by the lexical list only",
        "vector": "found by the vector list only",
        "title": "found by its name only",
    }.get(hit.source or "", "")
    muted = f'style="color:{colours.muted}"'
    rows: list[tuple[str, str, str, str | None]] = []  # (list, rank, contribution, evidence)
    notes: list[str] = []
    if mode != Mode.SEMANTIC:
        name = f'<span style="color:{colours.fts}">■</span> Lexical'
        if hit.fts_rank is not None:
            rows.append(
                (
                    name,
                    f"rank {hit.fts_rank:,} of {ctx.lexical_count:,}",
                    f"{hit.contributions.get('fts', 0.0):.5f}",
                    lexical_evidence_text(hit, ctx.content_words),
                )
            )
        else:
            depth = f"{ctx.lexical_count:,} candidates, depth {ctx.options.depth}"
            rows.append((name, f"not in the list ({depth})", "", None))
    if mode != Mode.FTS:
        name = f'<span style="color:{colours.vector}">■</span> Vector'
        if not ctx.semantic_available:
            reason = shown(ctx.semantic_reason or "unavailable")
            rows.append((name, f"unavailable ({reason})", "", None))
        elif hit.vector_rank is not None:
            rows.append(
                (
                    name,
                    f"rank {hit.vector_rank:,} of {ctx.vector_count:,}",
                    f"{hit.contributions.get('vector', 0.0):.5f}",
                    vector_evidence_text(hit, ctx.spread),
                )
            )
            if hit.best_chunk is not None and arithmetic:  # else: the preview's mark says it
                start, end = hit.best_chunk
                notes.append(f"best passage at characters {start}–{end} (marked below)")
        else:
            floor = f", floor {ctx.options.min_sim:g}" if ctx.options.min_sim > 0 else ""
            depth = f"{ctx.vector_count:,} candidates, depth {ctx.options.depth}{floor}"
            rows.append((name, f"not in the list ({depth})", "", None))
    said = title_evidence_text(hit)
    if said is not None and hit.title_match is not None:
        rows.append(
            (
                f'<span style="color:{colours.muted}">■</span> Title',
                hit.title_match.closeness,
                f"{hit.contributions.get('title', 0.0):.5f}",
                said,
            )
        )
    if hit.recency is not None and "recency" in hit.contributions:
        o = ctx.options
        rows.append(
            (
                f'<span style="color:{colours.recency}">■</span> Recency',
                f"{hit.recency:.3f} (½ every {o.half_life:g} days, weight {o.recency:g})",
                f"{hit.contributions['recency']:.5f}",
                "a prior for recently modified notes, not a list: it reorders what the lists found",
            )
        )
    pad = 'style="padding-right: 14px"'
    cells = "".join(
        (
            f"<tr><td {pad}>{a}</td><td {pad}>{b}</td><td align=right>{c}</td></tr>"
            if c
            else f'<tr><td {pad}>{a}</td><td colspan="2">{b}</td></tr>'  # not in the list
        )
        + (
            f'<tr><td></td><td colspan="2" style="padding-bottom: 3px">{html.escape(d)}</td></tr>'
            if d
            else ""
        )
        for a, b, c, d in rows
    )
    table = (
        '<table cellspacing="0" cellpadding="1">'
        f"<tr {muted}><td {pad}></td><td {pad}>rank</td>"
        f'<td align=right style="white-space: nowrap">contribution</td></tr>{cells}</table>'
    )
    if mode != Mode.SEMANTIC and hit.fts_rank is not None:
        notes.append("bm25 is negated: higher is better")
    if hit.demoted:
        notes.append("<i>status: stale — placed after every note that is not stale</i>")
    notes.extend(ctx.extra)
    head = f"<b>Fused rank {ctx.rank:,}</b> of {ctx.total:,} · {source}{table}"
    tail = f"<br/><span {muted}>{' · '.join(notes)}</span>" if notes else ""
    method, terms = formula_legend(ctx.options)
    if not arithmetic:
        show = f'<a href="{ARITHMETIC_URL}">show the arithmetic</a>'
        return f"{head}{method}&nbsp; fused {hit.fused_score:.5f} · {show}{tail}"
    if ctx.options.fusion == Fusion.CALIBRATED:
        # Letters, then numbers on a line of their own: one line is too wide for the pane.
        lines = calibrated_lines(hit, ctx.options)
        symbols, numbers = calibrated_formula_parts(hit, ctx.options)
        if len(lines) == 1:  # one list: no "either" to speak of, and a short line
            terms = "one list found it: its evidence × its weight"
            fused = f"<code>fused = {html.escape(symbols)} = {html.escape(numbers)}</code>"
        else:
            fused = f"<code>fused = {html.escape(symbols)}</code>"
            lines.insert(0, f"= {numbers}")
    else:
        lines = []
        fused = f"<code>{html.escape(formula(hit, ctx.options))}</code>"
    return (
        f"{head}{method}&nbsp; {fused} <span {muted}>({html.escape(terms)})</span>"
        + "".join(
            f"<br/><code>{html.escape(line)}</code>"
            if line.startswith("=")
            else f"<br/>{html.escape(line)}"
            for line in lines
        )
        + f' · <a href="{ARITHMETIC_URL}">hide the arithmetic</a>{tail}'
    )
