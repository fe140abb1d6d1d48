"""How many notes hold a term: what bm25 counts for its idf, kept while the index is unchanged.

SQLite's fts5 stores no count of a term's notes: ``bm25()`` reads every one of them, each query
again.  The lexical list needs the counts too (to prune the any-word pass, to leave out the
commonest stop words, to split German compounds), and a reader keeps them between queries here
(:class:`TermCounts`, one per open index) until the index changes.
"""

from __future__ import annotations

import sqlite3


class Counted:
    """The number of notes each FTS5 expression matches (what bm25 counts for its idf), each
    counted once, and the rows bm25 counts them among (:func:`fts_row_count`); for one state
    of one connection's index (:class:`TermCounts`).  A callable: what the query's
    compound words are split by (:func:`explorer.search.query.compounds.split_compounds`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.counts: dict[str, int] = {}
        self._rows: int | None = None

    def __call__(self, expression: str) -> int:
        count = self.counts.get(expression)
        if count is None:
            count = self.counts[expression] = notes_matching(self.conn, expression)
        return count

    def known(self, expression: str) -> int | None:
        """The count of ``expression`` if it was counted (never counts)."""
        return self.counts.get(expression)

    def rows(self) -> int:
        if self._rows is None:
            self._rows = fts_row_count(self.conn)
        return self._rows


class TermCounts:
    """:class:`Counted` kept between queries while the index stays as it is: a reader's
    (:attr:`explorer.index.db.IndexDB.term_counts`).  bm25 counts a term's notes by reading
    every one of them, and the list's pruning and coverage need the counts too: a common word
    costs a few milliseconds at 50,000 notes, each query again.  The counts start afresh when
    another connection committed (``PRAGMA data_version``) or this one wrote
    (``total_changes``), and after :data:`MAX_COUNTED` expressions."""

    def __init__(self) -> None:
        self._state: tuple[int, int, int] | None = None
        self._counted: Counted | None = None

    def current(self, conn: sqlite3.Connection) -> Counted:
        """The counts valid for ``conn``'s index as it is now."""
        (version,) = conn.execute("PRAGMA data_version").fetchone()
        state = (id(conn), int(version), conn.total_changes)
        counted = self._counted
        if counted is None or state != self._state or len(counted.counts) > MAX_COUNTED:
            counted = self._counted = Counted(conn)
            self._state = state
        return counted


#: The expressions :class:`TermCounts` keeps at most.
MAX_COUNTED = 20_000


def notes_matching(conn: sqlite3.Connection, part: str) -> int:
    """The notes ``part`` matches: what bm25 counts for its idf."""
    return int(
        conn.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (part,)).fetchone()[
            0
        ]
    )


def fts_row_count(conn: sqlite3.Connection) -> int:
    """The rows FTS5 counts for idf: the first number of its "averages" record (row 1 of
    ``notes_fts_data``, a SQLite varint), or the rows with a size recorded if that is more
    (the bound must not count fewer notes than bm25 does)."""
    sized = int(conn.execute("SELECT count(*) FROM notes_fts_docsize").fetchone()[0])
    row = conn.execute("SELECT block FROM notes_fts_data WHERE id = 1").fetchone()
    return max(sized, varint(bytes(row[0])) if row and row[0] else 0)


def varint(data: bytes) -> int:
    """The SQLite varint at the start of ``data`` (7 bits a byte, high bit: more follows; a
    ninth byte gives 8)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return value
