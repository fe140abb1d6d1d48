"""The lexical list: FTS5 bm25 over title, tags and body, best first, with marked snippets.

Three passes fill the list up to ``depth``: the whole query as one phrase (an error paste or an
identifier found verbatim comes first), then all words, then any word (so that a natural question
is not empty just because one of its words is in no note).  The first two keep every word; the
any-word pass leaves stop words out (:mod:`explorer.search.stopwords`), so a note that shares
only ``why``, ``the`` or ``after`` with a question is not in the list at all, and bm25 ranks the
notes it finds by the words that carry information (a query of stop words alone keeps them).
Each pass is ordered by bm25 (but for the words in half the notes or more, to which bm25 gives
next to no weight: a note must hold them as the pass says, and they are not scored), and a
note keeps the place of the first pass that found it.  Its snippet marks what that pass
matched (the phrase, or each content word) and is made by :mod:`explorer.search.snippet` from a
bounded window of the body, once the list is known: no statement here reads a body.
"""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import dataclass

from explorer.index.counts import Counted
from explorer.index.links import link_filter_sql
from explorer.search.query import Query
from explorer.search.restriction import Restriction, restriction
from explorer.search.snippet import Snippets
from explorer.stages import stage

#: bm25 column weights for (title, tags, body).
BM25_WEIGHTS = (4.0, 2.0, 1.0)
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


def filter_clause(query: Query, alias: str = "n") -> tuple[str, list[object]]:
    """SQL condition (on ``notes`` as ``alias``) for the query's filters and exclusions.

    Tags must all be present; a note passes the path filters if it is under any of them;
    each ``linkto:`` / ``linkedfrom:`` must hold (:func:`explorer.index.links.link_filter_sql`),
    and each ``[name:value]`` (:meth:`explorer.search.property_filter.PropertyFilter.sql`).
    The same clause restricts the lexical and the vector list, so they can never disagree.
    """
    clauses: list[str] = []
    params: list[object] = []
    for tag in query.tags:
        clauses.append(f"{alias}.id IN (SELECT note_id FROM note_tags WHERE tag = ?)")
        params.append(tag)
    if query.paths:
        clauses.append(
            "(" + " OR ".join(f"substr({alias}.path, 1, ?) = ?" for _ in query.paths) + ")"
        )
        for prefix in query.paths:
            params.extend([len(prefix), prefix])
    for kind, values in (("linkto", query.links_to), ("linkedfrom", query.linked_from)):
        for value in values:
            sql, link_params = link_filter_sql(kind, value, alias)
            clauses.append(sql)
            params.extend(link_params)
    for prop in query.properties:
        sql, prop_params = prop.sql(alias)
        clauses.append(sql)
        params.extend(prop_params)
    for date in query.dates:
        sql, date_params = date.sql(alias, query.now)
        clauses.append(sql)
        params.extend(date_params)
    excluded = query.fts_excluded()
    if excluded:
        clauses.append(f"{alias}.id NOT IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?)")
        params.append(excluded)
    return (" AND ".join(clauses) or "1"), params


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
    ``restricted``: the query's filters as :func:`explorer.search.restriction.restriction`
    works them out, where the caller has them; each pass ranks only the matches they pass."""
    where, params = filter_clause(query)
    if restricted is None:
        restricted = restriction(conn, query)
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
            scored = _scored_words(query, holding) if PASSES[tier] == "all words" else None
            parts = query.content_parts() if PASSES[tier] == "any word" else []
            rows = _ranked_by_fts5(conn, expression, depth, parts, holding, scored, only)
            if rows is None:
                match, among = (scored, [expression]) if scored else (expression, [])
                restrict = _AMONG * len(among)
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
    (:func:`_top_by_bm25`); ``parts`` (the any-word pass's terms, when ``expression`` is
    exactly their OR) lets most of the matches go unscored (:func:`_top_of_any`).  The plain
    query joins every match to ``notes`` to order ties by path; here the rows are re-sorted by
    (bm25, path).  A tie across the cut-off (the row after the last one kept scores the same)
    is settled by asking for more rows until the tied ones end (the plain query read every
    match's note: 0.8 s for a question at 50,000 notes whose worst kept score two notes
    shared); past :data:`TIE_ROWS` rows, ``None``.  ``holding`` counts the notes each of
    ``parts`` is in.  With ``scored`` (:func:`_scored_words`), the matches of ``expression``
    are ranked by the bm25 of ``scored`` alone.  ``only`` (:meth:`Restriction.fts_sql`): the
    matches the query's filters pass, the only ones ranked.
    """
    if want <= 0:
        return []
    any_word = bool(parts) and expression == " OR ".join(parts or [])

    def top(limit: int) -> list[tuple[int, float]]:
        if any_word:
            return _top_of_any(conn, parts or [], limit, holding=holding, only=only)
        if scored:
            return _top_by_bm25(conn, scored, limit, among=expression, only=only)
        return _top_by_bm25(conn, expression, limit, only=only)

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


