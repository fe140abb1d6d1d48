"""Why a note is where it is for a query — or why it is not there: :func:`explain`.

For one note and one query under one :class:`SearchOptions`, every reason, each a small value
with a ``code`` and JSON fields: the filters and exclusions it fails, the content words it lacks
(per title, tags and body, after the index's Porter stemming), its rank in each list over the
whole vault against the depth cut, its best chunk's cosine against the vector floor, its fused
rank and score against the last hit shown, stale demotion, and what would bring it into the top
N (:mod:`explorer.search.explain.whatif`).  The lists are the search's own
(:meth:`Searcher.candidates` at the options given); the whole-vault ranks come from the same lexical
list and vector index, without the depth cut.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import numpy as np

from explorer.index.migrations import FTS_TOKENIZER
from explorer.search.explain.explanation import (
    EvidencePlace,
    ExclusionCheck,
    Explanation,
    FilterCheck,
    FusedPlace,
    LexicalPlace,
    VaultPlace,
    VectorPlace,
    WordCheck,
    Words,
)
from explorer.search.explain.note_dates import minute_text, moment
from explorer.search.explain.notes_lookup import indexed_id
from explorer.search.explain.scoring import Scored, explain_context, scored
from explorer.search.explain.whatif import Change, Competition, changes_for
from explorer.search.fusion import fusion
from explorer.search.fusion.evidence import CALIBRATION
from explorer.search.fusion.fusion import (
    calibrated_scores,
    close_match,
    combined,
    convex_tiers,
    evidence_lists,
    fuse,
    fuse_lists,
    lexical_coverage,
)
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.recency import recency
from explorer.search.fusion.results import DEMOTED_STATUS, Candidates
from explorer.search.lists.chunk_scores import best_two, note_chunks
from explorer.search.lists.lexical import lexical_list
from explorer.search.query.options import Mode, SearchOptions
from explorer.search.query.query import Query, QueryError, Term
from explorer.search.query.restriction import (
    date_set,
    link_set,
    paths_set,
    property_set,
    tag_set,
)

#: The columns of the full-text table, in the order the explanation names them.
COLUMNS = ("title", "tags", "body")


class NoteNotIndexed(QueryError):
    """The note asked about is not in the index (the message is one line)."""


# ----------------------------------------------------------------------------- explain


def _evidence(candidates: Candidates, options: SearchOptions, path: str) -> EvidencePlace:
    depth = min(options.depth, candidates.depth)
    weighted = lexical_coverage(candidates)
    strength = calibrated_scores(
        candidates, options, candidates.lexical[:depth], candidates.vector[:depth], weighted
    )
    mine = strength.get(path, {})
    spread = candidates.spread
    cosine = next((v.score for v in candidates.vector[:depth] if v.path == path), None)
    in_lexical = path in candidates.lexical_tiers
    fused, scored = fuse_lists(
        candidates, options, candidates.lexical[:depth], candidates.vector[:depth], weighted
    )
    listed = [f.id for f in fused if f.score > 0]
    named = candidates.titles.get(path) if fusion.TITLE in scored else None
    return EvidencePlace(
        lexical=mine.get("fts"),
        coverage=candidates.lexical_coverage.get(path, 1.0) if in_lexical else None,
        weighted=weighted.get(path) if in_lexical else None,
        vector=mine.get("vector"),
        sigmas=spread.sigmas(cosine) if spread is not None and cosine is not None else None,
        mean=spread.mean if spread is not None else None,
        std=spread.std if spread is not None else None,
        calibrated=combined(mine),
        bar=CALIBRATION.close,
        close_match=close_match(strength, listed, options, scored),
        flat=spread is not None and spread.flat,
        title=mine.get(fusion.TITLE),
        title_match=named.closeness if named else None,
        title_name=named.name if named else None,
        title_alias=named.alias if named else False,
    )


def explain(
    searcher: Searcher,
    raw: str,
    path: str,
    options: SearchOptions,
    top: int | None = None,
) -> Explanation:
    """Every reason ``path`` is where it is in the results of ``raw`` under ``options``, and
    what would bring it into the top ``top`` (default: the limit).  Raises
    :class:`NoteNotIndexed` when the index has no such note, :class:`QueryError` for a bad
    query or bad options."""
    options = options.validate().in_effect()
    n = options.limit if top is None else top
    if n < 1:
        raise QueryError(f"top must be 1 or more, got {n}")
    conn = searcher.db.conn
    given, path = path, indexed_id(conn, path)
    row = conn.execute("SELECT id, title, status FROM notes WHERE path = ?", (path,)).fetchone()
    if row is None:
        raise NoteNotIndexed(f"{given} is not a note of the index (see: vault-explorer status)")
    note_id, title, status = int(row[0]), str(row[1]), row[2]
    candidates = searcher.candidates(raw, options)
    query = candidates.query
    filters = _filters(conn, query, note_id, path)
    exclusions = tuple(
        ExclusionCheck(t.text, _matches(conn, fts, note_id))
        for t in query.excluded
        if (fts := t.fts()) is not None
    )
    words = _words(conn, query, note_id)
    total = int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    lexical = _lexical(conn, query, path, options, candidates, total)
    vector = _vector(searcher, query, note_id, options, candidates, total)
    fused, competition = _fused(candidates, options, path, status == DEMOTED_STATUS, n)
    changes: tuple[Change, ...] = ()
    if not candidates.listing:
        deeper = _deeper(lexical, vector) if competition.rank is None else ()
        changes = deeper or tuple(changes_for(competition, options, n))
    return Explanation(
        query=raw,
        path=path,
        title=title,
        options=options,
        top=n,
        listing=candidates.listing,
        scored=_scored(candidates, options, fused),
        vault=VaultPlace(
            filters=filters,
            exclusions=exclusions,
            words=words,
            lexical=lexical,
            vector=vector,
            fused=fused,
            evidence=None if candidates.listing else _evidence(candidates, options, path),
        ),
        changes=changes,
    )


def _scored(candidates: Candidates, options: SearchOptions, place: FusedPlace) -> Scored | None:
    """How the note's fused score was made, from the hit the search's own fusion makes of it
    at its rank (:func:`~explorer.search.explain.scoring.scored`, as the window's block)."""
    if place.rank is None:
        return None
    response = fuse(candidates, options, upto=place.rank)
    hit = response.hits[place.rank - 1]
    ctx = explain_context(hit, place.rank, response, candidates, total=place.candidates)
    return scored(hit, ctx)


def _filters(
    conn: sqlite3.Connection, query: Query, note_id: int, path: str
) -> tuple[FilterCheck, ...]:
    # Each filter's verdict is the note in its set of the search's own restriction.
    out = [FilterCheck("tag", tag, tag_set(tag).passes(conn, note_id)) for tag in query.tags]
    # The path filters pass together: a note under any of them passes.
    under = bool(query.paths) and paths_set(query.paths).passes(conn, note_id)
    out.extend(FilterCheck("path", prefix, under) for prefix in query.paths)
    for kind, values in (("linkto", query.links_to), ("linkedfrom", query.linked_from)):
        for value in values:
            out.append(FilterCheck(kind, value, link_set(kind, value).passes(conn, note_id)))
    for prop in query.properties:
        passed = property_set(prop).passes(conn, note_id)
        values = [
            str(text)
            for (text,) in conn.execute(
                "SELECT text FROM note_props WHERE note_id = ? AND key = ? AND text IS NOT NULL "
                "ORDER BY seq LIMIT 5",
                (note_id, prop.key),
            )
        ]
        out.append(FilterCheck("property", prop.shown, passed, holds=", ".join(values)))
    for date in query.dates:
        dated = date_set(conn, date, query.now)
        passed = dated is None or dated.passes(conn, note_id)
        column = (
            "SELECT mtime_ns / 1000 FROM notes WHERE id = ?"
            if date.field == "modified"
            else "SELECT created_us FROM note_creation WHERE note_id = ?"
        )
        row = conn.execute(column, (note_id,)).fetchone()
        when = "" if row is None else _day(int(row[0]))
        out.append(FilterCheck(date.field, date.raw, passed, holds=when))
    return tuple(out)


def _day(us: int) -> str:
    """A time in microseconds as the day and minute it names, UTC (any year)."""
    return f"{minute_text(moment(us))} UTC"


def _matches(conn: sqlite3.Connection, expression: str, note_id: int) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? AND rowid = ?",
            (expression, note_id),
        ).fetchone()
        is not None
    )


