"""Related notes: the notes nearest in meaning to one note, from the chunk vectors already stored.

No model call: the note's own chunk vectors are the query.  Two notes are as close as their
closest pair of chunks (the maximum cosine over every chunk of one against every chunk of the
other), which is the vector list's own rule (a note scores by its best chunk) applied from both
sides, and symmetric.  Measured on the tldr vault (7,425 notes, 8,418 chunks, all-MiniLM-L6-v2),
as the recall at 10 of the notes a page names under "See also" (1,007 pages, 334 targets of
pages with several chunks): max over chunk pairs 0.833 overall, 0.835 on several-chunk pages;
the note's mean vector against every chunk 0.827 / 0.805; mean against mean 0.832 / 0.802; the
mean over the note's chunks of each one's best match 0.828 / 0.811.  The mean blurs a note of
several topics into none of them; the best pair finds the note that shares one of them.

Cost: one product of the note's chunk rows with the whole matrix (in blocks of
:data:`BLOCK_ROWS` rows, so a long note never needs more than ``BLOCK_ROWS × chunks`` floats),
a segmented maximum per note (``np.maximum.reduceat``) and a partial sort; one SQL query for the
titles and one for the links.  The matrix is a :class:`~explorer.index.vectors.VectorIndex`,
the loader the search uses, refreshed when the index changes.

Whether a neighbour is already linked, and which way, comes from :data:`LinkLookup` (the index's
links table); an index without links says so (``links_known`` false) instead of calling every
neighbour unlinked.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from explorer.index import links as index_links
from explorer.index.db import IndexDB
from explorer.index.vectors import VectorIndex
from explorer.search.answers.related_limits import DEFAULT_LIMIT, MAX_LIMIT
from explorer.search.explain.explain import NoteNotIndexed
from explorer.search.explain.notes_lookup import indexed_id

#: Notes at or below this cosine are not listed: for sentence embeddings a cosine at or below 0
#: says "unrelated" (as the convex fusion's lower bound in :mod:`explorer.search.fusion.hybrid`),
#: and a small vault would otherwise fill the list with notes that have nothing in common with it.
MIN_COSINE = 0.0
#: The note's chunk rows multiplied with the matrix at once.
BLOCK_ROWS = 64

OUTGOING, INCOMING, BOTH = "outgoing", "incoming", "both"
#: How each link direction shows in a text listing.
LINK_MARK = {OUTGOING: "→ linked", INCOMING: "← linked", BOTH: "↔ linked", None: ""}

#: ``(conn, path) -> (paths path links to, paths that link to path)``, or ``None`` when the
#: index has no links table (an index built before links were stored).
LinkLookup = Callable[[sqlite3.Connection, str], tuple[set[str], set[str]] | None]


@dataclass(frozen=True, slots=True)
class Related:
    path: str
    title: str
    cosine: float
    #: Already linked, either way.
    linked: bool
    #: ``"outgoing"`` (this note links to it), ``"incoming"`` (it links here), ``"both"``, or
    #: ``None`` (not linked).
    direction: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "cosine": round(self.cosine, 6),
            "linked": self.linked,
            "direction": self.direction,
        }


@dataclass(frozen=True, slots=True)
class RelatedNotes:
    """The related notes of one note, best first, and why the list is empty when it is."""

    path: str
    title: str
    notes: list[Related] = field(default_factory=list)
    #: Why there is no list (no vector for the note yet, …); ``None`` when there is one.
    reason: str | None = None
    #: Whether ``linked`` is known (the index stores links).
    links_known: bool = True
    model: str | None = None

    @property
    def unlinked(self) -> list[Related]:
        return [r for r in self.notes if not r.linked]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "model": self.model,
            "reason": self.reason,
            "linksKnown": self.links_known,
            "related": [r.to_json() for r in self.notes],
        }


def stored_links(conn: sqlite3.Connection, path: str) -> tuple[set[str], set[str]] | None:
    """The notes ``path`` links to (embeds included) and the notes linking to it, from the
    index's links table (:mod:`explorer.index.links`); ``None`` when this index has none (one
    written before links were stored, read as it is by ``vault-explorer related``)."""
    if not _has_table(conn, "links"):
        return None
    outgoing = {link.path for link in index_links.outlinks(conn, path) if link.path is not None}
    incoming = {link.path for link in index_links.backlinks(conn, path)}
    return outgoing - {path}, incoming - {path}


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return row.fetchone() is not None


def related(
    db: IndexDB,
    vectors: VectorIndex,
    path: str,
    limit: int = DEFAULT_LIMIT,
    *,
    links: LinkLookup = stored_links,
) -> RelatedNotes:
    """The ``limit`` notes nearest in meaning to the note at ``path``, best first (equal cosines
    by path), the note itself and notes at or below :data:`MIN_COSINE` left out.

    ``vectors`` is refreshed from ``db`` first (a no-op when the index has not changed since).
    :class:`~explorer.search.explain.explain.NoteNotIndexed` when the index has no such note; a note
    with no vector yet gives an empty list with the reason, not an error.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    conn = db.conn
    path = indexed_id(conn, path)
    row = conn.execute("SELECT id, title FROM notes WHERE path = ?", (path,)).fetchone()
    if row is None:
        raise NoteNotIndexed(f"{path} is not a note of the index")
    note_id, title = int(row[0]), str(row[1])
    vectors.refresh(db)
    known = links(conn, path)
    outgoing, incoming = known if known is not None else (set(), set())
    result = RelatedNotes(path, title, links_known=known is not None, model=vectors.model)
    if vectors.size == 0:
        return _empty(result, "no note has a vector yet (embedding pending)")
    segment = int(np.searchsorted(vectors.segment_notes, note_id))
    if segment >= len(vectors.segment_notes) or vectors.segment_notes[segment] != note_id:
        return _empty(result, "this note has no vector yet (embedding pending)")
    if len(vectors.segment_notes) == 1:
        return _empty(result, "no other note has a vector yet")
    scores = note_scores(vectors, segment)
    scores[segment] = -np.inf
    chosen = _top(scores, vectors.segment_notes, min(limit, len(scores) - 1))
    ids = vectors.segment_notes[chosen].tolist()
    info = _titles(conn, ids)
    found = []
    for nid, cosine in zip(ids, scores[chosen].tolist(), strict=True):
        if nid not in info:  # deleted since the matrix was read
            continue
        other, other_title = info[nid]
        direction = _direction(other in outgoing, other in incoming)
        found.append(Related(other, other_title, float(cosine), direction is not None, direction))
    found.sort(key=lambda r: (-r.cosine, r.path))
    return RelatedNotes(path, title, found, links_known=result.links_known, model=vectors.model)