#: The any-word pass scores only the notes holding one of its rarer terms when its terms match
#: more notes than this in all (below it, scoring every match is cheap)...
ANY_WORD_SHORTCUT_MATCHES = 5000
#: ...the rarer terms being at first those a note must hold to score this share of the rarest
#: term's bound (a guess at the worst score kept: too low, more notes are scored than needed;
#: too high, the query runs twice).  The best notes of a long question hold several of its
#: words, and score higher against that bound: from :data:`LONG_QUESTION` terms the guess is
#: :data:`LONG_GUESS` (at 50,000 notes, the 50th best score of a question of 7 or more terms was
#: 0.57-1.1 times the bound, of fewer terms 0.49-0.8: 100 questions and 100 short queries of
#: another seed than the bench's, where a question's lexical list went p95 28.5 -> 25.7 ms; on
#: the bench's own, 27.3 -> 25.3 ms).
FIRST_GUESS = 0.5
LONG_GUESS = 0.6
LONG_QUESTION = 7
#: bm25's k1: a term adds less than ``(k1 + 1) * idf`` to a note's score, however often it is
#: in the note (SQLite's fts5 ``bm25()``).
BM25_K1 = 1.2


#: Only the notes that also match an expression (bound to ``?``).  ``+rowid`` keeps it a filter
#: on the rows: as a rowid constraint FTS5 would run the query once per note, ``bm25`` counting
#: each term's notes each time.
_AMONG = " AND +notes_fts.rowid IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?)"


def _top_by_bm25(
    conn: sqlite3.Connection,
    expression: str,
    limit: int,
    among: str | None = None,
    only: tuple[str, list[object]] | None = None,
) -> list[tuple[int, float]]:
    """The ``limit`` best (rowid, bm25) matches of ``expression``, best first, exactly as
    ``ORDER BY rank`` ranks them; with ``among``, only of the notes that match ``among`` too
    (their scores still those of ``expression`` alone).

    Not ``ORDER BY rank``: for that, FTS5 copies every match with the positions of each of its
    terms into a sorter of its own, all of them, before the limit applies (at 50,000 notes a
    12-word question's any-word pass spent two thirds of its time there).  SQLite's sorter
    keeps the ``limit`` best rows only.  ``among`` filters the rows (:data:`_AMONG`), and so
    does ``only`` (the query's filters, :meth:`Restriction.fts_sql`), before any is scored.
    """
    weights = f"{', '.join(map(str, BM25_WEIGHTS))}"
    restrict = ""
    params: list[object] = [expression]
    if among is not None:
        restrict = _AMONG
        params.append(among)
    if only is not None:
        restrict += only[0]
        params.extend(only[1])
    return [
        (int(rowid), float(score))
        for rowid, score in conn.execute(
            f"SELECT rowid, bm25(notes_fts, {weights}) AS s FROM notes_fts "
            f"WHERE notes_fts MATCH ?{restrict} ORDER BY s LIMIT ?",
            (*params, limit),
        )
    ]