def _words(conn: sqlite3.Connection, query: Query, note_id: int) -> Words:
    content = [t for t in query.content_terms if t.fts() is not None]
    stop = tuple(dict.fromkeys(t.text for t in query.stop_terms))
    seen: dict[str, Term] = {}
    for term in content:
        seen.setdefault(term.text.lower(), term)
    terms = list(seen.values())
    stems = stem_words([t.text for t in terms])
    checks = []
    for term, term_stems in zip(terms, stems, strict=True):
        # As the lexical list matches it: stems included, and a German compound by its parts.
        fts = query.any_word_term(term)
        assert fts is not None
        found = {c: _matches(conn, f"{c} : {fts}", note_id) for c in COLUMNS}
        checks.append(
            WordCheck(term.text, term_stems, found["title"], found["tags"], found["body"])
        )
    missing = tuple(c.word for c in checks if not c.found)
    return Words(tuple(checks), missing, stop)


def stem_words(words: list[str]) -> list[tuple[str, ...]]:
    """Each word's tokens as the index stores them (its tokenizer: Porter over unicode61)."""
    if not words:
        return []
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE w USING fts5(t, tokenize='{FTS_TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')")
        conn.executemany(
            "INSERT INTO w(rowid, t) VALUES (?, ?)", [(i, word) for i, word in enumerate(words)]
        )
        found: dict[int, list[str]] = {}
        for doc, term in conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
            found.setdefault(int(doc), []).append(str(term))
    finally:
        conn.close()
    return [tuple(found.get(i, ())) for i in range(len(words))]


