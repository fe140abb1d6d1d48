"""What the tests of the lexical passes share: FTS5's own ranking, to hold the shortcuts to, and
notes whose words run from common to rare."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

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


def zipf_notes(write: Callable[[str, str | bytes], Path], rng: random.Random) -> list[str]:
    """300 notes of 60 words, from common (in most notes) to rare (in a few), as a question's
    words are, written with ``write``; the words, most common first."""
    words = [f"w{i}" for i in range(60)]
    weights = [1 / (i + 1) for i in range(len(words))]
    for n in range(300):
        body = " ".join(rng.choices(words, weights, k=rng.randint(5, 60)))
        title = " ".join(rng.choices(words, weights, k=2))
        write(f"n{n:03}.md", f"# {title}\n\n{body}\n")
    return words
