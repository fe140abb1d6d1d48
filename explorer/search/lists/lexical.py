"""The lexical list: FTS5 bm25 over title, tags and body, best first, with marked snippets.

Three passes fill the list up to ``depth``: the whole query as one phrase (an error paste or an
identifier found verbatim comes first), then all words, then any word (so that a natural question
is not empty just because one of its words is in no note).  The first two keep every word; the
any-word pass leaves stop words out (:mod:`explorer.search.query.stopwords`), so a note that shares
only ``why``, ``the`` or ``after`` with a question is not in the list at all, and bm25 ranks the
notes it finds by the words that carry information (a query of stop words alone keeps them).
Each pass is ordered by bm25 (but for the words in half the notes or more, to which bm25 gives
next to no weight: a note must hold them as the pass says, and they are not scored), and a
note keeps the place of the first pass that found it.  Its snippet marks what that pass
matched (the phrase, or each content word) and is made by :mod:`explorer.search.lists.snippet` from
a bounded window of the body, once the list is known: no statement here reads a body.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from explorer.index.counts import Counted
from explorer.search.lists.bm25 import (
    AMONG,
    BM25_WEIGHTS,
    scored_words,
    top_by_bm25,
    top_of_any,
)
from explorer.search.lists.snippet import Snippets
from explorer.search.query.query import Query
from explorer.search.query.restriction import Restriction, restriction, where_passing
from explorer.stages import stage

#: The passes, in the order they fill the list (a hit's ``tier`` indexes this).
PASSES = ("phrase", "all words", "any word")


@dataclass(frozen=True, slots=True)
class LexicalHit:
    note_id: int
    path: str
    score: float  # bm25 negated: higher is better
    snippet: str
    tier: int = 0  # the pass that found it: an index into PASSES
    #: The share of the query's content terms the note holds (1 for the phrase and all-words
    #: passes, which hold every one).
    coverage: float = 1.0
    #: The indexes (into the query's content parts) of the parts the note holds, for a note of
    #: the any-word pass (``None`` for the others, which hold every one).
    held: tuple[int, ...] | None = None
    #: What its snippet marks (an FTS5 expression): what a snippet made later is made with.
    marks: str = ""


def lexical_list(
    conn: sqlite3.Connection,
    query: Query,
    depth: int,
    *,
    snippets: bool = True,
    counted: Counted | None = None,
    restricted: Restriction | None = None,
) -> list[LexicalHit]:
    """Up to ``depth`` notes matching ``query``, best first; each pass, the snippets and the
    coverage timed as a stage of their own (:mod:`explorer.stages`).  Without ``snippets``
    every snippet is ``""``, to be made for the hits shown only (from each hit's ``marks``:
    :func:`make_snippets`).  ``counted``: the notes each term is in, as far as
    counted, kept by a long-lived reader between queries
    (:class:`explorer.index.counts.TermCounts`; otherwise counted for this query).
    ``restricted``: the query's filters as :func:`explorer.search.query.restriction.restriction`
    works them out, where the caller has them; each pass ranks only the matches they pass."""
    if restricted is None:
        restricted = restriction(conn, query)
    where, params = where_passing(restricted)
    only = restricted.fts_sql() if restricted is not None else None
    if only is not None and not only[0]:
        only = None
    found: list[tuple[int, str, float, str, int]] = []  # id, path, score, marks, tier
    seen: set[int] = set()
    holding = counted or Counted(conn)

    def ranked(tier: int, expression: str) -> list[tuple[int, str, float]]:
        # The best ``depth`` of a pass are enough, whatever the earlier passes found: the notes
        # among them not found before are the best of the rest, and at least as many as the
        # list still lacks.
        with stage(f"lexical: {PASSES[tier]}"):
            scored = scored_words(query, holding) if PASSES[tier] == "all words" else None
            parts = query.content_parts() if PASSES[tier] == "any word" else []
            rows = _ranked_by_fts5(conn, expression, depth, parts, holding, scored, only)
            if rows is None:
                match, among = (scored, [expression]) if scored else (expression, [])
                restrict = AMONG * len(among)
                rows = conn.execute(
                    "SELECT n.id, n.path, bm25(notes_fts, ?, ?, ?) AS s "
                    "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
                    f"WHERE notes_fts MATCH ?{restrict} AND {where} ORDER BY s, n.path LIMIT ?",
                    (*BM25_WEIGHTS, match, *among, *params, depth),
                ).fetchall()
            return rows

    passes = _passes(query)
    ranked_early: dict[int, list[tuple[int, str, float]]] = {}  # tier -> its rows, if any
    if [PASSES[tier] for tier, _, _ in passes[:2]] == ["phrase", "all words"]:
        # A note holding the phrase holds every word: when none does, the phrase pass (which
        # reads the positions of every word, the commonest too) is skipped.
        tier, expression, _ = passes[1]
        ranked_early[tier] = ranked(tier, expression)
        if not ranked_early[tier]:
            del passes[:2]
    for tier, expression, marks in passes:
        if len(found) >= depth:
            break
        rows = ranked_early.pop(tier, None)
        if rows is None:
            rows = ranked(tier, expression)
        for note_id, path, score in rows:
            if note_id in seen:
                continue
            seen.add(note_id)
            found.append((note_id, path, -float(score), marks, tier))
            if len(found) >= depth:
                break
    if not found:
        return []
    texts = [""] * len(found)
    if snippets:
        with stage("snippets"):
            texts = make_snippets(conn, [(note_id, marks) for note_id, _, _, marks, _ in found])
    partial = [note_id for note_id, _, _, _, tier in found if tier == PASSES.index("any word")]
    with stage("lexical: coverage"):
        held = _held_parts(conn, query, partial, holding)
    share = len(query.content_parts()) or 1
    return [
        LexicalHit(
            note_id,
            path,
            score,
            text,
            tier,
            len(held[note_id]) / share if note_id in held else 1.0,
            held.get(note_id),
            marks,
        )
        for (note_id, path, score, marks, tier), text in zip(found, texts, strict=True)
    ]


def make_snippets(conn: sqlite3.Connection, notes: list[tuple[int, str]]) -> list[str]:
    """The snippet of each (note id, marks) pair, in order (:class:`Snippets`)."""
    if not notes:
        return []
    with Snippets(conn) as snippets:
        return snippets.snippets(notes)


def snippets_of(conn: sqlite3.Connection, notes: dict[str, tuple[int, str]]) -> dict[str, str]:
    """The snippets of ``notes`` (path to its note id and what its snippet marks), by path."""
    return dict(zip(notes, make_snippets(conn, list(notes.values())), strict=True))


def _coverage(
    conn: sqlite3.Connection,
    query: Query,
    note_ids: list[int],
    holding: Counted | None = None,
) -> dict[int, float]:
    """The share of the query's content terms each note holds (:func:`_held_parts`)."""
    share = len(query.content_parts()) or 1
    held = _held_parts(conn, query, note_ids, holding)
    return {note_id: len(parts) / share for note_id, parts in held.items()}


