"""The explain block above a note in the preview: an
:class:`~explorer.search.explain.explanation.Explanation` in HTML — how the hit's fused score was
made, each list's rank and evidence, the formula with the numbers filled in (all of them the
explanation's: nothing is computed here)."""

from __future__ import annotations

import html

from explorer.preview.style import Colours, shown
from explorer.search.explain.arithmetic_text import (
    calibrated_formula_parts,
    calibrated_lines,
    formula,
    formula_legend,
    lexical_evidence_text,
    title_evidence_text,
    vector_evidence_text,
)
from explorer.search.explain.explain_text import change_line
from explorer.search.explain.explanation import Explanation
from explorer.search.query.options import Fusion

#: The link in the explain block that shows or hides the fused score's arithmetic.
ARITHMETIC_URL = "vault-explain:arithmetic"

#: What each source of a hit is said as.
SOURCES = {
    "both": "found by both lists",
    "fts": "found by the lexical list only",
    "vector": "found by the vector list only",
    "title": "found by its name only",
}


def explain_html(e: Explanation, colours: Colours, *, arithmetic: bool = True) -> str:
    """Why the note of ``e`` ranks where it does: a row per list (rank, contribution) with its
    evidence in words and numbers under it (raw score, what it is measured against, the
    calibrated evidence), then the fusion formula with the numbers filled in — or, without
    ``arithmetic``, the fused score alone and a link (:data:`ARITHMETIC_URL`) that asks for
    the formula; then what would change its place, if ``e`` says."""
    s = e.scored
    if e.listing or s is None:
        rank = f" #{s.rank}" if s is not None else ""
        return (
            f"<b>{shown(e.title)}</b><br/>"
            f'<span style="color:{colours.muted}">Recently modified note{rank}: the query '
            "has no words to search, so nothing is ranked.</span>"
        )
    muted = f'style="color:{colours.muted}"'
    rows: list[tuple[str, str, str, str | None]] = []  # (list, rank, contribution, evidence)
    notes: list[str] = []
    lex = s.lexical
    if lex is not None:
        name = f'<span style="color:{colours.fts}">■</span> Lexical'
        if lex.rank is not None:
            rank = f"rank {lex.rank:,} of {lex.listed:,}"
            rows.append((name, rank, f"{lex.contribution:.5f}", lexical_evidence_text(lex)))
        else:
            depth = f"{lex.listed:,} candidates, depth {s.depth}"
            rows.append((name, f"not in the list ({depth})", "", None))
    vec = s.vector
    name = f'<span style="color:{colours.vector}">■</span> Vector'
    if s.unavailable is not None:
        rows.append((name, f"unavailable ({shown(s.unavailable)})", "", None))
    elif vec is not None and vec.rank is not None:
        rank = f"rank {vec.rank:,} of {vec.listed:,}"
        rows.append((name, rank, f"{vec.contribution:.5f}", vector_evidence_text(vec)))
        if s.passage is not None and arithmetic:  # else: the preview's mark says it
            start, end = s.passage
            notes.append(f"best passage at characters {start}–{end} (marked below)")
    elif vec is not None:
        floor = f", floor {s.min_sim:g}" if s.min_sim > 0 else ""
        depth = f"{vec.listed:,} candidates, depth {s.depth}{floor}"
        rows.append((name, f"not in the list ({depth})", "", None))
    if s.title is not None:
        rows.append(
            (
                f'<span style="color:{colours.muted}">■</span> Title',
                s.title.closeness,
                f"{s.title.share.contribution or 0.0:.5f}",
                title_evidence_text(s.title),
            )
        )
    if s.recency is not None:
        r = s.recency
        rows.append(
            (
                f'<span style="color:{colours.recency}">■</span> Recency',
                f"{r.recent:.3f} (½ every {r.half_life:g} days, weight {r.weight:g})",
                f"{r.contribution:.5f}",
                "a prior for recently modified notes, not a list: it reorders what the lists found",
            )
        )
    if lex is not None and lex.rank is not None:
        notes.append("bm25 is negated: higher is better")
    if s.stale:
        notes.append("<i>status: stale — placed after every note that is not stale</i>")
    notes.extend(s.extra)
    source = SOURCES.get(s.source or "", "")
    head = _table(f"<b>Fused rank {s.rank:,}</b> of {s.total:,} · {source}", rows, muted)
    # On the line of the score: a line of its own was one more than a 1280-wide window's pane.
    tail = f" · <span {muted}>{' · '.join(notes)}</span>" if notes else ""
    tail += "".join(f"<br/>{html.escape(change_line(c, e))}" for c in e.changes)
    method, terms = formula_legend(s.method, s.k)
    if not arithmetic:
        show = f'<a href="{ARITHMETIC_URL}">show the arithmetic</a>'
        return f"{head}{method}&nbsp; fused {s.score:.5f} · {show}{tail}"
    if s.method == Fusion.CALIBRATED:
        # Letters, then numbers on a line of their own: one line is too wide for the pane.
        lines = calibrated_lines(s)
        symbols, numbers = calibrated_formula_parts(s)
        if len(lines) == 1:  # one list: no "either" to speak of, and a short line
            terms = "one list found it: its evidence × its weight"
            fused = f"<code>fused = {html.escape(symbols)} = {html.escape(numbers)}</code>"
        else:
            fused = f"<code>fused = {html.escape(symbols)}</code>"
            lines.insert(0, f"= {numbers}")
    else:
        lines = []
        fused = f"<code>{html.escape(formula(s))}</code>"
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


def _table(head: str, rows: list[tuple[str, str, str, str | None]], muted: str) -> str:
    """``head`` (the fused rank) over the lists' rows, each a table of two columns to fit a
    narrow pane: the list's name and its rank, then its contribution (under the header
    beside ``head``); each list's evidence under its row, the pane's whole width.  (A column
    of names beside the evidence left it a third of a 1280-wide window's preview.)"""
    table = '<table width="100%" cellspacing="0" cellpadding="0">'
    whole = 'style="white-space: nowrap"'  # "contribution" broke into "contribut" / "ion"
    top = (
        f"<tr><td>{head}</td><td align=right valign=top {whole}>"
        f"<span {muted}>contribution</span></td></tr>"
    )
    out = [f"{table}{top}</table>"] if not rows else []
    for i, (a, b, c, d) in enumerate(rows):
        row = (
            f"<tr><td>{a} {b}</td><td align=right>{c}</td></tr>"
            if c
            else f"<tr><td>{a} {b}</td></tr>"
        )
        out.append(f"{table}{top if i == 0 else ''}{row}</table>")
        if d:
            said = html.escape(d)
            out.append(
                f'<p style="margin-left: 10px; margin-top: 1px; margin-bottom: 3px">{said}</p>'
            )
    return "".join(out)
