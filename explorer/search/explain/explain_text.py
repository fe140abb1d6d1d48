"""An :class:`~explorer.search.explain.explain.Explanation` in plain sentences, one a line, with the
numbers (what ``vault-explorer explain`` prints and the window's "Why not…" panel shows)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.search.explain.arithmetic_text import (
    calibrated_lines,
    formula,
    lexical_evidence_text,
    title_evidence_text,
    vector_evidence_text,
)
from explorer.search.fusion.evidence import weighs_otherwise
from explorer.search.query.options import Fusion
from explorer.search.query.quoting import filter_text

if TYPE_CHECKING:
    from explorer.search.explain.explanation import (
        EvidencePlace,
        Explanation,
        FilterCheck,
        VectorPlace,
    )
    from explorer.search.explain.scoring import Share
    from explorer.search.explain.whatif import Change


def property_line(check: FilterCheck) -> str:
    """A property filter's line: ``not listed: `[status:done]` excludes it, its status is
    open``, or that the note passes it."""
    name = check.value.lstrip("-")[1:-1].split(":", 1)[0].strip()
    holds = f"its {name} is {check.holds}" if check.holds else f"it has no {name}"
    if check.passes:
        return f"filter `{check.value}`: the note passes it ({holds})"
    return f"not listed: `{check.value}` excludes it, {holds}"


def explanation_lines(e: Explanation) -> list[str]:
    o = e.options
    lines = [f"{e.path} — {e.title}", f"query: {e.query}"]
    if e.vault is None:  # a search's hit: how its score was made
        return lines + hit_lines(e)
    lines.append(_verdict(e))
    for check in e.filters:
        if check.kind == "tag":
            has = "the note has it" if check.passes else "the note does not have this tag"
            lines.append(f"filter {filter_text('tag', check.value)}: {has}")
        elif check.kind == "property":
            lines.append(property_line(check))
        elif check.kind in ("modified", "created"):
            holds = f"it was {check.kind} {check.holds}" if check.holds else "its date is unknown"
            if check.passes:
                lines.append(f"filter `{check.value}`: the note passes it ({holds})")
            else:
                lines.append(f"not listed: `{check.value}` excludes it, {holds}")
        elif check.kind in ("linkto", "linkedfrom"):
            held = "the note passes it" if check.passes else "the note does not pass it"
            lines.append(f"filter {filter_text(check.kind, check.value)}: {held}")
        else:
            under = "the note is under it" if check.passes else "the note is not under this path"
            lines.append(f"filter {filter_text('path', check.value)}: {under}")
    for x in e.exclusions:
        if x.present:
            lines.append(f"excluded by -{x.word}: the note contains “{x.word}”")
        else:
            lines.append(f"exclusion -{x.word}: not in the note")
    if e.listing:
        lines.append("the query has no words to search: the result lists recent notes")
    w = e.words
    for t in w.terms:
        where = [c for c in ("title", "tags", "body") if getattr(t, c)]
        stems = f" (stem {', '.join(t.stems)})" if t.stems and t.stems != (t.word.lower(),) else ""
        lines.append(
            f"word “{t.word}”{stems}: "
            + (f"in the {', '.join(where)}" if where else "in no title, tag or body of it")
        )
    if w.stopwords:
        lines.append(f"stop words, not needed: {', '.join(w.stopwords)}")
    lex = e.lexical
    if lex.used and not e.listing:
        if lex.rank is None:
            lines.append(f"lexical list: not found (no pass matches it; {lex.matches} notes match)")
        else:
            cut = (
                f" — below the depth {lex.depth}, so cut"
                if lex.cut
                else f", within the depth {lex.depth}"
            )
            lines.append(
                f"lexical list: rank {lex.rank} of {lex.matches} over the whole vault "
                f"(bm25 {lex.score:.3f}){cut}"
            )
    elif not e.listing:
        lines.append("lexical list: not used in semantic mode")
    vec = e.vector
    if vec.used and not vec.available:
        lines.append(f"vector list: unavailable ({vec.reason})")
    elif vec.used and vec.cosine is None:
        lines.append("vector list: the note has no vector yet (or the filters leave it out)")
    elif vec.used:
        floor_text = (
            f"floor {vec.floor:.3f} = max(min_sim {vec.min_sim:g}, min_rel {vec.min_rel:g} × "
            f"best {vec.best:.3f})"
            if vec.floor is not None and vec.best is not None
            else f"floor {vec.min_sim:g}"
        )
        place = f"rank {vec.rank}" if vec.rank is not None else "left out by the filters"
        if vec.rank is None:
            verdict = ""
        elif vec.under_floor:
            verdict = " — under the floor, so not in the list"
        elif vec.cut:
            verdict = f" — below the depth {vec.depth}, so cut"
        else:
            verdict = ", in the list"
        lines.append(
            f"vector list: best chunk cosine {vec.cosine:.3f}, {place}; {floor_text}{verdict}"
        )
        lines.append(_chunks(vec))
    elif not e.listing:
        lines.append("vector list: not used in lexical mode")
    if e.evidence is not None:
        lines.append(_evidence(e.evidence))
    f = e.fused
    if f.rank is None:
        lines.append("fused: in neither list, so not ranked")
    else:
        last = (
            f", the hit at the limit scores {f.last_score:.5f}" if f.last_score is not None else ""
        )
        method = f"{f.method}" + (f", k {o.k:g}" if f.method == Fusion.RRF else "")
        lines.append(
            f"fused ({method}, w_fts {o.w_fts:g}, w_vec {o.w_vec:g}): rank {f.rank} of "
            f"{f.candidates}, score {f.score:.5f}{last}; limit {f.limit}"
        )
        if f.recency is not None and f.recent is not None:
            lines.append(
                f"recency prior (weight {o.recency:g}, half-life {o.half_life:g} days): "
                f"recency {f.recent:.3f}, adds {f.recency:.5f} of the score"
            )
    if f.stale:
        if f.rank_before_demotion is not None and f.rank is not None:
            lines.append(
                f"stale: demoted after the other notes, from rank {f.rank_before_demotion} "
                f"to {f.rank}"
            )
        else:
            lines.append("stale: would be placed after the other notes")
    for c in e.changes:
        lines.append(change_line(c, e))
    return lines


def _chunks(vec: VectorPlace) -> str:
    """One line: which chunk the cosine is of, and the one that came second."""
    best, second = vec.best_chunk, vec.runner_up_chunk
    if best is None:
        return "chunks: not known"
    said = (
        f"chunks: the best is chunk {best.seq + 1} of {vec.chunks} "
        f"(characters {best.start}–{best.end}), cosine {best.cosine:.3f}"
    )
    if second is None:
        return said + "; no runner-up (the note is one chunk)"
    return (
        said + f"; runner-up chunk {second.seq + 1} (characters {second.start}–{second.end}), "
        f"cosine {second.cosine:.3f}"
    )


def _evidence(ev: EvidencePlace) -> str:
    """One line: what each list says of the note in absolute terms (the calibrated evidence)."""
    parts = []
    if ev.lexical is not None:
        held = f", holds {ev.coverage:.0%} of the content words" if ev.coverage is not None else ""
        if held and weighs_otherwise(ev.coverage, ev.weighted):
            held += f" ({ev.weighted or 0.0:.0%} of their weight: rarer words weigh more)"
        parts.append(f"lexical {ev.lexical:.3f}{held}")
    if ev.sigmas is not None and ev.mean is not None and ev.flat:
        parts.append(
            f"vector {ev.vector or 0:.3f} (no spread: this query's cosines over the vault all lie "
            f"within σ {ev.std or 0:.0e} of {ev.mean:.3f}, so none stands out)"
        )
    elif ev.vector is not None and ev.sigmas is not None and ev.mean is not None:
        parts.append(
            f"vector {ev.vector:.3f} (cosine {ev.sigmas:.1f} σ above this query's vault mean "
            f"{ev.mean:.3f}, σ {ev.std or 0:.3f})"
        )
    elif ev.sigmas is not None and ev.mean is not None:
        parts.append(
            f"vector 0 (its cosine is {ev.sigmas:.1f} σ from this query's vault mean "
            f"{ev.mean:.3f}: it does not stand out)"
        )
    if ev.title is not None and ev.title_match is not None:
        parts.insert(
            0,
            f"title {ev.title:.3f} ({title_said(ev.title_match, ev.title_alias)}: {ev.title_name})",
        )
    said = "; ".join(parts) or "none"
    if ev.close_match is None:
        close = f"no note's words reach {ev.bar:g}, and the meaning list that could tell is missing"
    elif ev.close_match:
        close = "the query has a close match"
    else:
        close = f"no note of the query reaches {ev.bar:g}: no close match"
    return f"evidence: {said}; calibrated {ev.calibrated:.5f} ({close})"


def title_said(closeness: str, alias: bool) -> str:
    """``the title matches the query``, ``an alias nearly matches the query``, …"""
    name = "an alias" if alias else "the title"
    how = "matches" if closeness == "exact" else "nearly matches"
    return f"{name} {how} the query"


def _verdict(e: Explanation) -> str:
    reasons = e.reasons
    if "shown" in reasons and e.fused.rank is not None:
        return f"shown at rank {e.fused.rank}"
    named = {
        "filtered": "a filter leaves it out",
        "excluded": "an exclusion leaves it out",
        "no-words": "no query word is in it",
        "lexical-depth": "the lexical depth cuts it",
        "under-floor": "it is under the vector floor",
        "vector-depth": "the vector depth cuts it",
        "stale-demoted": "it is stale, demoted below the top",
        "below-limit": f"it ranks below the top {e.top}",
        "listing": "the query lists recent notes",
    }
    said = [named[r] for r in reasons if r in named]
    return "not shown: " + "; ".join(said) if said else "not shown"


def change_line(c: Change, e: Explanation) -> str:
    """One what-if as a sentence: the setting, from what to what, and the rank it gives."""
    if c.setting is None:
        return f"to enter the top {e.top}: {c.note}" if c.rank is None else c.note
    if not c.possible or c.setting == "depth":
        return f"{c.setting}: {c.note}"
    others = {"w_fts": "w_vec", "w_vec": "w_fts", "k": "the weights"}[c.setting]
    assert c.threshold is not None and c.value is not None and c.current is not None
    side = "above" if c.direction == "raise" else "below"
    exact = " (or exactly at it)" if c.value == c.threshold else ""
    return (
        f"{c.direction} {c.setting} from {c.current:g} to {side} {c.threshold:.4g}{exact} "
        f"({others} fixed): e.g. {c.value:g} puts it at rank {c.rank}"
    )


def hit_lines(e: Explanation) -> list[str]:
    """A search's hit explained from its lists (no vault asked): its place, each list's rank,
    contribution and evidence, the fused score's arithmetic, the best passage."""
    s = e.scored
    if e.listing or s is None:
        rank = f": recently modified note #{s.rank}" if s is not None else ""
        return [f"the query has no words to search: the result lists recent notes{rank}"]
    shown = "shown" if s.rank <= e.top else f"below the top {e.top}"
    lines = [f"{shown} at rank {s.rank} of {s.total}"]
    for name, share, said in (
        ("lexical", s.lexical, lexical_evidence_text),
        ("vector", s.vector, vector_evidence_text),
    ):
        if name == "vector" and s.unavailable is not None:
            lines.append(f"vector list: unavailable ({s.unavailable})")
        elif share is not None:
            lines.append(_share_line(name, share, said(share), s.depth))
    if s.title is not None:
        t = s.title
        lines.append(
            f"title: {t.closeness}, contribution {t.share.contribution or 0.0:.5f}; "
            + title_evidence_text(t)
        )
    if s.recency is not None:
        r = s.recency
        lines.append(
            f"recency prior (weight {r.weight:g}, half-life {r.half_life:g} days): "
            f"recency {r.recent:.3f}, adds {r.contribution:.5f} of the score"
        )
    lines.append(f"fused ({s.method}): score {s.score:.5f} = {formula(s)}")
    if s.method == Fusion.CALIBRATED:
        lines.extend(calibrated_lines(s))
    if s.passage is not None:
        lines.append(f"best passage: characters {s.passage[0]}–{s.passage[1]}")
    if s.stale:
        lines.append("stale: placed after every note that is not stale")
    lines.extend(change_line(c, e) for c in e.changes)
    return lines


def _share_line(name: str, share: Share, said: str | None, depth: int) -> str:
    if share.rank is None:
        return f"{name} list: not in the list ({share.listed} candidates, depth {depth})"
    evidence = f"; {said}" if said else ""
    return (
        f"{name} list: rank {share.rank} of {share.listed}, "
        f"contribution {share.contribution or 0.0:.5f}{evidence}"
    )
