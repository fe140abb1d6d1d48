"""What a query's filters let through, worked out once per query: the one statement of them
that every list, the listing, the title matches and ``explain`` apply.

Each filter is a set of note ids read from an index alone (a tag's rows, a property's, a
link's, the file times', the creation times', the paths'): a lexical pass keeps the matches in
every set as it ranks them (``+rowid IN (…)``, or ``NOT IN`` the notes a set removes), so that
only those are scored (:meth:`Restriction.fts_sql`); the vector list masks its notes by the same
ids (:class:`NoteIds`), read once per filter and index generation (a restriction is a value: equal
filters, equal restrictions; :meth:`explorer.index.vectors.VectorIndex.filter` keeps them), and
``explain`` ranks a note by that very mask; a statement
that reads the notes themselves (a listing, a lexical pass read whole, the title matches)
filters by the sets as one condition (:meth:`Restriction.where`).  (Stated as one condition per
filter on each row instead, the filters read each note's row, body and all: about 2 µs a note at
50,000 notes, and the fast ranking of the passes was skipped.)  A date filter that passes more
than half the notes is stated by the notes it removes instead, fewer to read (``modified:<10y``
removes none, and is then no set at all); every note has its creation time
(:func:`explorer.index.store.upsert_note` writes it with the note), so that a ``created:``
filter may be stated either way.
"""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from explorer.index.links import link_ids_sql
from explorer.search.query.date_filter import DateFilter
from explorer.search.query.property_filter import PropertyFilter
from explorer.search.query.query import Query


@dataclass(frozen=True, slots=True)
class IdSet:
    """The ids of a ``SELECT``; ``keep``: a note passes when it is in them (else when not).
    ``words``: the notes holding an excluded word, which the lexical passes exclude in their
    own expressions (only the vector list needs them)."""

    sql: str
    params: tuple[object, ...]
    keep: bool = True
    words: bool = False

    def passes(self, conn: sqlite3.Connection, note_id: int) -> bool:
        """Whether the note ``note_id`` passes this set (what ``explain`` says of a filter)."""
        (inside,) = conn.execute(f"SELECT ? IN ({self.sql})", (note_id, *self.params)).fetchone()
        return bool(inside) == self.keep


@dataclass(frozen=True, slots=True)
class Restriction:
    """The sets a note must pass, every one of them (none: the filters pass every note)."""

    sets: tuple[IdSet, ...]

    def fts_sql(
        self, rowid: str = "notes_fts.rowid", *, words: bool = False
    ) -> tuple[str, list[object]]:
        """`` AND`` conditions on an FTS5 match's ``rowid`` (``+``: a filter on the matches,
        which FTS5 must not take as a rowid constraint to run the query by), and their
        parameters; ``""`` when no set is left.  ``words``: the excluded words' set too (a
        lexical pass excludes them in its own expression; notes found otherwise need it)."""
        sql = ""
        params: list[object] = []
        for part in self.sets:
            if part.words and not words:
                continue
            sql += f" AND +{rowid} {'IN' if part.keep else 'NOT IN'} ({part.sql})"
            params.extend(part.params)
        return sql, params

    def where(self, alias: str = "n") -> tuple[str, list[object]]:
        """Every set, excluded words too, as one condition on a row of ``notes`` as ``alias``
        (what a statement that reads the notes themselves filters by: a listing, a lexical
        pass read whole, the title matches)."""
        sql = " AND ".join(
            f"{alias}.id {'IN' if part.keep else 'NOT IN'} ({part.sql})" for part in self.sets
        )
        return sql or "1", [param for part in self.sets for param in part.params]

    def note_ids(self, conn: sqlite3.Connection) -> NoteIds:
        """Every set's ids, read now (what the vector list masks its notes by, later and on
        another thread, without a statement)."""
        return NoteIds(tuple((_ids(conn, part), part.keep) for part in self.sets))


def _ids(conn: sqlite3.Connection, part: IdSet) -> npt.NDArray[np.int64]:
    """The ids of ``part``, as one text that SQLite joins: a third of the time of a row each
    (5,000 ids: 0.8 ms against 1.6)."""
    sql = f"WITH s(id) AS ({part.sql}) SELECT group_concat(id) FROM s"
    (text,) = conn.execute(sql, part.params).fetchone()
    return np.array(text.split(",") if text else [], dtype=np.int64)


