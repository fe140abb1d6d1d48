"""The embedding queue: chunks whose text has no vector for the current model.

The queue is a query, not a list kept in memory: whatever crashes, the next run finds the same
pending chunks and carries on.  Vectors are stored as little-endian float32 BLOBs tagged with the
model's name and dimension; rows of another model are never read for a search.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from explorer.embed.base import Embedder, Matrix
from explorer.index.db import IndexDB
from explorer.index.store import log_vector_changes

#: (done, total, current note path) after each batch.
EmbedProgress = Callable[[int, int, str], None]

#: Chunk ``c`` has no vector of the model bound to ``?`` yet: a look-up in the small pages of
#: the keys (migration m007), not in the table's, where each row carries its vector.
NO_VECTOR = (
    "NOT EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_model_hash "
    "WHERE v.model = ? AND v.hash = c.hash)"
)
#: The pending chunks in note order, without their texts: a batch reads its own
#: (:data:`_TEXTS`), so that no more than a batch of texts is held at once (at 50,000 notes
#: every pending text read up front took about 300 MB).
_PENDING = (
    "SELECT c.hash, n.path FROM chunks c JOIN notes n ON n.id = c.note_id "
    f"WHERE {NO_VECTOR} ORDER BY c.old_hash IS NOT NULL, c.note_id, c.seq"
)
_TEXTS = "SELECT hash, text FROM chunks WHERE hash IN ({marks})"


@dataclass(slots=True)
class EmbedReport:
    chunks: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0


def encode_vector(vector: Matrix) -> bytes:
    """One vector as a little-endian float32 BLOB."""
    return np.asarray(vector, dtype="<f4").tobytes()


def decode_vector(blob: bytes, dim: int | None = None) -> Matrix:
    """The inverse of :func:`encode_vector`."""
    out = np.frombuffer(blob, dtype="<f4").astype(np.float32)
    if dim is not None and out.shape[0] != dim:
        raise ValueError(f"vector has {out.shape[0]} values, expected {dim}")
    return out


def pack_floats(values: list[float]) -> bytes:
    """Reference packing (as simonw/llm does it), used to test :func:`encode_vector`."""
    return struct.pack("<" + "f" * len(values), *values)


#: A vector is stored only if some chunk still has its text: a chunk deleted while its batch
#: was being embedded leaves no orphan behind.
_STORE_VECTOR = (
    "INSERT OR REPLACE INTO vectors(hash, model, dim, vec) SELECT ?, ?, ?, ? "
    "WHERE EXISTS (SELECT 1 FROM chunks WHERE hash = ?)"
)


def store_vectors(
    conn: sqlite3.Connection, model: str, hashes: Sequence[str], matrix: Matrix
) -> int:
    """Store one vector per chunk text (``hashes[i]`` ↔ ``matrix[i]``) inside the caller's
    transaction, the one way every writer stores them; returns how many were stored.  A vector
    that is not finite is never stored (its chunk stays pending)."""
    if len(hashes) != matrix.shape[0]:
        raise ValueError(f"{len(hashes)} chunk texts but {matrix.shape[0]} vectors")
    dim = int(matrix.shape[1]) if matrix.ndim == 2 else 0
    finite = np.asarray(np.isfinite(matrix).all(axis=1), dtype=bool).reshape(-1)
    sound = [bool(ok) for ok in finite.tolist()]
    rows = [
        (digest, model, dim, encode_vector(matrix[i]), digest)
        for i, digest in enumerate(hashes)
        if sound[i]
    ]
    stored = max(0, conn.executemany(_STORE_VECTOR, rows).rowcount)
    if stored:
        # The notes whose chunks have these texts read their rows again into a loaded matrix
        # (a text no chunk has was not stored, and has no note); their stand-ins step down.
        digests = json.dumps([row[0] for row in rows])
        notes = conn.execute(_NOTES_OF, (digests,)).fetchall()
        _retire_stand_ins(conn, model, digests)
        log_vector_changes(conn, (int(note_id) for (note_id,) in notes))
    return stored


_NOTES_OF = "SELECT DISTINCT note_id FROM chunks WHERE hash IN (SELECT value FROM json_each(?))"
#: The chunks among those texts that now have their own vector of the model: their
#: stand-ins step down.
_LANDED = (
    "FROM chunks WHERE old_hash IS NOT NULL AND hash IN (SELECT hash FROM vectors "
    "WHERE model = ? AND hash IN (SELECT value FROM json_each(?)))"
)
#: A vector that answers for no chunk, as its text or as a stand-in.
_UNUSED = (
    "DELETE FROM vectors WHERE hash IN (SELECT value FROM json_each(?)) "
    "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.hash = vectors.hash) "
    "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.old_hash = vectors.hash)"
)


def _retire_stand_ins(conn: sqlite3.Connection, model: str, digests: str) -> None:
    """The chunks whose own vectors (``digests``, a JSON list) just landed stop using their
    stand-ins, and a stand-in no chunk uses any more is deleted."""
    olds = [
        str(h) for (h,) in conn.execute(f"SELECT DISTINCT old_hash {_LANDED}", (model, digests))
    ]
    if olds:
        landed = _LANDED.removeprefix("FROM chunks WHERE ")
        conn.execute(f"UPDATE chunks SET old_hash = NULL WHERE {landed}", (model, digests))
        conn.execute(_UNUSED, (json.dumps(olds),))


def pending_count(db: IndexDB, model: str) -> int:
    """Distinct chunk texts still waiting for a vector of ``model``."""
    row = db.conn.execute(
        f"SELECT count(DISTINCT c.hash) FROM chunks c WHERE {NO_VECTOR}",
        (model,),
    ).fetchone()
    return int(row[0])


def restyling_count(db: IndexDB) -> int:
    """Notes searched, in some chunk, on the vector of the text it had before where it stands
    changed (a new title, a heading, an older index's form) until the new one is embedded."""
    row = db.conn.execute(
        "SELECT count(DISTINCT note_id) FROM chunks INDEXED BY chunks_old_hash "
        "WHERE old_hash IS NOT NULL"
    ).fetchone()
    return int(row[0])


def pending_counts(db: IndexDB, model: str) -> tuple[int, int]:
    """Distinct chunk texts still waiting for a vector of ``model``, and the notes that have
    such a chunk with no stand-in either (the others are searchable by meaning in every
    part), in one pass."""
    row = db.conn.execute(
        "SELECT count(DISTINCT c.hash), "
        "count(DISTINCT CASE WHEN c.old_hash IS NULL THEN c.note_id END) "
        f"FROM chunks c WHERE {NO_VECTOR}",
        (model,),
    ).fetchone()
    return int(row[0]), int(row[1])


def embed_pending(
    db: IndexDB,
    embedder: Embedder,
    progress: EmbedProgress | None = None,
    *,
    batch_size: int = 128,
    should_stop: Callable[[], bool] | None = None,
) -> EmbedReport:
    """Embed every pending chunk, committing after each batch; returns what was done."""
    started = time.perf_counter()
    report = EmbedReport()
    todo: dict[str, str] = {}
    for digest, path in db.conn.execute(_PENDING, (embedder.name,)):
        todo.setdefault(digest, path)
    items = list(todo.items())
    del todo
    total = len(items)
    if progress:
        progress(0, total, "")
    for start in range(0, total, batch_size):
        if should_stop is not None and should_stop():
            break
        batch = items[start : start + batch_size]
        digests = [digest for digest, _ in batch]
        sql = _TEXTS.format(marks=",".join("?" * len(digests)))
        texts = dict(db.conn.execute(sql, digests).fetchall())
        # A chunk deleted since the list was read has no text left: it is pending no more.
        batch = [(digest, path) for digest, path in batch if digest in texts]
        if not batch:
            continue
        matrix = embedder.embed([texts[digest] for digest, _ in batch])
        if matrix.shape != (len(batch), embedder.dimension):
            raise ValueError(
                f"embedder returned shape {matrix.shape}, "
                f"expected {(len(batch), embedder.dimension)}"
            )
        with db.transaction() as conn:
            store_vectors(conn, embedder.name, [digest for digest, _ in batch], matrix)
            db.bump_generation()
        report.chunks += len(batch)
        if progress:
            progress(report.chunks, total, batch[-1][1])
    report.seconds = time.perf_counter() - started
    return report