def _held_parts(
    conn: sqlite3.Connection,
    query: Query,
    note_ids: list[int],
    holding: Counted | None = None,
) -> dict[int, tuple[int, ...]]:
    """The query's content terms each note holds, as indexes into its content parts: one
    FTS5 query per term, limited to the notes asked about (the any-word pass's, at most
    ``depth``).

    A term in few notes is read whole, its matches filtered (``+rowid``: as a rowid
    constraint FTS5 would look the term up once per note); a term known (``holding``) to be
    in more than :data:`LOOKUP_PER_NOTE` notes per note asked about is looked up once per
    note instead, cheaper than reading its thousands of matches (at 50,000 notes a term in
    20,000 of them: 0.3 ms for 50 look-ups against 1.6 ms read whole).
    """
    parts = query.content_parts()
    if not note_ids or not parts:
        return {}
    held: dict[int, list[int]] = {note_id: [] for note_id in note_ids}
    marks = ",".join("?" * len(note_ids))
    for index, part in enumerate(parts):
        notes = holding.known(part) if holding else None
        column = "rowid" if (notes or 0) > LOOKUP_PER_NOTE * len(note_ids) else "+rowid"
        for (note_id,) in conn.execute(
            f"SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? AND {column} IN ({marks})",
            (part, *note_ids),
        ):
            held[int(note_id)].append(index)
    return {note_id: tuple(indexes) for note_id, indexes in held.items()}


