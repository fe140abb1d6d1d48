"""The vector list's data: every chunk vector of the current model, in one normalised matrix.

Ranking is one matrix–vector product and a partial sort (``np.argpartition``), then a full sort
of the top ``depth`` only — never a Python loop over rows, never a BLOB read per query.  Chunk rows
are grouped by note, so a note's score (its best chunk's) is a segmented maximum.

The matrix stays current without reloading: the index logs which notes' chunks or vectors were
written (``vector_changes``, which every writer of chunks and vectors keeps through
:func:`explorer.index.store.log_vector_changes`), and :meth:`VectorIndex.refresh` reads only those
notes' rows and splices them in place (rows of other notes move within the same buffer).  A write
that changed no vector (a tag, a title, a note not embedded yet) costs one small query.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from explorer.embed.base import Matrix
from explorer.index.db import IndexDB

#: Rows read per step when loading the matrix, and moved per step when splicing it.
_LOAD_BATCH = 4096
#: Spare rows kept after the matrix (at least this many, or 1/32 of it), so that notes added
#: later are appended in place.
_SPARE_ROWS = 1024
#: Notes of up to this many chunks are grouped by their exact count for the segmented maximum;
#: longer ones by widths growing by a quarter (:class:`_SegmentMax`).
_EXACT_WIDTHS = 8
#: Filters whose note masks a matrix keeps for its generation (:meth:`VectorIndex.filter`).
_FILTERS_KEPT = 8


@dataclass(frozen=True, slots=True)
class VectorHit:
    note_id: int
    score: float
    chunk_start: int
    chunk_end: int
    #: The note's second-best chunk: ``(start, end, cosine)`` (``None``: it has one chunk).
    runner_up: tuple[int, int, float] | None = field(default=None, compare=False)


#: Which of an array of note ids pass a search's filters (``True``: it passes).
NoteMask = Callable[[npt.NDArray[np.int64]], npt.NDArray[np.bool_]]


class NoteFilter:
    """A search's filters over one matrix's notes (a :data:`NoteMask`): which of any note ids
    pass, and the answer for the matrix's own notes (its ``segment_notes``) worked out once, by
    the first ranking that asks (beside the lexical list), then kept with the filter
    (:meth:`VectorIndex.filter`)."""

    def __init__(self, passes: NoteMask, notes: npt.NDArray[np.int64]) -> None:
        self.passes = passes
        self._notes = notes
        self._mask: npt.NDArray[np.bool_] | None = None
        self._lock = threading.Lock()
        #: How many times the matrix's notes were masked (once; what the tests watch).
        self.masks_made = 0

    def __call__(self, note_ids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        if note_ids is not self._notes:
            return self.passes(note_ids)
        with self._lock:
            if self._mask is None:
                self._mask = self.passes(note_ids)
                self.masks_made += 1
            return self._mask


class _SegmentMax:
    """Each note's best chunk cosine: the maximum of each segment of rows, in a few array
    operations instead of one call per note (``np.maximum.reduceat`` costs ~50 ns a note, 2-4 ms
    at 50,000 notes; this ~0.3 ms).

    Notes are grouped by their number of chunks (exactly up to :data:`_EXACT_WIDTHS`, then by
    widths a quarter apart); a group is one ``width × notes`` array of row numbers, a note's
    shorter rows padded with its own last row, which a maximum ignores: the result is exactly
    the segmented maximum's.
    """

    def __init__(self, starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]) -> None:
        #: The segment starts this was made for (a matrix with new rows makes a new one).
        self.starts = starts
        lengths = ends - starts
        ladder = list(range(1, _EXACT_WIDTHS + 1))
        top = int(lengths.max()) if len(lengths) else 0
        while ladder[-1] < top:
            ladder.append(-(-ladder[-1] * 5 // 4))
        widths = np.asarray(ladder, dtype=np.int64)[
            np.searchsorted(np.asarray(ladder, dtype=np.int64), lengths)
        ]
        self.groups: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]] = []
        for width in np.unique(widths).tolist():
            segments = np.flatnonzero(widths == width)
            steps = np.minimum(np.arange(width)[:, None], lengths[segments][None, :] - 1)
            rows = np.ascontiguousarray(starts[segments][None, :] + steps, dtype=np.intp)
            self.groups.append((segments.astype(np.intp), rows))

    def __call__(self, sims: Matrix) -> Matrix:
        best = np.empty(len(self.starts), dtype=sims.dtype)
        for segments, rows in self.groups:
            best[segments] = np.take(sims, rows).max(axis=0)
        return best


#: The histogram of a query's cosines over the vault: this many bins from -1 to 1.
SPREAD_BINS = 80

#: A spread of cosines narrower than this is no spread: the vectors' own noise, not the query's.
#: The same text embedded in bfloat16 and in float32 keeps a cosine above 0.9998 (so differs by
#: up to 2e-4), and float32 sums differ in the 7th digit by the order of their terms; a standard
#: deviation under 1e-3 measures that noise, and dividing by it would turn a rounding difference
#: into sigmas (five identical notes: one +2.0 σ, the others -0.5 σ).
MIN_SPREAD = 1e-3


@dataclass(frozen=True, slots=True)
class CosineSpread:
    """How one query's best-chunk cosines spread over every note of the vault: the bulk a hit
    stands above (or sits in).  Computed from the product the ranking makes anyway."""

    notes: int
    mean: float
    std: float
    #: Notes per bin of :data:`SPREAD_BINS` equal bins over [-1, 1].
    histogram: tuple[int, ...] = ()

    @property
    def flat(self) -> bool:
        """The cosines do not spread (under :data:`MIN_SPREAD`): no note stands out of them."""
        return self.std < MIN_SPREAD

    def sigmas(self, cosine: float) -> float:
        """How many standard deviations ``cosine`` stands above the mean (0 when the cosines do
        not spread: see :attr:`flat`)."""
        return 0.0 if self.flat else (cosine - self.mean) / self.std

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
        #: The latest ``vector_changes.seq`` the matrix reflects (``None``: reload it all).
        self.change_seq: int | None = None
        self.matrix: Matrix = np.zeros((0, 0), dtype=np.float32)
        self.note_ids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.spans: npt.NDArray[np.int64] = np.zeros((0, 2), dtype=np.int64)
        self.segment_starts: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.segment_notes: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.segment_ends: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        #: Vectors of the model left out because they were damaged, by note.
        self._damaged: dict[int, int] = {}
        #: Full loads so far, and the rows the last refresh read (what the tests watch).
        self.loads = 0
        self.rows_read = 0
        self._buffer: Matrix = self.matrix
        self._segment_max: _SegmentMax | None = None
        #: The filters of this generation's searches, by key (:meth:`filter`), oldest first.
        self._filters: dict[Hashable, NoteFilter] = {}

    @property
    def damaged(self) -> int:
        """Vectors of the model left out because they were damaged."""
        return sum(self._damaged.values())

    @property
    def size(self) -> int:
        """Chunk vectors loaded."""
        return int(self.matrix.shape[0])

    def refresh(self, db: IndexDB) -> bool:
        """Catch up with the index; returns whether any vector row changed.

        Nothing is read when the generation has not moved; otherwise only the notes logged in
        ``vector_changes`` since the last refresh, spliced in place.  A full load happens the
        first time, and on an index without the log.
        """
        generation = db.generation()
        if generation == self.generation:
            return False
        self.generation = generation
        self._filters = {}  # the notes a filter passes may have changed with any write
        self.rows_read = 0
        seq = _latest_change(db)
        if seq is None or self.change_seq is None or self.size == 0 or seq < self.change_seq:
            self.load(db)
            self.change_seq = seq
            return True
        if seq == self.change_seq:
            return False
        notes = [
            int(r[0])
            for r in db.conn.execute(
                "SELECT note_id FROM vector_changes WHERE seq > ? ORDER BY note_id",
                (self.change_seq,),
            )
        ]
        self.change_seq = seq
        return self._splice(db, np.asarray(notes, dtype=np.int64))

    def load(self, db: IndexDB) -> None:
        """Read every chunk vector of the model into one matrix, in note order.

        Rows are streamed in batches into a preallocated matrix, so loading costs the matrix and
        a few megabytes, never a second copy of every BLOB (at 50k notes that copy is ~230 MB).
        Vectors of another dimension than the first one found are left out, and so are
        damaged ones (a BLOB of the wrong length, a value that is not finite): they are counted
        in :attr:`damaged`, never computed with.
        """
        conn = db.conn
        loads = self.loads + 1
        # The rows are at most the chunks (one vector of the model each), counted from an index.
        # Counting the joined rows instead made SQLite scan every chunk once per vector (at
        # 50,000 notes, minutes); the rows a pending chunk leaves unused are never touched, so
        # they take no memory.
        (chunks,) = conn.execute("SELECT count(*) FROM chunks").fetchone()
        capacity = int(chunks) + max(_SPARE_ROWS, int(chunks) // 32)
        buffer: Matrix | None = None
        damaged: dict[int, int] = {}
        dim = 0
        cursor = conn.execute(
            "SELECT c.note_id, c.start, c.end, v.vec, v.dim FROM chunks c JOIN vectors v "
            "ON v.hash = coalesce(c.old_hash, c.hash) AND v.model = ? ORDER BY c.note_id, c.seq",
            (self.model,),
        )
        n, note_ids, spans = 0, [], []
        while batch := cursor.fetchmany(_LOAD_BATCH):
            if buffer is None:
                # The first vector of the right length gives the dimension.
                dim = next((int(r[4]) for r in batch if len(r[3]) == 4 * int(r[4])), 0)
            batch = _of_dimension(batch, dim, damaged)
            if not batch:
                continue
            if buffer is None:
                buffer = np.empty((capacity, dim), dtype=np.float32)
            block, batch = _sound(batch, dim, damaged)
            m = len(batch)
            if n + m > buffer.shape[0]:  # rows were added since the count: grow
                buffer = _grown(buffer, n, n + m)
            buffer[n : n + m] = block
            note_ids.append(np.fromiter((r[0] for r in batch), dtype=np.int64, count=m))
            spans.append(np.array([(r[1], r[2]) for r in batch], dtype=np.int64).reshape(m, 2))
            n += m
        self.rows_read = n
        if n == 0:
            self.__init__(self.model)  # type: ignore[misc]
            self._damaged = damaged
            self.loads = loads
            return
        assert buffer is not None
        self._damaged = damaged
        self.loads = loads
        self._buffer = buffer
        self._set_rows(n, np.concatenate(note_ids), np.concatenate(spans))

    def _set_rows(
        self, n: int, note_ids: npt.NDArray[np.int64], spans: npt.NDArray[np.int64]
    ) -> None:
        self.matrix = self._buffer[:n]
        self.note_ids = note_ids
        self.spans = spans
        change = np.flatnonzero(np.diff(self.note_ids)) + 1
        self.segment_starts = np.concatenate(([0], change)).astype(np.int64)
        self.segment_notes = self.note_ids[self.segment_starts]
        self.segment_ends = np.append(self.segment_starts[1:], n).astype(np.int64)

    def _splice(self, db: IndexDB, notes: npt.NDArray[np.int64]) -> bool:
        """Replace the rows of ``notes`` (sorted note ids) by what the index holds for them now,
        moving the other rows within the buffer; returns whether any row changed."""
        dim = self.matrix.shape[1]
        new_ids: list[int] = []
        new_spans: list[tuple[int, int]] = []
        blocks: list[Matrix] = []
        for start in range(0, len(notes), 500):
            part = notes[start : start + 500].tolist()
            for note_id in part:
                self._damaged.pop(note_id, None)
            marks = ",".join("?" * len(part))
            for n, k in db.conn.execute(
                "SELECT c.note_id, count(*) FROM chunks c "
                "JOIN vectors v ON v.hash = coalesce(c.old_hash, c.hash) "
                f"AND v.model = ? AND length(v.vec) != 4 * v.dim WHERE c.note_id IN ({marks}) "
                "GROUP BY c.note_id",
                (self.model, *part),
            ):
                self._damaged[int(n)] = int(k)
            rows = db.conn.execute(
                f"SELECT c.note_id, c.start, c.end, v.vec {_JOINED} AND v.dim = ? "
                f"WHERE c.note_id IN ({marks}) ORDER BY c.note_id, c.seq",
                (self.model, dim, *part),
            ).fetchall()
            if rows:
                block, rows = _sound(rows, dim, self._damaged)
                blocks.append(block)
                new_ids.extend(r[0] for r in rows)
                new_spans.extend((r[1], r[2]) for r in rows)
        self.rows_read = len(new_ids)
        dropped = np.isin(self.note_ids, notes)
        if not new_ids and not dropped.any():
            return False
        kept = np.flatnonzero(~dropped)
        kept_ids = self.note_ids[kept]
        added_ids = np.asarray(new_ids, dtype=np.int64)
        total = len(kept) + len(added_ids)
        # Where every row goes: kept rows keep their order, added rows go between them by note.
        kept_to = np.arange(len(kept)) + np.searchsorted(added_ids, kept_ids)
        added_to = np.arange(len(added_ids)) + np.searchsorted(kept_ids, added_ids)
        if total > self._buffer.shape[0]:
            self._buffer = _grown(self._buffer, self.size, total + max(_SPARE_ROWS, total // 32))
        _move_rows(self._buffer, kept, kept_to)
        if blocks:
            self._buffer[added_to] = np.concatenate(blocks)
        note_ids = np.empty(total, dtype=np.int64)
        spans = np.empty((total, 2), dtype=np.int64)
        note_ids[kept_to], spans[kept_to] = kept_ids, self.spans[kept]
        if len(added_ids):
            note_ids[added_to] = added_ids
            spans[added_to] = np.asarray(new_spans, dtype=np.int64).reshape(-1, 2)
        if total == 0:
            loads = self.loads
            damaged = self._damaged
            self.__init__(self.model)  # type: ignore[misc]
            self.loads, self._damaged, self.change_seq = loads, damaged, None
            return True
        self._set_rows(total, note_ids, spans)
        return True

    def filter(self, key: Hashable, read: Callable[[], NoteMask]) -> NoteFilter:
        """The filter ``key`` (equal keys: the same filters) over this matrix's notes: ``read``
        (which may run statements: call this on the index's thread) gives its mask the first
        time in this generation, then it is kept, and so is which of the matrix's notes pass
        once a ranking worked that out; a new generation forgets them all."""
        found = self._filters.pop(key, None)
        if found is None:
            found = NoteFilter(read(), self.segment_notes)
            if len(self._filters) >= _FILTERS_KEPT:
                del self._filters[next(iter(self._filters))]
        self._filters[key] = found
        return found

    def top_notes(
        self,
        query: Matrix,
        depth: int,
        *,
        allowed: NoteMask | None = None,
        min_sim: float = 0.0,
    ) -> list[VectorHit]:
        """The ``depth`` notes with the best chunk cosine, best first (ties: lower note id).

        ``allowed`` restricts to the note ids it passes (the query's filters); ``min_sim`` drops
        notes whose best chunk is below that cosine.
        """
        return self.search(query, depth, allowed=allowed, min_sim=min_sim)[0]

    def search(
        self,
        query: Matrix,
        depth: int,
        *,
        allowed: NoteMask | None = None,
        min_sim: float = 0.0,
    ) -> tuple[list[VectorHit], CosineSpread]:
        """:meth:`top_notes`, and how the query's cosines spread over every note of the vault
        (all of them, whatever the filters: the bulk a hit is measured against)."""
        if self.size == 0:
            return [], CosineSpread.of(np.zeros(0, dtype=np.float32))
        sims = self.matrix @ np.asarray(query, dtype=np.float32).reshape(-1)
        note_best = self._note_best(sims)
        spread = CosineSpread.of(note_best)
        return self._top(sims, note_best, depth, allowed, min_sim), spread

    def _note_best(self, sims: Matrix) -> Matrix:
        """Each note's best chunk cosine (:class:`_SegmentMax`, made once per set of rows)."""
        segment_max = self._segment_max
        if segment_max is None or segment_max.starts is not self.segment_starts:
            segment_max = self._segment_max = _SegmentMax(self.segment_starts, self.segment_ends)
        return segment_max(sims)

    def _top(
        self,
        sims: Matrix,
        note_best: Matrix,
        depth: int,
        allowed: NoteMask | None,
        min_sim: float,
    ) -> list[VectorHit]:
        if depth <= 0:
            return []
        if allowed is not None:
            note_best = np.where(allowed(self.segment_notes), note_best, -np.inf)
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
        seconds = self._runner_up_rows(sims, chosen, rows)
        return [
            VectorHit(
                note_id,
                score,
                start,
                end,
                None
                if second < 0
                else (
                    int(self.spans[second, 0]),
                    int(self.spans[second, 1]),
                    float(sims[second]),
                ),
            )
            for note_id, score, start, end, second in zip(
                self.segment_notes[chosen].tolist(),
                note_best[chosen].tolist(),
                self.spans[rows, 0].tolist(),
                self.spans[rows, 1].tolist(),
                seconds.tolist(),
                strict=True,
            )
        ]

    def _runner_up_rows(
        self, sims: Matrix, segments: npt.NDArray[np.int64], best: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """The row of each segment's second-best chunk, its best row ``best`` set aside (the
        first one, on a tie); -1 for a segment of one row.  No loop over rows."""
        lo = self.segment_starts[segments]
        lengths = self.segment_ends[segments] - lo
        offsets = np.cumsum(lengths) - lengths
        rows = np.repeat(lo - offsets, lengths) + np.arange(int(lengths.sum()))
        values = sims[rows].astype(np.float64)
        values[offsets + (best - lo)] = -np.inf
        top = np.repeat(np.maximum.reduceat(values, offsets), lengths)
        is_second = (values == top) & np.isfinite(values)
        firsts = np.flatnonzero(is_second)
        at = np.searchsorted(firsts, offsets)
        found = at < len(firsts)
        found[found] &= firsts[at[found]] < offsets[found] + lengths[found]
        out = np.full(len(segments), -1, dtype=np.int64)
        out[found] = rows[firsts[at[found]]]
        return out

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


_JOINED = (
    "FROM chunks c JOIN vectors v ON v.hash = coalesce(c.old_hash, c.hash) AND v.model = ? "
    "AND length(v.vec) = 4 * v.dim"
)


def _latest_change(db: IndexDB) -> int | None:
    """The latest ``vector_changes.seq`` (0: none yet); ``None`` on an index without the log."""
    try:
        row = db.conn.execute("SELECT coalesce(max(seq), 0) FROM vector_changes").fetchone()
    except sqlite3.OperationalError:
        return None
    return int(row[0])


def _of_dimension(batch: list[Any], dim: int, damaged: dict[int, int]) -> list[Any]:
    """The rows of ``batch`` (note id, start, end, vector, its dimension) whose vector is of
    ``dim`` values; those of a BLOB of the wrong length for their own dimension are counted in
    ``damaged`` by note, those of another dimension left out."""
    kept = []
    for row in batch:
        if len(row[3]) != 4 * int(row[4]):
            damaged[int(row[0])] = damaged.get(int(row[0]), 0) + 1
        elif row[4] == dim:
            kept.append(row)
    return kept


def _sound(batch: list[Any], dim: int, damaged: dict[int, int]) -> tuple[Matrix, list[Any]]:
    """The vectors of ``batch`` (rows ending with a BLOB) as a block, without the rows holding a
    value that is not finite (counted in ``damaged`` by note)."""
    block = np.frombuffer(b"".join(r[3] for r in batch), dtype="<f4").reshape(len(batch), dim)
    sound = np.isfinite(block).all(axis=1)
    if sound.all():
        return block, batch
    for i in np.flatnonzero(~sound).tolist():
        damaged[int(batch[i][0])] = damaged.get(int(batch[i][0]), 0) + 1
    keep = np.flatnonzero(sound)
    return block[keep], [batch[i] for i in keep.tolist()]


def _grown(buffer: Matrix, used: int, capacity: int) -> Matrix:
    """A buffer of ``capacity`` rows holding the first ``used`` rows of ``buffer``."""
    grown = np.empty((capacity, buffer.shape[1]), dtype=np.float32)
    grown[:used] = buffer[:used]
    return grown


def _move_rows(
    buffer: Matrix, source: npt.NDArray[np.int64], target: npt.NDArray[np.int64]
) -> None:
    """Move rows ``source[i]`` to ``target[i]`` within ``buffer`` (both increasing), a run of
    rows at a time and never through a copy of more than :data:`_LOAD_BATCH` rows.

    Runs moving left go first, front to back, then runs moving right, back to front: since the
    rows keep their order, no run then lands on rows that have not moved yet.
    """
    if len(source) == 0:
        return
    shift = target - source
    # Runs: consecutive rows with the same shift and consecutive sources.
    breaks = np.flatnonzero((np.diff(shift) != 0) | (np.diff(source) != 1)) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.append(breaks, len(source))
    runs = [
        (int(source[a]), int(source[b - 1]) + 1, int(shift[a]))
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
        if shift[a] != 0
    ]
    for lo, hi, by in (r for r in runs if r[2] < 0):
        for at in range(lo, hi, _LOAD_BATCH):
            end = min(hi, at + _LOAD_BATCH)
            buffer[at + by : end + by] = buffer[at:end]
    for lo, hi, by in reversed([r for r in runs if r[2] > 0]):
        for end in range(hi, lo, -_LOAD_BATCH):
            at = max(lo, end - _LOAD_BATCH)
            buffer[at + by : end + by] = buffer[at:end]
