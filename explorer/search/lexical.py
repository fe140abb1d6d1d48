"""The lexical list: FTS5 bm25 over title, tags and body, best first, with marked snippets.

Three passes fill the list up to ``depth``: the whole query as one phrase (an error paste or an
identifier found verbatim comes first), then all words, then any word (so that a natural question
is not empty just because one of its words is in no note).  Each pass is ordered by bm25, and a
note keeps the place of the first pass that found it.
"""

from __future__ import annotations

import html
import sqlite3
from dataclasses import dataclass

from explorer.index.text import unspace_cjk
from explorer.search.query import Query

#: bm25 column weights for (title, tags, body).
BM25_WEIGHTS = (4.0, 2.0, 1.0)
SNIPPET_TOKENS = 24
_OPEN, _CLOSE = "\x02", "\x03"


@dataclass(frozen=True, slots=True)
class LexicalHit:
    note_id: int
    path: str
    score: float  # bm25 negated: higher is better
    snippet: str


def filter_clause(query: Query, alias: str = "n") -> tuple[str, list[object]]:
    """SQL condition (on ``notes`` as ``alias``) for the query's filters and exclusions.

    Tags must all be present; a note passes the path filters if it is under any of them.
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
    excluded = query.fts_excluded()
    if excluded:
        clauses.append(f"{alias}.id NOT IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?)")
        params.append(excluded)
    return (" AND ".join(clauses) or "1"), params


def lexical_list(conn: sqlite3.Connection, query: Query, depth: int) -> list[LexicalHit]:
    """Up to ``depth`` notes matching ``query``, best first."""
    where, params = filter_clause(query)
    hits: list[LexicalHit] = []
    seen: set[int] = set()
    for expression in _passes(query):
        if len(hits) >= depth:
            break
        want = depth + len(seen)
        rows = None if query.has_filters else _ranked_by_fts5(conn, expression, want)
        if rows is None:
            rows = conn.execute(
                "SELECT n.id, n.path, bm25(notes_fts, ?, ?, ?) AS s, "
                f"snippet(notes_fts, 2, '{_OPEN}', '{_CLOSE}', '…', {SNIPPET_TOKENS}) "
                "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
                f"WHERE notes_fts MATCH ? AND {where} ORDER BY s, n.path LIMIT ?",
                (*BM25_WEIGHTS, expression, *params, want),
            ).fetchall()
        for note_id, path, score, snippet in rows:
            if note_id in seen:
                continue
            seen.add(note_id)
            hits.append(LexicalHit(note_id, path, -float(score), mark_snippet(snippet)))
            if len(hits) >= depth:
                break
    return hits


def _ranked_by_fts5(
    conn: sqlite3.Connection, expression: str, want: int
) -> list[tuple[int, str, float, str]] | None:
    """The best ``want`` matches of ``expression`` by (bm25, path), with snippets, or ``None``
    when the cheap way cannot tell the order exactly (the caller then runs the plain query).

    ``ORDER BY rank`` with ``rank MATCH 'bm25(…)'`` lets FTS5 sort the matches itself, so
    SQLite stops after ``want`` rows and computes ``snippet()`` for those rows only; the plain
    query (joined to ``notes`` to order ties by path) computes a snippet for every match, which
    on a natural-language question is most of the index.  FTS5 orders ties by rowid, so the rows
    are re-sorted by (bm25, path) here; a tie across the cut-off (the row after the last one
    kept scores the same) is the one case this cannot settle.
    """
    rows = conn.execute(
        f"SELECT rowid, rank, snippet(notes_fts, 2, '{_OPEN}', '{_CLOSE}', '…', "
        f"{SNIPPET_TOKENS}) FROM notes_fts WHERE notes_fts MATCH ? AND rank MATCH ? "
        "ORDER BY rank LIMIT ?",
        (expression, f"bm25({', '.join(map(str, BM25_WEIGHTS))})", want + 1),
    ).fetchall()
    if len(rows) > want:
        if rows[want][1] == rows[want - 1][1]:
            return None
        rows = rows[:want]
    if not rows:
        return []
    marks = ",".join("?" * len(rows))
    paths = dict(
        conn.execute(f"SELECT id, path FROM notes WHERE id IN ({marks})", [r[0] for r in rows])
    )
    out = [(int(i), str(paths[i]), float(rank), str(snip)) for i, rank, snip in rows if i in paths]
    out.sort(key=lambda r: (r[2], r[1]))
    return out


def _passes(query: Query) -> list[str]:
    passes: list[str] = []
    for expression in (query.fts_phrase(), query.fts_all(), query.fts_any()):
        if expression and expression not in passes:
            passes.append(expression)
    return passes


def mark_snippet(raw: str) -> str:
    """FTS5 snippet text, HTML-escaped, with its match markers turned into ``<mark>`` tags."""
    text = html.escape(unspace_cjk(raw).replace("\n", " "), quote=False)
    return text.replace(_OPEN, "<mark>").replace(_CLOSE, "</mark>")
