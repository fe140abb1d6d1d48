"""Bringing the index up to date with the vault, incrementally.

Unchanged files cost a ``stat``: size and modification time are compared first, and only files
whose stats moved are read and hashed; only files whose hash moved are parsed.  Writes go in
transactions bounded by a number of notes and by bytes of note text (a transaction holds the
index's write lock, and readers of the index must not wait long for it), each note complete
(note, tags, chunks, FTS row), so a process killed mid-sync leaves a consistent index that the
next sync finishes.  One note that cannot be indexed (a bug meeting odd content) is listed as
skipped with the reason and costs nothing else: a note is read, parsed and checked before
anything of it is written, and the rare note whose writing still fails has its transaction done
again without it (a savepoint per note would cost every note: measured, ~12 % of a full sync).
Errors of the database itself (disk full, I/O error, locked, corrupt) stop the sync instead.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from explorer.index import links, store
from explorer.index.db import IndexDB
from explorer.vault import parse as parsing
from explorer.vault.ignore import IgnoreRules
from explorer.vault.parse import NotANote, ParsedNote, parse_note
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

    def merge(self, other: SyncReport) -> None:
        """Add what ``other`` (a part of the same sync) did."""
        self.added.extend(other.added)
        self.changed.extend(other.changed)
        self.deleted.extend(other.deleted)
        self.renamed.extend(other.renamed)
        self.unchanged += other.unchanged
        self.skipped.update(other.skipped)
        self.warnings.update(other.warnings)
        self.vectors_removed += other.vectors_removed

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


#: A sync that wrote at least this many notes merges the FTS5 index into one segment
#: afterwards.  Each transaction adds a segment, and a query looks every word up in each: after
#: a first sync of 50k notes a question cost about three times what it costs on one segment.
#: Smaller syncs leave the merging to FTS5's automerge.
OPTIMIZE_NOTES = 1000
#: The meta key set in the transaction that takes a sync's notes written to
#: :data:`OPTIMIZE_NOTES`, and deleted with the merge: a sync killed before its merge leaves
#: it to the next sync, however few notes that one writes.
UNMERGED_META = "words_unmerged"


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
        _restyle(db)
        scan = scan_vault(root, rules)
        current, skipped = scan.files, scan.skipped
        known = store.known_notes(db.conn)
    else:
        current, skipped, known, cleared = _targeted(db, root, rules, paths)
    if progress:
        progress("scan", len(current), len(current))

    # A note that cannot be looked at right now (a folder that cannot be listed, a file that
    # cannot be stat'ed) is not gone: it keeps its place in the index until it can be read.
    unreachable = _unreachable(skipped)
    deleted = [p for p in known if p not in current and not unreachable(p)]
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
    stand_ins: dict[str, store.StandIns] = {}
    for start in range(0, len(deleted), batch_size):
        with db.transaction() as conn:
            keys: set[str] = set()
            changes: set[int] = set()  # notes whose vector rows changed, logged once
            for path in deleted[start : start + batch_size]:
                stand_ins.setdefault(known[path].hash, store.stand_ins_of(conn, known[path].id))
                store.delete_note(conn, path, keys, changes)
            store.log_vector_changes(conn, changes)
            links.resolve_keys(conn, keys)
            db.bump_generation()
    report.deleted.extend(deleted)
    report.skipped.update(skipped)
    deleted_hashes = {known[p].hash: p for p in deleted}

    failed: dict[str, str] = {}  # notes whose writing failed: skipped when their batch is redone
    # Links resolve in the transaction that writes their notes, but when the notes come in
    # several transactions (a first sync), once at the end: a link and its target then resolve
    # once, not once per side.  A sync stopped before the end leaves a mark, and the next sync
    # resolves every link.
    defer = total > batch_size
    unresolved: set[str] = set()
    if db.get_meta(links.UNRESOLVED_META) is not None:
        unresolved.update(links.all_keys(db.conn))
    done = 0
    while done < total:
        part = SyncReport()  # merged into the report once its transaction is committed
        hashes = dict(deleted_hashes)
        try:
            with db.transaction() as conn:
                keys = set()  # whose links resolve again
                written = _Written(part, hashes, keys, set(), stand_ins)
                end, size = done, 0
                while end < total and end - done < batch_size:
                    st = candidates[end]
                    if end > done and size + st.size > batch_bytes:
                        break
                    size += st.size
                    _apply(conn, root, st, known.get(st.rel), failed.get(st.rel), written)
                    end += 1
                store.log_vector_changes(conn, written.vector_changes)
                if _written(report) + _written(part) >= OPTIMIZE_NOTES:
                    if db.get_meta(UNMERGED_META) is None:
                        store.defer_merges(conn)  # owed a merge of everything: none before
                    db.set_meta(UNMERGED_META, "1")
                if defer:
                    db.set_meta(links.UNRESOLVED_META, "1")
                else:  # links to and from the notes written resolve in the same transaction
                    links.resolve_keys(conn, keys)
                db.bump_generation()
        except _NoteFailed as exc:
            # Rolled back with its whole transaction: the batch is done again, that note skipped.
            failed[exc.rel] = exc.reason
            continue
        report.merge(part)
        if defer:
            unresolved.update(keys)
        deleted_hashes = hashes
        done = end
        if progress:
            progress("index", done, total)

    with db.transaction() as conn:
        if unresolved:
            links.resolve_keys(conn, unresolved)
            db.bump_generation()
        # Everything owed is resolved now, even when a sync in several transactions wrote no
        # link (its notes read again and found the same) or the vault has none.
        conn.execute("DELETE FROM meta WHERE key = ?", (links.UNRESOLVED_META,))
        if report.changed_anything:
            report.vectors_removed = store.delete_orphan_vectors(conn)
        if db.get_meta(UNMERGED_META) is not None:
            store.optimize_words(conn)
            conn.execute("DELETE FROM meta WHERE key = ?", (UNMERGED_META,))
        db.set_meta("last_sync", str(time.time()))
    report.seconds = time.perf_counter() - started
    db.set_meta("last_sync_summary", report.summary())
    return report


def _written(report: SyncReport) -> int:
    """Notes a sync (or a part of one) wrote into the word index."""
    return len(report.added) + len(report.changed)


#: The meta key of the form the index's chunks are embedded in.
EMBED_FORM_META = "embed_form"


def _restyle(db: IndexDB) -> None:
    """An index whose chunks were embedded in another form than today's has every note read
    again by this sync: each chunk then gets today's text, keeping its vector as a stand-in
    until the new one is embedded (:func:`explorer.index.store.upsert_note`).  Marked in one
    transaction with the form, so a sync stopped half way is finished by the next one."""
    form = parsing.EMBED_FORM.value
    if db.get_meta(EMBED_FORM_META) == form:
        return
    with db.transaction() as conn:
        conn.execute("UPDATE notes SET size = -1, hash = ''")
        db.set_meta(EMBED_FORM_META, form)


#: Reasons of the scanner that say "cannot look at it now", not "it is no note".
_ACCESS_REASONS = ("cannot stat", "cannot list folder")


def _unreachable(skipped: dict[str, str]) -> Callable[[str], bool]:
    """Whether a known note lies where the scan could not look (see :data:`_ACCESS_REASONS`)."""
    folders = tuple(
        path for path, reason in skipped.items() if reason.startswith("cannot list folder")
    )
    files = {path for path, reason in skipped.items() if reason.startswith(_ACCESS_REASONS)}
    return lambda path: path in files or path.startswith(folders)


def _maybe_changed(known: store.KnownNote | None, st: FileStat) -> bool:
    if known is None or known.size != st.size or known.mtime_ns != st.mtime_ns:
        return True
    return known.indexed_ns - known.mtime_ns < RACY_NS


class _NoteFailed(Exception):
    """Writing one note failed other than by a database error; its transaction is redone
    without it."""

    def __init__(self, rel: str, reason: str) -> None:
        super().__init__(rel, reason)
        self.rel, self.reason = rel, reason


@dataclass(frozen=True, slots=True)
class _Prepared:
    """One note read and parsed, nothing written yet: ``gone``, ``skip`` (with the
    ``reason``), the ``same`` content as indexed, or a ``note`` to store."""

    kind: str
    st: FileStat
    reason: str = ""
    note: ParsedNote | None = None
    digest: str = ""


@dataclass(slots=True)
class _Written:
    """What the writes of one transaction collect: its part of the report, the content hashes
    of deleted notes (a note added with one of them was moved), the link keys to resolve again
    and the notes whose vector rows changed (logged once, before it commits)."""

    report: SyncReport
    deleted_hashes: dict[str, str]
    link_keys: set[str]
    vector_changes: set[int]
    #: Content hash of a deleted note -> its chunks' vectors, which a note added with the same
    #: content (the note moved) keeps as stand-ins until its own are embedded.
    stand_ins: dict[str, store.StandIns] = field(default_factory=dict)


def _apply(
    conn: sqlite3.Connection,
    root: Path,
    st: FileStat,
    known: store.KnownNote | None,
    failed: str | None,
    written: _Written,
) -> None:
    """Bring one note up to date.  Reading and parsing write nothing, so a note they fail on
    (a bug meeting odd content) is simply listed as skipped with the reason; one whose writing
    fails other than by a database error raises :class:`_NoteFailed`, and its transaction is
    redone with the note skipped (``failed`` is then that reason).  Database errors (disk
    full, locked, corrupt) propagate: no other note would escape them."""
    if failed is not None:
        _write(conn, _Prepared("skip", st, reason=failed), known, written)
        return
    try:
        prepared = _prepare(root, st, known)
    except Exception as exc:
        prepared = _Prepared("skip", st, reason=_failure(st.rel, exc))
    try:
        _write(conn, prepared, known, written)
    except Exception as exc:
        if _database_failed(exc):
            raise
        raise _NoteFailed(st.rel, _failure(st.rel, exc)) from exc


def _failure(rel: str, exc: Exception) -> str:
    log.debug("indexing %s failed", escape_name(rel), exc_info=exc)
    return f"could not be indexed: {type(exc).__name__}: {exc}"


def _database_failed(exc: Exception) -> bool:
    """Whether ``exc`` is the database's failure (disk full, I/O error, locked, corrupt, or a
    statement of ours that is wrong), which no other note would escape either."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(
        exc, (sqlite3.IntegrityError, sqlite3.DataError)
    )


