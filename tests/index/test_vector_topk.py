"""``VectorIndex.top_notes`` against a brute-force reference, ties and filters included."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.index.vectors import CosineSpread, VectorHit, VectorIndex


def _index(
    rng: np.random.Generator, notes: int, duplicates: int, per: np.ndarray | None = None
) -> VectorIndex:
    per = rng.integers(1, 5, size=notes) if per is None else per
    rows = int(per.sum())
    matrix = rng.standard_normal((rows, 8)).astype(np.float32)
    # Some notes are exact copies of the first one (templates): their scores tie exactly.
    first = matrix[: per[0]]
    start = 0
    for i, count in enumerate(per):
        if 0 < i <= duplicates:
            per_copy = min(count, per[0])
            matrix[start : start + per_copy] = first[:per_copy]
        start += count
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    index = VectorIndex("m")
    index.matrix = np.ascontiguousarray(matrix)
    index.note_ids = np.repeat(np.arange(100, 100 + 3 * notes, 3)[::-1], per).astype(np.int64)
    index.spans = np.stack([np.arange(rows) * 10, np.arange(rows) * 10 + 9], axis=1)
    change = np.flatnonzero(np.diff(index.note_ids)) + 1
    index.segment_starts = np.concatenate(([0], change)).astype(np.int64)
    index.segment_notes = index.note_ids[index.segment_starts]
    index.segment_ends = np.append(index.segment_starts[1:], rows).astype(np.int64)
    return index


def _reference(
    index: VectorIndex, query: np.ndarray, depth: int, allowed: set[int] | None, min_sim: float
) -> list[VectorHit]:
    sims = index.matrix @ query
    best: dict[int, tuple[float, int]] = {}
    for row, note in enumerate(index.note_ids.tolist()):
        if note not in best or sims[row] > best[note][0]:
            best[note] = (float(sims[row]), row)
    ranked = sorted(
        (
            n
            for n in best
            if (allowed is None or n in allowed) and (min_sim <= 0 or best[n][0] >= min_sim)
        ),
        key=lambda n: (-best[n][0], n),
    )[:depth]
    return [
        VectorHit(n, best[n][0], int(index.spans[best[n][1], 0]), int(index.spans[best[n][1], 1]))
        for n in ranked
    ]


@pytest.mark.parametrize("seed", range(12))
def test_top_notes_matches_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    index = _index(rng, notes=int(rng.integers(1, 60)), duplicates=int(rng.integers(0, 8)))
    notes = index.segment_notes.tolist()
    for _ in range(5):
        query = index.matrix[0] if rng.random() < 0.5 else rng.standard_normal(8).astype(np.float32)
        depth = int(rng.integers(1, 70))
        allowed = (
            set(rng.choice(notes, size=len(notes) // 2).tolist()) if rng.random() < 0.3 else None
        )
        min_sim = float(rng.uniform(-0.2, 0.6)) if rng.random() < 0.3 else 0.0
        mask = None if allowed is None else (lambda ids, a=allowed: np.isin(ids, list(a)))
        got = index.top_notes(query, depth, allowed=mask, min_sim=min_sim)
        assert got == _reference(index, query, depth, allowed, min_sim)


@pytest.mark.parametrize("seed", range(4))
def test_notes_of_any_number_of_chunks_score_their_best_one(seed: int) -> None:
    """A note's score is its best chunk's whatever its number of chunks (grouped by exact
    counts up to 8, then by wider widths): the ranking and the spread are exactly those of a
    segmented maximum over every row."""
    rng = np.random.default_rng(100 + seed)
    per = np.concatenate(
        [rng.integers(1, 12, size=40), rng.integers(9, 80, size=12), rng.integers(150, 400, 3)]
    )
    rng.shuffle(per)
    index = _index(rng, notes=len(per), duplicates=int(rng.integers(0, 5)), per=per)
    for _ in range(4):
        query = rng.standard_normal(8).astype(np.float32)
        hits, spread = index.search(query, 25)
        assert hits == _reference(index, query, 25, None, 0.0)
        best = np.maximum.reduceat(index.matrix @ query, index.segment_starts)
        assert spread == CosineSpread.of(best)
