"""Index health as plain data: what ``vault-explorer status`` prints and the window shows."""

from __future__ import annotations

import os
import time
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


def index_status(db: IndexDB, model: str, *, check_fts: bool = True) -> dict[str, Any]:
    """Counts, skipped files with reasons, model, database path, last sync (read-only).

    ``check_fts`` also runs the checks that read the whole database: SQLite's integrity check,
    FTS5's, and a look at every vector (``integrity``, ``ftsIntegrity``, ``damagedVectors``;
    ``None`` when not run).
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
    skipped = [
        {"path": p, "reason": r}
        for p, r in conn.execute("SELECT path, reason FROM skipped ORDER BY path")
    ]
    warnings = [
        {"path": p, "warning": w}
        for p, w in conn.execute(
            "SELECT path, warnings FROM notes WHERE warnings IS NOT NULL ORDER BY path"
        )
    ]
    last_sync = db.get_meta("last_sync")
    try:
        size = sum(
            os.path.getsize(str(db.path) + s)
            for s in ("", "-wal")
            if os.path.exists(str(db.path) + s)
        )
    except OSError:
        size = 0
    return {
        "vault": str(db.vault),
        "database": str(db.path),
        "databaseBytes": size,
        "schemaVersion": LATEST_VERSION,
        "tokenizer": FTS_TOKENIZER,
        "notes": notes,
        "chunks": chunks,
        "model": model,
        "vectors": vectors,
        "pendingEmbeddings": pending_count(db, model),
        "otherModels": {str(m): int(n) for m, n in other},
        "skipped": skipped,
        "warnings": warnings,
        "lastSync": float(last_sync) if last_sync else None,
        "lastSyncAge": (time.time() - float(last_sync)) if last_sync else None,
        "lastSyncSummary": db.get_meta("last_sync_summary"),
        "integrity": (db.integrity() or "ok") if check_fts else None,
        "ftsIntegrity": (db.fts_integrity() or "ok") if check_fts else None,
        "damagedVectors": damaged_vectors(db, model) if check_fts else None,
        "notices": list(db.notices),
    }