def _deeper(lexical: LexicalPlace, vector: VectorPlace) -> tuple[Change, ...]:
    """For a note in neither fused list that a list finds below its depth: the depth that
    brings it in (then the fusion places it), instead of "no fusion setting can rank it"."""
    below = [
        (place.rank, name)
        for name, place in (("lexical", lexical), ("vector", vector))
        if place.used and place.cut and place.rank is not None
    ]
    if not below:
        return ()
    rank, name = min(below)
    depth = lexical.depth
    note = (
        f"it is at {name} rank {rank}, below the depth {depth}: a depth of {rank} brings it "
        "into the fused list (then the fusion settings place it)"
    )
    return (
        Change(
            "depth", True, current=depth, threshold=rank, value=rank, direction="raise", note=note
        ),
    )


def _lexical(
    conn: sqlite3.Connection,
    query: Query,
    path: str,
    options: SearchOptions,
    candidates: Candidates,
    total: int,
) -> LexicalPlace:
    used = options.mode != Mode.SEMANTIC and not candidates.listing
    if not used or query.is_listing:
        return LexicalPlace(used, None, 0, options.depth, False, None)
    whole = lexical_list(conn, query, max(total, 1))
    rank = next((i for i, hit in enumerate(whole, start=1) if hit.path == path), None)
    score = whole[rank - 1].score if rank is not None else None
    cut = rank is not None and rank > options.depth
    return LexicalPlace(used, rank, len(whole), options.depth, cut, score)


