"""Candidate lists made by hand: what a search fetched, for tests that re-fuse or show them; and
the filters stated filter by filter, what the restriction's id sets are checked against."""

from __future__ import annotations

from explorer.index.links import link_filter_sql
from explorer.search.fusion.results import Candidates, NoteInfo, SemanticStatus, VectorCandidate
from explorer.search.query.query import Query, parse_query

LEXICAL = ["a.md", "b.md", "c.md", "d.md"]
VECTOR = ["b.md", "e.md", "a.md"]


def candidates() -> Candidates:
    c = Candidates(query=parse_query("some words"), mode="hybrid", depth=50)
    c.lexical = [(p, 10.0 - i, f"snippet of <mark>{p}</mark>") for i, p in enumerate(LEXICAL)]
    c.vector = [VectorCandidate(p, 0.9 - 0.1 * i, (0, 10), "text") for i, p in enumerate(VECTOR)]
    c.semantic = SemanticStatus(True, None, "fake")
    for p in {*LEXICAL, *VECTOR}:
        c.notes[p] = NoteInfo(p, p.removesuffix(".md").upper(), None, (), 0)
    return c


def filter_clause(query: Query, alias: str = "n") -> tuple[str, list[object]]:
    """The query's filters and exclusions stated filter by filter, as one condition on a row
    of ``notes`` as ``alias``: the definition :mod:`explorer.search.query.restriction`'s id sets
    must keep, read independently of them (each filter's own SQL, as ``explain`` checks it).

    Tags must all be present; a note passes the path filters if it is under any of them;
    each ``linkto:`` / ``linkedfrom:`` must hold (:func:`explorer.index.links.link_filter_sql`),
    and each ``[name:value]`` (its rows: :meth:`~explorer.search.query.property_filter.
    PropertyFilter.ids_sql`); a date is a condition on each note's own time.
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
        inner, prop_params = prop.ids_sql()
        clauses.append(f"{alias}.id {'NOT IN' if prop.negative else 'IN'} ({inner})")
        params.extend(prop_params)
    for date in query.dates:
        column = f"{alias}.mtime_ns"
        if date.field == "created":
            column = f"(SELECT c.created_us FROM note_creation c WHERE c.note_id = {alias}.id)"
        sql, date_params = date.condition(column, query.now)  # on each row, not by ids
        clauses.append(sql)
        params.extend(date_params)
    excluded = query.fts_excluded()
    if excluded:
        clauses.append(f"{alias}.id NOT IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?)")
        params.append(excluded)
    return (" AND ".join(clauses) or "1"), params
