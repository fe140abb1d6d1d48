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

#: Rows read per step when loading the matrix.
_LOAD_BATCH = 4096


@dataclass(frozen=True, slots=True)
class VectorHit:
    note_id: int
    score: float
    chunk_start: int
    chunk_end: int


#: The histogram of a query's cosines over the vault: this many bins from -1 to 1.
SPREAD_BINS = 80


@dataclass(frozen=True, slots=True)
class CosineSpread:
    """How one query's best-chunk cosines spread over every note of the vault: the bulk a hit
    stands above (or sits in).  Computed from the product the ranking makes anyway."""

    notes: int
    mean: float
    std: float
    #: Notes per bin of :data:`SPREAD_BINS` equal bins over [-1, 1].
    histogram: tuple[int, ...] = ()

    def sigmas(self, cosine: float) -> float:
        """How many standard deviations ``cosine`` stands above the mean (0 when all are equal)."""
        return (cosine - self.mean) / self.std if self.std > 0 else 0.0

    @classmethod
    def of(cls, cosines: Matrix) -> CosineSpread:
        values = np.asarray(cosines, dtype=np.float64)
        if values.size == 0:
            return cls(0, 0.0, 0.0, (0,) * SPREAD_BINS)
        counts, _ = np.histogram(np.clip(values, -1.0, 1.0), bins=SPREAD_BINS, range=(-1.0, 1.0))
        return cls(
            int(values.size), float(values.mean()), float(values.std()), tuple(counts.tolist())
        )

    def to_json(self) -> dict[str, object]:
        return {
            "notes": self.notes,
            "mean": round(self.mean, 5),
            "std": round(self.std, 5),
            "histogram": list(self.histogram),
        }


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
        self.segment_ends: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        #: Vectors of the model left out of the last load because they were damaged.
        self.damaged = 0

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
        """Read every chunk vector of the model into one matrix, in note order.

        Rows are streamed in batches into a preallocated matrix, so loading costs the matrix and
        a few megabytes, never a second copy of every BLOB (at 50k notes that copy is ~230 MB).
        Vectors of another dimension than the first one found are left out, and so are
        damaged ones (a BLOB of the wrong length, a value that is not finite): they are counted
        in :attr:`damaged`, never computed with.
        """
        conn = db.conn
        joined = (
            "FROM chunks c JOIN vectors v ON v.hash = c.hash AND v.model = ? "
            "AND length(v.vec) = 4 * v.dim"
        )
        first = conn.execute(
            f"SELECT v.dim {joined} ORDER BY c.note_id, c.seq LIMIT 1", (self.model,)
        ).fetchone()
        if first is None:
            self.__init__(self.model)  # type: ignore[misc]
            return
        dim = int(first[0])
        (expected,) = conn.execute(
            f"SELECT count(*) {joined} AND v.dim = ?", (self.model, dim)
        ).fetchone()
        matrix = np.empty((int(expected), dim), dtype=np.float32)
        note_ids = np.empty(int(expected), dtype=np.int64)
        spans = np.empty((int(expected), 2), dtype=np.int64)
        cursor = conn.execute(
            f"SELECT c.note_id, c.start, c.end, v.vec {joined} AND v.dim = ? "
            "ORDER BY c.note_id, c.seq",
            (self.model, dim),
        )
        n = 0
        damaged = int(
            conn.execute(
                "SELECT count(*) FROM chunks c JOIN vectors v ON v.hash = c.hash "
                "AND v.model = ? AND length(v.vec) != 4 * v.dim",
                (self.model,),
            ).fetchone()[0]
        )
        while batch := cursor.fetchmany(_LOAD_BATCH):
            m = len(batch)
            if n + m > matrix.shape[0]:  # rows were added since the count: grow
                size = max(n + m, 2 * matrix.shape[0])
                matrix = np.resize(matrix, (size, dim))
                note_ids = np.resize(note_ids, size)
                spans = np.resize(spans, (size, 2))
            block = np.frombuffer(b"".join(r[3] for r in batch), dtype="<f4").reshape(m, dim)
            sound = np.isfinite(block).all(axis=1)
            if not sound.all():
                damaged += int(m - np.count_nonzero(sound))
                keep = np.flatnonzero(sound)
                block = block[keep]
                batch = [batch[i] for i in keep.tolist()]
                m = len(batch)
            matrix[n : n + m] = block
            note_ids[n : n + m] = [r[0] for r in batch]
            spans[n : n + m] = [(r[1], r[2]) for r in batch]
            n += m
        if n == 0:
            self.__init__(self.model)  # type: ignore[misc]
            self.damaged = damaged
            return
        self.damaged = damaged
        self.matrix = matrix[:n] if n < matrix.shape[0] else matrix
        self.note_ids = note_ids[:n]
        self.spans = spans[:n]
        change = np.flatnonzero(np.diff(self.note_ids)) + 1
        self.segment_starts = np.concatenate(([0], change)).astype(np.int64)
        self.segment_notes = self.note_ids[self.segment_starts]
        self.segment_ends = np.append(self.segment_starts[1:], n).astype(np.int64)

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
        return self.search(query, depth, allowed=allowed, min_sim=min_sim)[0]

    def search(
        self,
        query: Matrix,
        depth: int,
        *,
        allowed: set[int] | None = None,
        min_sim: float = 0.0,
    ) -> tuple[list[VectorHit], CosineSpread]:
        """:meth:`top_notes`, and how the query's cosines spread over every note of the vault
        (all of them, whatever the filters: the bulk a hit is measured against)."""
        if self.size == 0:
            return [], CosineSpread.of(np.zeros(0, dtype=np.float32))
        sims = self.matrix @ np.asarray(query, dtype=np.float32).reshape(-1)
        note_best = np.maximum.reduceat(sims, self.segment_starts)
        spread = CosineSpread.of(note_best)
        return self._top(sims, note_best, depth, allowed, min_sim), spread

    def _top(
        self,
        sims: Matrix,
        note_best: Matrix,
        depth: int,
        allowed: set[int] | None,
        min_sim: float,
    ) -> list[VectorHit]:
        if depth <= 0:
            return []
        if allowed is not None:
            mask = np.isin(self.segment_notes, np.fromiter(allowed, dtype=np.int64))
            note_best = np.where(mask, note_best, -np.inf)
        if min_sim > 0:
            note_best = np.where(note_best >= min_sim, note_best, -np.inf)
        filtered = allowed is not None or min_sim > 0
        candidates = int(np.count_nonzero(np.isfinite(note_best))) if filtered else len(note_best)
        k = min(depth, candidates)
        if k == 0:
            return []
        if k < note_best.shape[0]:
            # Every note scoring at least the k-th best, so that a tie across the cut-off is
            # settled by note id below, not by where the partition happened to put it.
            kth = note_best[np.argpartition(-note_best, k - 1)[k - 1]]
            top = np.flatnonzero(note_best >= kth)
        else:
            top = np.arange(note_best.shape[0])
        # Best first; equal scores by note id, as every ranking here breaks ties.
        chosen = top[np.lexsort((self.segment_notes[top], -note_best[top]))[:k]]
        rows = self._best_rows(sims, chosen)
        return [
            VectorHit(note_id, score, start, end)
            for note_id, score, start, end in zip(
                self.segment_notes[chosen].tolist(),
                note_best[chosen].tolist(),
                self.spans[rows, 0].tolist(),
                self.spans[rows, 1].tolist(),
                strict=True,
            )
        ]

    def _best_rows(self, sims: Matrix, segments: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The row of each segment's best chunk (the first one, on a tie), without a loop."""
        lo = self.segment_starts[segments]
        lengths = self.segment_ends[segments] - lo
        offsets = np.cumsum(lengths) - lengths  # where each segment starts in ``rows``
        rows = np.repeat(lo - offsets, lengths) + np.arange(int(lengths.sum()))
        values = sims[rows]
        is_best = values == np.repeat(np.maximum.reduceat(values, offsets), lengths)
        firsts = np.flatnonzero(is_best)
        return rows[firsts[np.searchsorted(firsts, offsets)]]