def _vector(
    searcher: Searcher,
    query: Query,
    note_id: int,
    options: SearchOptions,
    candidates: Candidates,
    total: int,
) -> VectorPlace:
    used = options.mode != Mode.FTS and not candidates.listing
    semantic = candidates.semantic
    empty = VectorPlace(
        used,
        semantic.available,
        semantic.reason,
        None,
        None,
        None,
        None,
        options.min_sim,
        options.min_rel,
        False,
        options.depth,
        False,
    )
    # The search's own query vector and filter mask: the query is not embedded again, and
    # the filters are the very ones its vector list was ranked under.
    vectors, query_vec = searcher.vector_index(), candidates.query_vector
    if not used or not semantic.available or vectors is None or query_vec is None:
        return empty
    everything = vectors.top_notes(query_vec, max(total, 1))
    cosine = next((h.score for h in everything if h.note_id == note_id), None)
    allowed = candidates.allowed
    if allowed is not None:
        passes = allowed(np.array([h.note_id for h in everything], dtype=np.int64))
        ranked = [h for h, passed in zip(everything, passes, strict=True) if passed]
    else:
        ranked = everything
    rank = next((i for i, h in enumerate(ranked, start=1) if h.note_id == note_id), None)
    best = ranked[0].score if ranked else None
    floor = options.vector_floor(best) if best is not None else options.min_sim
    under = rank is not None and rank > len(options.above_floor(ranked))
    cut = rank is not None and not under and rank > options.depth
    path = searcher.db.conn.execute("SELECT path FROM notes WHERE id = ?", (note_id,)).fetchone()
    chunks = note_chunks(searcher.db.conn, vectors, query_vec, str(path[0])) if path else None
    first, second = best_two(chunks)
    return replace(
        empty,
        cosine=cosine,
        rank=rank,
        best=best,
        floor=floor,
        under_floor=under,
        cut=cut,
        best_chunk=first,
        runner_up_chunk=second,
        chunks=sum(c.cosine is not None for c in chunks.chunks) if chunks else 0,
    )


def _fused(
    candidates: Candidates, options: SearchOptions, path: str, stale: bool, top: int
) -> tuple[FusedPlace, Competition]:
    """The whole fused list as :func:`explorer.search.fusion.fusion.fuse` orders it (before its
    limit), and the note's place in it."""
    depth = min(options.depth, candidates.depth)
    lexical = candidates.lexical[:depth]
    vector = candidates.vector[:depth]
    if candidates.listing:
        scored = {"fts": [(p, 0.0) for p, _, _ in lexical]}
        order = [fusion.Fused(p, 0.0, {"fts": i}) for i, (p, _) in enumerate(scored["fts"], 1)]
    else:
        order, scored = fuse_lists(candidates, options, lexical, vector)
        order = [f for f in order if f.score > 0]  # as the search: a note worth 0 is no hit
    lists = {name: [p for p, _ in items] for name, items in scored.items()}
    stale_of = {f.id: fusion.demoted(candidates, f.id) for f in order}
    before = [f.id for f in order]
    order.sort(key=lambda f: stale_of[f.id])
    position = {f.id: i for i, f in enumerate(order, start=1)}
    rank = position.get(path)
    rank_before = before.index(path) + 1 if path in before else None
    limit = options.limit
    item = order[rank - 1] if rank is not None else None
    demoted_out = (
        stale and rank is not None and rank_before is not None and rank_before <= top and rank > top
    )
    place = FusedPlace(
        method="listing" if candidates.listing else options.fusion,
        rank=rank,
        score=item.score if item else None,
        candidates=len(order),
        limit=limit,
        shown=rank is not None and rank <= limit,
        last_score=order[limit - 1].score if len(order) >= limit else None,
        stale=stale,
        rank_before_demotion=rank_before,
        demoted_out=bool(demoted_out),
        recency=item.contributions.get("recency") if item else None,
        recent=(
            recency(candidates, path, options.half_life)
            if item and options.recency and not candidates.listing
            else None
        ),
    )
    competition = Competition(
        path=path,
        rank=rank,
        scored=scored,
        ranks={f.id: dict(f.ranks) for f in order},
        stale=stale_of,
        single_list=len(lists) == 1,
        tiers=convex_tiers(candidates),
        evidence={name: dict(items) for name, items in evidence_lists(candidates, scored).items()},
    )
    return place, competition
