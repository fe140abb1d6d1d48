"""The vector list's data: every chunk vector of the current model, in one normalised matrix.

Ranking is one matrix–vector product and a partial sort (``np.argpartition``), then a full sort
of the top ``depth`` only — never a Python loop over rows, never a BLOB read per query.  Chunk rows
are grouped by note, so a note's score (its best chunk's) is a segmented maximum.  The matrix is
reloaded when the index's generation number moves, so it stays current as the index changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from explorer.embed.base import Matrix
from explorer.index.db import IndexDB


@dataclass(frozen=True, slots=True)
class VectorHit:
    note_id: int
    score: float
    chunk_start: int
    chunk_end: int


class VectorIndex:
    """All chunk vectors of one model, loaded from the index and kept current."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.generation = -1
        self.matrix: Matrix = np.zeros((0, 0), dtype=np.float32)
        self.note_ids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.spans: npt.NDArray[np.int64] = np.zeros((0, 2), dtype=np.int64)
        self.segment_starts: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.segment_notes: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)

    @property
    def size(self) -> int:
        """Chunk vectors loaded."""
        return int(self.matrix.shape[0])

    def refresh(self, db: IndexDB) -> bool:
        """Reload if the index changed since the last load; returns whether it reloaded."""
        generation = db.generation()
        if generation == self.generation:
            return False
        self.load(db)
        self.generation = generation
        return True

    def load(self, db: IndexDB) -> None:
        rows = db.conn.execute(
            "SELECT c.note_id, c.start, c.end, v.dim, v.vec FROM chunks c "
            "JOIN vectors v ON v.hash = c.hash AND v.model = ? ORDER BY c.note_id, c.seq",
            (self.model,),
        ).fetchall()
        if not rows:
            self.__init__(self.model)  # type: ignore[misc]
            return
        dim = int(rows[0][3])
        blobs = [r[4] for r in rows if r[3] == dim]
        rows = [r for r in rows if r[3] == dim]
        matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(rows), dim)
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.note_ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        self.spans = np.array([(r[1], r[2]) for r in rows], dtype=np.int64).reshape(-1, 2)
        change = np.flatnonzero(np.diff(self.note_ids)) + 1
        self.segment_starts = np.concatenate(([0], change)).astype(np.int64)
        self.segment_notes = self.note_ids[self.segment_starts]

    def top_notes(
        self,
        query: Matrix,
        depth: int,
        *,
        allowed: set[int] | None = None,
        min_sim: float = 0.0,
    ) -> list[VectorHit]:
        """The ``depth`` notes with the best chunk cosine, best first (ties: lower note id).

        ``allowed`` restricts to those note ids (the query's filters); ``min_sim`` drops notes
        whose best chunk is below that cosine.
        """
        if self.size == 0 or depth <= 0:
            return []
        sims = self.matrix @ np.asarray(query, dtype=np.float32).reshape(-1)
        note_best = np.maximum.reduceat(sims, self.segment_starts)
        if allowed is not None:
            mask = np.isin(self.segment_notes, np.fromiter(allowed, dtype=np.int64))
            note_best = np.where(mask, note_best, -np.inf)
        if min_sim > 0:
            note_best = np.where(note_best >= min_sim, note_best, -np.inf)
        candidates = int(np.count_nonzero(np.isfinite(note_best)))
        k = min(depth, candidates)
        if k == 0:
            return []
        if k < note_best.shape[0]:
            top = np.argpartition(-note_best, k - 1)[:k]
        else:
            top = np.arange(note_best.shape[0])
        # Best first; equal scores by note id, as every ranking here breaks ties.
        order = np.lexsort((self.segment_notes[top], -note_best[top]))
        hits = []
        ends = np.append(self.segment_starts[1:], self.size)
        for seg in top[order]:
            lo, hi = int(self.segment_starts[seg]), int(ends[seg])
            best = lo + int(np.argmax(sims[lo:hi]))
            hits.append(
                VectorHit(
                    note_id=int(self.segment_notes[seg]),
                    score=float(note_best[seg]),
                    chunk_start=int(self.spans[best, 0]),
                    chunk_end=int(self.spans[best, 1]),
                )
            )
        return hits
