"""Bringing the index up to date with the vault, incrementally.

Unchanged files cost a ``stat``: size and modification time are compared first, and only files
whose stats moved are read and hashed; only files whose hash moved are parsed.  Writes go in
transactions bounded by a number of notes and by bytes of note text (a transaction holds the
index's write lock, and readers of the index must not wait long for it), each note complete
(note, tags, chunks, FTS row), so a process killed mid-sync leaves a consistent index that the
next sync finishes.  One note that cannot be indexed (a bug meeting odd content) is listed as
skipped with the reason and costs nothing else: each note is applied under its own savepoint.
Errors of the database itself (disk full, I/O error, locked, corrupt) stop the sync instead.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from explorer.index import store
from explorer.index.db import IndexDB
from explorer.vault.ignore import IgnoreRules
from explorer.vault.parse import NotANote, parse_note
from explorer.vault.scan import (
    FileStat,
    escape_name,
    is_utf8_name,
    is_vault_folder,
    read_note,
    scan_vault,
    stat_note,
)

log = logging.getLogger(__name__)

#: (phase, done, total) — phases are "scan", "index", "embed".
Progress = Callable[[str, int, int], None]

#: A file modified this close to the moment it was indexed is hashed again on the next sync,
#: since a second write within the file system's timestamp resolution would be invisible.
RACY_NS = 2_000_000_000

#: A write transaction ends after this many notes …
BATCH_NOTES = 250
#: … or once the next note would take its note text past this many bytes, whichever comes first.
BATCH_BYTES = 4 * 1024 * 1024


@dataclass(slots=True)
class SyncReport:
    """What one sync did."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    vectors_removed: int = 0
    seconds: float = 0.0

    @property
    def changed_anything(self) -> bool:
        return bool(self.added or self.changed or self.deleted)

    @property
    def touched(self) -> set[str]:
        """Paths whose search results may differ after this sync."""
        return {*self.added, *self.changed, *self.deleted}

    def summary(self) -> str:
        parts = [
            f"{len(self.added) - len(self.renamed)} added",
            f"{len(self.changed)} changed",
            f"{len(self.renamed)} moved",
            f"{len(self.deleted) - len(self.renamed)} deleted",
            f"{self.unchanged} unchanged",
        ]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        return ", ".join(parts) + f" in {self.seconds:.2f}s"


def sync_vault(
    db: IndexDB,
    progress: Progress | None = None,
    *,
    paths: Iterable[str] | None = None,
    batch_size: int = BATCH_NOTES,
    batch_bytes: int = BATCH_BYTES,
) -> SyncReport:
    """Reconcile the index with the files; ``paths`` limits the work to those paths (and the
    notes below any of them that is a folder), as the watcher does."""
    started = time.perf_counter()
    root = db.vault
    rules = IgnoreRules.for_vault(root)
    report = SyncReport()
    cleared: list[str] | None = None  # whose skipped listings (and those below) are redone
    if paths is None:
        scan = scan_vault(root, rules)
        current, skipped = scan.files, scan.skipped
        known = store.known_notes(db.conn)
    else:
        current, skipped, known, cleared = _targeted(db, root, rules, paths)
    if progress:
        progress("scan", len(current), len(current))

    deleted = [p for p in known if p not in current]
    candidates = [st for rel, st in current.items() if _maybe_changed(known.get(rel), st)]
    report.unchanged = len(current) - len(candidates)
    total = len(candidates)
    with db.transaction() as conn:
        if cleared is None:
            conn.execute("DELETE FROM skipped")
        else:
            for path in cleared:
                store.clear_skipped(conn, path)
        for path, reason in skipped.items():
            store.set_skipped(conn, path, reason)
    for start in range(0, len(deleted), batch_size):
        with db.transaction() as conn:
            for path in deleted[start : start + batch_size]:
                store.delete_note(conn, path)
            db.bump_generation()
    report.deleted.extend(deleted)
    report.skipped.update(skipped)
    deleted_hashes = {known[p].hash: p for p in deleted}

    done = 0
    while done < total:
        with db.transaction() as conn:
            end, size = done, 0
            while end < total and end - done < batch_size:
                st = candidates[end]
                if end > done and size + st.size > batch_bytes:
                    break
                size += st.size
                _apply_one(conn, root, st, known.get(st.rel), report, deleted_hashes)
                end += 1
            db.bump_generation()
        done = end
        if progress:
            progress("index", done, total)

    with db.transaction() as conn:
        if report.changed_anything:
            report.vectors_removed = store.delete_orphan_vectors(conn)
        db.set_meta("last_sync", str(time.time()))
    report.seconds = time.perf_counter() - started
    db.set_meta("last_sync_summary", report.summary())
    return report