@dataclass(frozen=True, slots=True)
class NoteIds:
    """The sets of a :class:`Restriction` as arrays of note ids, with their ``keep``."""

    sets: tuple[tuple[npt.NDArray[np.int64], bool], ...]

    def mask(self, note_ids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Which of ``note_ids`` pass every set."""
        passes = np.ones(len(note_ids), dtype=bool)
        if not len(note_ids):
            return passes
        top = int(note_ids.max())
        for ids, keep in self.sets:
            inside = np.zeros(top + 1, dtype=bool)
            inside[ids[(ids >= 0) & (ids <= top)]] = True
            passes &= inside[note_ids] if keep else ~inside[note_ids]
        return passes


def where_passing(restricted: Restriction | None, alias: str = "n") -> tuple[str, list[object]]:
    """:meth:`Restriction.where` of ``restricted``; ``"1"`` (every note) without filters."""
    return restricted.where(alias) if restricted is not None else ("1", [])


def restriction(conn: sqlite3.Connection, query: Query) -> Restriction | None:
    """The sets of ``query``'s filters and excluded words, or ``None`` when it has neither."""
    if not (query.has_filters or query.excluded):
        return None
    sets: list[IdSet] = [tag_set(tag) for tag in query.tags]
    if query.paths:
        sets.append(paths_set(query.paths))
    for kind, values in (("linkto", query.links_to), ("linkedfrom", query.linked_from)):
        sets.extend(link_set(kind, value) for value in values)
    sets.extend(property_set(prop) for prop in query.properties)
    for date in query.dates:
        part = date_set(conn, date, query.now)
        if part is not None:
            sets.append(part)
    excluded = query.fts_excluded()
    if excluded:
        sets.append(
            IdSet("SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?", (excluded,), False, True)
        )
    return Restriction(tuple(sets))


def tag_set(tag: str) -> IdSet:
    """The notes tagged ``tag``."""
    return IdSet("SELECT t.note_id FROM note_tags t WHERE t.tag = ?", (tag,))


def link_set(kind: str, value: str) -> IdSet:
    """The notes a ``linkto:`` or ``linkedfrom:`` filter passes."""
    sql, params = link_ids_sql(kind, value)
    return IdSet(sql, tuple(params))


def property_set(prop: PropertyFilter) -> IdSet:
    """The notes a ``[name:value]`` filter passes (``-[…]``: those it removes)."""
    sql, params = prop.ids_sql()
    return IdSet(sql, tuple(params), keep=not prop.negative)


def date_set(conn: sqlite3.Connection, date: DateFilter, now: float | None) -> IdSet | None:
    """The notes ``date`` passes, or those it removes when they are fewer (``None``: it
    removes none).

    Each bound is stated as the first time the index holds from it on (:func:`_held_bound`):
    the same notes pass, and an age read a moment later (``modified:<7d`` by a clock that moved)
    gives the same set, equal to the last one, while no note's time lies between the two bounds;
    so the notes of an equal set, read once for the index's generation, serve it again
    (:meth:`explorer.index.vectors.VectorIndex.filter`)."""
    if date.field == "created":
        table, column = "note_creation c", "c.created_us"
        source = "SELECT c.note_id FROM note_creation c WHERE "
    else:
        table, column = "notes n", "n.mtime_ns"
        source = "SELECT n.id FROM notes n WHERE "
    kept, kept_params = date.condition(column, now)
    removed, removed_params = date.condition(column, now, negate=True)
    held = {b: _held_bound(conn, table, column, b) for b in {*kept_params, *removed_params}}
    keep = IdSet(source + kept, tuple(held[b] for b in kept_params))
    remove = IdSet(source + removed, tuple(held[b] for b in removed_params), keep=False)
    (failing,) = conn.execute(f"SELECT count(*) FROM ({remove.sql})", remove.params).fetchone()
    if not failing:
        return None
    (passing,) = conn.execute(f"SELECT count(*) FROM ({keep.sql})", keep.params).fetchone()
    return keep if passing <= failing else remove


def _held_bound(conn: sqlite3.Connection, table: str, column: str, bound: object) -> object:
    """The first time in ``column`` from ``bound`` on (one step of its index), which a date
    condition (``>=`` or ``<`` a bound) may take for ``bound``: no time lies between them.  With
    no time from ``bound`` on, the last time plus one (``bound`` itself on an empty table)."""
    (first,) = conn.execute(
        f"SELECT min({column}) FROM {table} WHERE {column} >= ?", (bound,)
    ).fetchone()
    if first is not None:
        return int(first)
    (last,) = conn.execute(f"SELECT max({column}) FROM {table}").fetchone()
    return bound if last is None else int(last) + 1


def paths_set(prefixes: list[str]) -> IdSet:
    """The notes under any of ``prefixes``: a range of the paths' index each (the prefix up to
    the first text after all it starts), the prefix itself checked within it."""
    parts: list[str] = []
    params: list[object] = []
    for prefix in prefixes:
        after = _after_all_starting(prefix)
        bound = "" if after is None else " AND n.path < ?"
        parts.append(f"(n.path >= ?{bound} AND substr(n.path, 1, ?) = ?)")
        params.extend([prefix, *([] if after is None else [after]), len(prefix), prefix])
    return IdSet(f"SELECT n.id FROM notes n WHERE {' OR '.join(parts)}", tuple(params))


def _after_all_starting(prefix: str) -> str | None:
    """The first text (in SQLite's binary order: UTF-8 bytes, which is code point order) after
    every text that starts with ``prefix``: its last character the next one; ``None`` where
    there is none to write (no prefix, or its last character the last one there is)."""
    if not prefix:
        return None
    following = ord(prefix[-1]) + 1
    if 0xD800 <= following <= 0xDFFF:
        following = 0xE000  # no text holds a surrogate
    if following > sys.maxunicode:
        return None
    return prefix[:-1] + chr(following)