def note_scores(vectors: VectorIndex, segment: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    """Per note of ``vectors`` (in segment order), the best cosine between one of its chunks and
    one of segment ``segment``'s."""
    lo = int(vectors.segment_starts[segment])
    hi = int(vectors.segment_ends[segment])
    matrix = vectors.matrix
    best: np.ndarray[Any, np.dtype[np.float32]] | None = None
    for start in range(lo, hi, BLOCK_ROWS):
        block = matrix[start : min(start + BLOCK_ROWS, hi)] @ matrix.T
        row_best = block.max(axis=0)
        best = row_best if best is None else np.maximum(best, row_best)
    assert best is not None  # a segment has at least one row
    return np.maximum.reduceat(best, vectors.segment_starts)


def _top(scores: np.ndarray[Any, Any], notes: np.ndarray[Any, Any], k: int) -> np.ndarray[Any, Any]:
    """Indices of the ``k`` best scores above :data:`MIN_COSINE`, best first (ties: lower note
    id)."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < scores.shape[0]:
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        top = np.flatnonzero(scores >= kth)
    else:
        top = np.arange(scores.shape[0])
    top = top[np.isfinite(scores[top]) & (scores[top] > MIN_COSINE)]
    return top[np.lexsort((notes[top], -scores[top]))[:k]]


def _titles(conn: sqlite3.Connection, ids: list[int]) -> dict[int, tuple[str, str]]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT id, path, title FROM notes WHERE id IN ({marks})", ids)
    return {int(i): (str(p), str(t)) for i, p, t in rows}


def _direction(out: bool, inc: bool) -> str | None:
    if out and inc:
        return BOTH
    if out:
        return OUTGOING
    return INCOMING if inc else None


def _empty(result: RelatedNotes, reason: str) -> RelatedNotes:
    return RelatedNotes(
        result.path,
        result.title,
        [],
        reason=reason,
        links_known=result.links_known,
        model=result.model,
    )
