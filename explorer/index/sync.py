"""Bringing the index up to date with the vault, incrementally.

Unchanged files cost a ``stat``: size and modification time are compared first, and only files
whose stats moved are read and hashed; only files whose hash moved are parsed.  Writes go in
transactions of a bounded number of notes, each complete (note, tags, chunks, FTS row), so a
process killed mid-sync leaves a consistent index that the next sync finishes.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from explorer.index import store
from explorer.index.db import IndexDB
from explorer.vault.ignore import IgnoreRules
from explorer.vault.parse import NotANote, parse_note
from explorer.vault.scan import FileStat, scan_vault, stat_note

#: (phase, done, total) — phases are "scan", "index", "embed".
Progress = Callable[[str, int, int], None]

#: A file modified this close to the moment it was indexed is hashed again on the next sync,
#: since a second write within the file system's timestamp resolution would be invisible.
RACY_NS = 2_000_000_000


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
    batch_size: int = 250,
) -> SyncReport:
    """Reconcile the index with the files; ``paths`` limits the work to those paths (and the
    notes below any of them that is a folder), as the watcher does."""
    started = time.perf_counter()
    root = db.vault
    rules = IgnoreRules.for_vault(root)
    report = SyncReport()
    if paths is None:
        scan = scan_vault(root, rules)
        current, skipped = scan.files, scan.skipped
        known = store.known_notes(db.conn)
        full = True
    else:
        current, skipped, known = _targeted(db, root, rules, paths)
        full = False
    if progress:
        progress("scan", len(current), len(current))

    deleted = [p for p in known if p not in current]
    candidates = [st for rel, st in current.items() if _maybe_changed(known.get(rel), st)]
    report.unchanged = len(current) - len(candidates)
    total = len(candidates)
    with db.transaction() as conn:
        for path in deleted:
            store.delete_note(conn, path)
        if full:
            conn.execute("DELETE FROM skipped")
        for path, reason in skipped.items():
            store.set_skipped(conn, path, reason)
        if deleted:
            db.bump_generation()
    report.deleted.extend(deleted)
    report.skipped.update(skipped)
    deleted_hashes = {known[p].hash: p for p in deleted}

    for start in range(0, total, batch_size):
        batch = candidates[start : start + batch_size]
        with db.transaction() as conn:
            for st in batch:
                _apply(conn, root, st, known.get(st.rel), report, deleted_hashes)
            db.bump_generation()
        if progress:
            progress("index", min(start + batch_size, total), total)

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


def _apply(
    conn: sqlite3.Connection,
    root: Path,
    st: FileStat,
    known: store.KnownNote | None,
    report: SyncReport,
    deleted_hashes: dict[str, str],
) -> None:
    try:
        data = (root / st.rel).read_bytes()
    except FileNotFoundError:
        # Vanished between the scan and the read: it is gone, as far as the index is concerned.
        if known is not None and store.delete_note(conn, st.rel):
            report.deleted.append(st.rel)
        return
    except OSError as exc:
        reason = f"cannot read: {exc.strerror or exc}"
        store.set_skipped(conn, st.rel, reason)
        report.skipped[st.rel] = reason
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
) -> tuple[dict[str, FileStat], dict[str, str], dict[str, store.KnownNote]]:
    current: dict[str, FileStat] = {}
    skipped: dict[str, str] = {}
    known: dict[str, store.KnownNote] = {}
    for rel in sorted(set(paths)):
        rel = rel.strip("/")
        if not rel:
            continue
        target = root / rel
        if target.is_dir() and not target.is_symlink():
            if rules.ignores_dir(rel):
                known.update(store.known_notes(db.conn, rel + "/"))
                continue
            sub = scan_vault(root, rules, under=rel)
            current.update(sub.files)
            skipped.update(sub.skipped)
            known.update(store.known_notes(db.conn, rel + "/"))
            continue
        # A file, or something that is gone: a note, or a folder that held notes.
        known.update(store.known_notes(db.conn, rel + "/"))
        row = store.known_note(db.conn, rel)
        if row is not None:
            known[rel] = row
        if rules.ignores_file(rel):
            continue
        result = stat_note(root, rel)
        if isinstance(result, FileStat):
            current[rel] = result
        elif target.exists() or target.is_symlink():
            skipped[rel] = result
        else:
            with db.transaction() as conn:
                store.set_skipped(conn, rel, None)
    return current, skipped, known
