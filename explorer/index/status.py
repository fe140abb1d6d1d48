"""Index health as a typed value: what ``vault-explorer status`` prints and the window shows."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from explorer.index.db import IndexDB
from explorer.index.embedding import pending_count
from explorer.index.migrations import FTS_TOKENIZER, LATEST_VERSION


def damaged_vectors(db: IndexDB, model: str) -> int:
    """Vectors of ``model`` that a search would never use: a BLOB of the wrong length, or a
    value that is not finite (reads every vector)."""
    count = 0
    cursor = db.conn.execute("SELECT dim, vec FROM vectors WHERE model = ?", (model,))
    while rows := cursor.fetchmany(4096):
        for dim, blob in rows:
            sound = len(blob) == 4 * int(dim) and np.isfinite(np.frombuffer(blob, "<f4")).all()
            count += not sound
    return count


@dataclass(frozen=True)
class SkippedFile:
    """A file of the vault that is not indexed, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class NoteWarning:
    """A note that is indexed, with something the user should know (invalid UTF-8, …)."""

    path: str
    warning: str


@dataclass(frozen=True)
class IndexReport:
    """Counts, skipped files with reasons, model, database path and last sync of an index.

    ``integrity``, ``fts_integrity`` and ``damaged_vectors`` are ``None`` unless the checks that
    read the whole database were run."""

    vault: str
    database: str
    database_bytes: int
    schema_version: int
    tokenizer: str
    notes: int
    chunks: int
    model: str
    vectors: int
    pending_embeddings: int
    other_models: dict[str, int] = field(default_factory=dict)  # vectors of other models
    skipped: tuple[SkippedFile, ...] = ()
    warnings: tuple[NoteWarning, ...] = ()
    last_sync: float | None = None  # time.time() of the last completed sync
    last_sync_summary: str | None = None
    integrity: str | None = None
    fts_integrity: str | None = None
    damaged_vectors: int | None = None
    notices: tuple[str, ...] = ()

    @property
    def last_sync_age(self) -> float | None:
        """Seconds since the last sync, now."""
        return None if self.last_sync is None else time.time() - self.last_sync

    def to_json(self) -> dict[str, Any]:
        """The fields of ``vault-explorer status --json``, in its order and spelling."""
        return {
            "vault": self.vault,
            "database": self.database,
            "databaseBytes": self.database_bytes,
            "schemaVersion": self.schema_version,
            "tokenizer": self.tokenizer,
            "notes": self.notes,
            "chunks": self.chunks,
            "model": self.model,
            "vectors": self.vectors,
            "pendingEmbeddings": self.pending_embeddings,
            "otherModels": dict(self.other_models),
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "warnings": [{"path": w.path, "warning": w.warning} for w in self.warnings],
            "lastSync": self.last_sync,
            "lastSyncAge": self.last_sync_age,
            "lastSyncSummary": self.last_sync_summary,
            "integrity": self.integrity,
            "ftsIntegrity": self.fts_integrity,
            "damagedVectors": self.damaged_vectors,
            "notices": list(self.notices),
        }


def read_status(db: IndexDB, model: str, *, check_fts: bool = True) -> IndexReport:
    """What ``db`` holds for ``model`` (read-only).

    ``check_fts`` also runs the checks that read the whole database: SQLite's integrity check,
    FTS5's, and a look at every vector.
    """
    conn = db.conn
    notes = int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    chunks = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    vectors = int(
        conn.execute(
            "SELECT count(*) FROM chunks c JOIN vectors v ON v.hash = c.hash AND v.model = ?",
            (model,),
        ).fetchone()[0]
    )
    other = conn.execute(
        "SELECT model, count(*) FROM vectors WHERE model != ? GROUP BY model", (model,)
    ).fetchall()
    skipped = tuple(
        SkippedFile(str(p), str(r))
        for p, r in conn.execute("SELECT path, reason FROM skipped ORDER BY path")
    )
    warnings = tuple(
        NoteWarning(str(p), str(w))
        for p, w in conn.execute(
            "SELECT path, warnings FROM notes WHERE warnings IS NOT NULL ORDER BY path"
        )
    )
    last_sync = db.get_meta("last_sync")
    try:
        size = sum(
            os.path.getsize(str(db.path) + s)
            for s in ("", "-wal")
            if os.path.exists(str(db.path) + s)
        )
    except OSError:
        size = 0
    return IndexReport(
        vault=str(db.vault),
        database=str(db.path),
        database_bytes=size,
        schema_version=LATEST_VERSION,
        tokenizer=FTS_TOKENIZER,
        notes=notes,
        chunks=chunks,
        model=model,
        vectors=vectors,
        pending_embeddings=pending_count(db, model),
        other_models={str(m): int(n) for m, n in other},
        skipped=skipped,
        warnings=warnings,
        last_sync=float(last_sync) if last_sync else None,
        last_sync_summary=db.get_meta("last_sync_summary"),
        integrity=(db.integrity() or "ok") if check_fts else None,
        fts_integrity=(db.fts_integrity() or "ok") if check_fts else None,
        damaged_vectors=damaged_vectors(db, model) if check_fts else None,
        notices=tuple(db.notices),
    )