def _prepare(root: Path, st: FileStat, known: store.KnownNote | None) -> _Prepared:
    data = read_note(root, st.rel)
    if data is None:
        # Vanished between the scan and the read: it is gone, as far as the index is concerned.
        return _Prepared("gone", st)
    if isinstance(data, str):  # no longer a note (a link out, a FIFO) or unreadable
        return _Prepared("skip", st, reason=data)
    st = FileStat(st.rel, len(data), st.mtime_ns, st.birth_ns)
    digest = store.content_digest(data)
    if known is not None and known.hash == digest:
        return _Prepared("same", st)
    try:
        note = parse_note(st.rel, data, digest)
    except NotANote as exc:
        return _Prepared("skip", st, reason=str(exc))
    store.check_storable(note)
    return _Prepared("note", st, note=note, digest=digest)


def _write(
    conn: sqlite3.Connection,
    prepared: _Prepared,
    known: store.KnownNote | None,
    written: _Written,
) -> None:
    st, note = prepared.st, prepared.note
    report, link_keys = written.report, written.link_keys
    if prepared.kind == "same":
        store.touch_note(conn, st)
        report.unchanged += 1
        return
    if note is not None:
        if known is not None:
            link_keys.update(links.keys_of_path(conn, st.rel))
        moved = known is None and prepared.digest in written.deleted_hashes
        previous = written.stand_ins.get(prepared.digest) if moved else None
        store.upsert_note(
            conn, st, note, written.vector_changes, new=known is None, previous=previous
        )
        link_keys.update(links.keys_of(st.rel, note.links, note.aliases))
        # Not unlisted as skipped here: the sync rewrote the listings of every path it looks
        # at before it began (a statement a note, which never found anything to delete).
        if note.warnings:
            report.warnings[st.rel] = note.warnings
        if known is None:
            report.added.append(st.rel)
            if prepared.digest in written.deleted_hashes:
                report.renamed.append((written.deleted_hashes.pop(prepared.digest), st.rel))
        else:
            report.changed.append(st.rel)
        return
    if prepared.kind == "skip":
        store.set_skipped(conn, st.rel, prepared.reason)
        report.skipped[st.rel] = prepared.reason
    if known is not None and store.delete_note(conn, st.rel, link_keys, written.vector_changes):
        report.deleted.append(st.rel)


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