def _maybe_changed(known: store.KnownNote | None, st: FileStat) -> bool:
    if known is None or known.size != st.size or known.mtime_ns != st.mtime_ns:
        return True
    return known.indexed_ns - known.mtime_ns < RACY_NS


def _apply_one(
    conn: sqlite3.Connection,
    root: Path,
    st: FileStat,
    known: store.KnownNote | None,
    report: SyncReport,
    deleted_hashes: dict[str, str],
) -> None:
    """:func:`_apply` under a savepoint: a note that fails is listed as skipped (and its old
    version, if any, leaves the index), and the rest of the transaction is kept."""
    conn.execute("SAVEPOINT note")
    try:
        _apply(conn, root, st, known, report, deleted_hashes)
    except Exception as exc:
        if _database_failed(exc):
            raise
        conn.execute("ROLLBACK TO note")
        log.debug("indexing %s failed", escape_name(st.rel), exc_info=True)
        reason = f"could not be indexed: {type(exc).__name__}: {exc}"
        store.set_skipped(conn, st.rel, reason)
        report.skipped[st.rel] = reason
        if known is not None and store.delete_note(conn, st.rel):
            report.deleted.append(st.rel)
    conn.execute("RELEASE note")


def _database_failed(exc: Exception) -> bool:
    """Whether ``exc`` is the database's failure (disk full, I/O error, locked, corrupt, or a
    statement of ours that is wrong), which no other note would escape either."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(
        exc, (sqlite3.IntegrityError, sqlite3.DataError)
    )


def _apply(
    conn: sqlite3.Connection,
    root: Path,
    st: FileStat,
    known: store.KnownNote | None,
    report: SyncReport,
    deleted_hashes: dict[str, str],
) -> None:
    data = read_note(root, st.rel)
    if data is None:
        # Vanished between the scan and the read: it is gone, as far as the index is concerned.
        if known is not None and store.delete_note(conn, st.rel):
            report.deleted.append(st.rel)
        return
    if isinstance(data, str):  # no longer a note (a link out, a FIFO) or unreadable
        store.set_skipped(conn, st.rel, data)
        report.skipped[st.rel] = data
        if known is not None and store.delete_note(conn, st.rel):
            report.deleted.append(st.rel)
        return
    st = FileStat(st.rel, len(data), st.mtime_ns)
    digest = store.content_digest(data)
    if known is not None and known.hash == digest:
        store.touch_note(conn, st)
        report.unchanged += 1
        return
    try:
        note = parse_note(st.rel, data)
    except NotANote as exc:
        store.set_skipped(conn, st.rel, str(exc))
        report.skipped[st.rel] = str(exc)
        if known is not None and store.delete_note(conn, st.rel):
            report.deleted.append(st.rel)
        return
    store.upsert_note(conn, st, note)
    store.set_skipped(conn, st.rel, None)
    if note.warnings:
        report.warnings[st.rel] = note.warnings
    if known is None:
        report.added.append(st.rel)
        if digest in deleted_hashes:
            report.renamed.append((deleted_hashes.pop(digest), st.rel))
    else:
        report.changed.append(st.rel)


def _targeted(
    db: IndexDB, root: Path, rules: IgnoreRules, paths: Iterable[str]
) -> tuple[dict[str, FileStat], dict[str, str], dict[str, store.KnownNote], list[str]]:
    """What a sync of ``paths`` compares: the notes there now, the skipped ones, the notes the
    index holds there, and the (escaped) paths whose skipped listings are redone."""
    current: dict[str, FileStat] = {}
    skipped: dict[str, str] = {}
    known: dict[str, store.KnownNote] = {}
    cleared: list[str] = []
    for rel in sorted(set(paths)):
        rel = rel.strip("/")
        if not rel:
            continue
        cleared.append(escape_name(rel))
        # Only a name UTF-8 can store can be in the index (nor can anything below it); the
        # others are only ever listed as skipped, and must never be bound into a query.
        if is_utf8_name(rel):
            known.update(store.known_notes(db.conn, rel + "/"))
        if is_vault_folder(root, rel):
            if not rules.ignores_dir(rel):
                sub = scan_vault(root, rules, under=rel)
                current.update(sub.files)
                skipped.update(sub.skipped)
            continue
        # A file, or something that is gone: a note, or a folder that held notes.
        row = store.known_note(db.conn, rel) if is_utf8_name(rel) else None
        if row is not None:
            known[rel] = row
        if rules.ignores_file(rel):
            continue
        result = stat_note(root, rel)
        if isinstance(result, FileStat):
            current[rel] = result
        elif result is not None:
            skipped[escape_name(rel)] = result
    return current, skipped, known, cleared
