"""What the tests of the lexical passes share: FTS5's own ranking, to hold the shortcuts to."""

from __future__ import annotations

from explorer.index.db import IndexDB
from explorer.search.lists.bm25 import BM25_WEIGHTS

#: What the terms held by half the notes or more add to a score at most, in these tests: bm25
#: gives them the idf 1e-6, and the lexical list leaves them out of its scores.
CLAMPED = 1e-5


def reference(db: IndexDB, expression: str, limit: int) -> list[tuple[int, float]]:
    """FTS5 ranking every match itself: what the shortcuts must give."""
    return [
        (int(rowid), float(rank))
        for rowid, rank in db.conn.execute(
            "SELECT rowid, rank FROM notes_fts WHERE notes_fts MATCH ? AND rank MATCH ? "
            "ORDER BY rank LIMIT ?",
            (expression, f"bm25({', '.join(map(str, BM25_WEIGHTS))})", limit),
        )
    ]


def by_score(rows: list[tuple[int, float]]) -> list[tuple[float, int]]:
    """``(rowid, score)`` rows as ``(score, rowid)``, best first."""
    return sorted((score, rowid) for rowid, score in rows)