#: Matches of a term per note asked about above which :func:`_coverage` looks the notes up
#: rather than reading every match (measured at 50,000 notes: a look-up costs about as much as
#: reading 75 matches).
LOOKUP_PER_NOTE = 75


def _ranked_by_fts5(
    conn: sqlite3.Connection,
    expression: str,
    want: int,
    parts: list[str] | None = None,
    holding: Counted | None = None,
    scored: str | None = None,
    only: tuple[str, list[object]] | None = None,
) -> list[tuple[int, str, float]] | None:
    """The best ``want`` matches of ``expression`` by (bm25, path), or ``None`` when the cheap
    way cannot tell the order exactly (the caller then runs the plain query).

    The matches are ranked by SQLite's sorter, which keeps only the best ``want + 1``
    (:func:`top_by_bm25`); ``parts`` (the any-word pass's terms, when ``expression`` is
    exactly their OR) lets most of the matches go unscored (:func:`top_of_any`).  The plain
    query joins every match to ``notes`` to order ties by path; here the rows are re-sorted by
    (bm25, path).  A tie across the cut-off (the row after the last one kept scores the same)
    is settled by asking for more rows until the tied ones end (the plain query read every
    match's note: 0.8 s for a question at 50,000 notes whose worst kept score two notes
    shared); past :data:`TIE_ROWS` rows, ``None``.  ``holding`` counts the notes each of
    ``parts`` is in.  With ``scored`` (:func:`scored_words`), the matches of ``expression``
    are ranked by the bm25 of ``scored`` alone.  ``only`` (:meth:`Restriction.fts_sql`): the
    matches the query's filters pass, the only ones ranked.
    """
    if want <= 0:
        return []
    any_word = bool(parts) and expression == " OR ".join(parts or [])

    def top(limit: int) -> list[tuple[int, float]]:
        if any_word:
            return top_of_any(conn, parts or [], limit, holding=holding, only=only)
        if scored:
            return top_by_bm25(conn, scored, limit, among=expression, only=only)
        return top_by_bm25(conn, expression, limit, only=only)

    limit = want + 1
    while True:
        rows = top(limit)
        if len(rows) < limit or rows[-1][1] != rows[want - 1][1]:
            break  # every match tied with the worst one kept is among ``rows``
        if limit * TIE_GROWTH > TIE_ROWS:
            return None
        limit *= TIE_GROWTH
    if len(rows) > want:
        worst = rows[want - 1][1]
        rows = [r for r in rows if r[1] <= worst]  # bm25: lower is better
    if not rows:
        return []
    marks = ",".join("?" * len(rows))
    paths = dict(
        conn.execute(f"SELECT id, path FROM notes WHERE id IN ({marks})", [r[0] for r in rows])
    )
    out = [(int(i), str(paths[i]), float(rank)) for i, rank in rows if i in paths]
    out.sort(key=lambda r: (r[2], r[1]))
    return out[:want]


#: How many rows :func:`_ranked_by_fts5` asks for at most to settle a tie across the cut-off,
#: growing by this factor each time.
TIE_ROWS = 5000
TIE_GROWTH = 4


def _passes(query: Query) -> list[tuple[int, str, str]]:
    """The (index into :data:`PASSES`, expression, marks) of each pass that runs: what it
    matches, and what its snippets mark (a pass that would repeat an earlier one does not run)."""
    terms = query.fts_terms() or ""
    passes: list[tuple[int, str, str]] = []
    for tier, (expression, marks) in enumerate(
        (
            (query.fts_phrase(), query.fts_phrase(exclusions=False) or ""),
            (query.fts_all(), terms),
            (query.fts_any(), terms),
        )
    ):
        if expression and expression not in (e for _, e, _ in passes):
            passes.append((tier, expression, marks))
    return passes