def _top_of_any(
    conn: sqlite3.Connection,
    parts: list[str],
    limit: int,
    shortcut_matches: int = ANY_WORD_SHORTCUT_MATCHES,
    holding: Counted | None = None,
    only: tuple[str, list[object]] | None = None,
) -> list[tuple[int, float]]:
    """:func:`_top_by_bm25` of ``part OR part OR …``, scoring only the notes that can be in it.

    bm25 is a sum over the terms, and a term adds less than ``(k1 + 1) * idf`` to any note
    (``idf`` from the number of notes holding it).  So a note holding only common terms scores
    below the sum of their bounds: once ``limit`` notes holding a rarer term score above that
    sum, no note of common terms alone can be among the best ``limit``, and only the notes
    holding a rarer term need scoring (``max-score`` pruning; the scores are FTS5's own, of the
    whole expression but its terms in half the notes or more, which add next to nothing, so
    the list is the one of scoring every match).  The rarer terms
    start as the rarest few; if the scores found show that too many terms were left out, the
    terms the bound needs are added and the query runs once more (or, with every term needed,
    plainly).  ``holding`` (if given) counts the notes each part is in.  With ``only`` (the
    query's filters) the bounds still hold, bm25 counting over every note: the best ``limit``
    of the notes it passes are found the same way.
    """
    expression = " OR ".join(parts)
    if not all(_single_phrase(p) for p in parts):
        return _top_by_bm25(conn, expression, limit, only=only)
    counted = holding or Counted(conn)
    counts = [counted(part) for part in parts]
    if sum(counts) <= shortcut_matches:
        return _top_by_bm25(conn, expression, limit, only=only)
    notes = counted.rows()
    bound = [(BM25_K1 + 1) * _bm25_idf(notes, n) * (1 + 1e-9) for n in counts]
    order = sorted(range(len(parts)), key=lambda i: (counts[i], i))  # rarest first
    guess = LONG_GUESS if len(parts) >= LONG_QUESTION else FIRST_GUESS
    rare = _terms_needed(order, bound, max(bound) * guess)
    while rare < len(order):
        among = " OR ".join(parts[i] for i in sorted(order[:rare]))
        # A term in half the notes or more that no note needs adds next to nothing: matched
        # but not scored, as in the all-words pass (:func:`_scored_words`).
        kept = order[:rare] + [i for i in order[rare:] if not _idf_clamped(counts[i], notes)]
        scored = " OR ".join(parts[i] for i in sorted(kept))
        rows = _top_by_bm25(conn, scored, limit, among, only)
        needed = _terms_needed(order, bound, -rows[-1][1] if len(rows) >= limit else 0.0)
        if needed <= rare:
            return rows
        rare = needed
    return _top_by_bm25(conn, expression, limit, only=only)


def _terms_needed(order: list[int], bound: list[float], worst: float) -> int:
    """How many of the terms (``order``: rarest first) a note must hold one of to score
    ``worst`` or better: all but the most common ones whose ``bound`` adds up to less."""
    total = 0.0
    common = 0
    for i in reversed(order):
        if total + bound[i] >= worst:
            break
        total += bound[i]
        common += 1
    return len(order) - common


def _single_phrase(part: str) -> bool:
    """Whether ``part`` is one FTS5 phrase (``"…"``, maybe a prefix ``"…"*``): one term of
    bm25's sum."""
    return _PHRASE.fullmatch(part) is not None


_PHRASE = re.compile(r'"(?:[^"]|"")*"\*?')


def _scored_words(query: Query, holding: Counted) -> str | None:
    """What the all-words pass ranks its matches by, when that is not all of its words: the
    words but the stop words in half the notes or more.

    bm25 gives a term in half the notes or more an idf of 1e-6 (SQLite's fts5 ``bm25()``),
    so that such a word adds less than ``(k1 + 1) * 1e-6`` to any note's score; yet to learn
    that, bm25 reads every one of its notes, each query again (at 50,000 notes, 12-16 ms for
    the stop words of a question whose words are all in some note).  Their counts are kept
    (:class:`explorer.index.counts.TermCounts`), and the notes holding every word are ranked
    by the others alone: a score differs by less than 2.2e-6 for each word left out, the order
    only where two notes differed by that little (they are then ordered by path).  Only stop
    words are asked about: a content word that common is rare, and counting one that is not
    would read its notes twice.
    ``None``: every word is scored (nothing to leave out, or nothing but them).
    """
    stop = {t.fts() for t in query.stop_terms}
    groups = query.fts_groups()
    common = [
        g
        for g in groups
        if g in stop and _single_phrase(g) and _idf_clamped(holding(g), holding.rows())
    ]
    kept = [g for g in groups if g not in common]
    return " AND ".join(kept) if common and kept else None


def _idf_clamped(holding: int, notes: int) -> bool:
    """Whether bm25 gives a term held by ``holding`` of ``notes`` notes the idf 1e-6, the
    least it gives (:func:`_bm25_idf`): held by half of them or more.  Such a term adds less
    than ``(k1 + 1) * 1e-6`` to a note's score."""
    return 2 * holding >= notes


def _bm25_idf(notes: int, holding: int) -> float:
    """bm25's idf of a term held by ``holding`` of ``notes`` notes, as SQLite's fts5 has it."""
    idf = math.log((notes - holding + 0.5) / (holding + 0.5))
    return idf if idf > 0 else 1e-6


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
