"""Writing notes, tags and chunks; reading what the index knows about the files.

Every function here expects the caller to hold a transaction (see :meth:`IndexDB.transaction`),
so that a note, its tags, its chunks and its FTS row always change together.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass

from explorer.index import links
from explorer.index.text import drop_invisible, searchable
from explorer.vault.language import detect
from explorer.vault.parse import ParsedNote, content_hash
from explorer.vault.scan import FileStat, escape_name


@dataclass(frozen=True, slots=True)
class KnownNote:
    """What the index recorded about a note file, to decide whether it changed."""

    id: int
    path: str
    size: int
    mtime_ns: int
    hash: str
    indexed_ns: int


def chunk_hash(text: str) -> str:
    """Key of a chunk's vector: the hash of exactly the text that is embedded."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def content_digest(data: bytes) -> str:
    """The content hash of a note file (same as :func:`explorer.vault.parse.content_hash`)."""
    return content_hash(data)


def known_notes(conn: sqlite3.Connection, prefix: str | None = None) -> dict[str, KnownNote]:
    """Every note, or those whose path starts with ``prefix``."""
    sql = "SELECT id, path, size, mtime_ns, hash, indexed_ns FROM notes"
    params: tuple[object, ...] = ()
    if prefix:
        # A range over the unique index on ``path`` (binary collation) instead of a scan of every
        # note: the watcher asks this once per path of a batch.
        sql += " WHERE path >= ? AND path < ?"
        params = (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1))
    return {row[1]: KnownNote(*row) for row in conn.execute(sql, params)}


def known_note(conn: sqlite3.Connection, path: str) -> KnownNote | None:
    row = conn.execute(
        "SELECT id, path, size, mtime_ns, hash, indexed_ns FROM notes WHERE path = ?", (path,)
    ).fetchone()
    return None if row is None else KnownNote(*row)


def log_vector_changes(conn: sqlite3.Connection, note_ids: Iterable[int]) -> None:
    """Record that the chunk or vector rows of these notes changed: one write of
    ``vector_changes``, all of them under the next ``seq`` (what a loaded vector matrix
    catches up from, :meth:`explorer.index.vectors.VectorIndex.refresh`).

    Every function here that writes chunks or vectors calls it, at once or (given a set to
    collect the notes in) once for a whole transaction, as the sync does."""
    ids = sorted(set(note_ids))
    if ids:
        conn.execute(_LOG_CHANGES, (json.dumps(ids),))


_LOG_CHANGES = (
    "INSERT INTO vector_changes(note_id, seq) "
    "SELECT value, (SELECT coalesce(max(seq), 0) + 1 FROM vector_changes) FROM json_each(?) "
    "WHERE true ON CONFLICT(note_id) DO UPDATE SET seq = excluded.seq"
)


def _changed(conn: sqlite3.Connection, note_id: int, changes: set[int] | None) -> None:
    if changes is None:
        log_vector_changes(conn, (note_id,))
    else:
        changes.add(note_id)


#: The frontmatter properties that say when a note was created, in order of preference.
CREATED_PROPERTIES = ("created", "date")


def created_of(note: ParsedNote, st: FileStat, now_ns: int) -> tuple[int, str]:
    """When the note was created, in microseconds since 1970 (which hold any year a date
    property has, 1 to 9999: nanoseconds end in 2262), and where that comes from: the
    frontmatter's ``created`` or ``date`` (a date), else the file's birth time where the
    platform records it, else ``now_ns`` (its first index: an update keeps the first one,
    :func:`upsert_note`)."""
    for name in CREATED_PROPERTIES:
        for prop in note.properties:
            if prop.key == name and prop.kind == "date" and prop.num is not None:
                return round(prop.num * 1_000_000), "frontmatter"
    if st.birth_ns:
        return st.birth_ns // 1000, "file"
    return now_ns // 1000, "indexed"


def upsert_note(
    conn: sqlite3.Connection,
    st: FileStat,
    note: ParsedNote,
    changes: set[int] | None = None,
    *,
    new: bool = False,
    previous: StandIns | None = None,
) -> int:
    """Insert or replace the note at ``st.rel`` with its tags, chunks, aliases and links;
    returns its id.  The links of the keys :func:`explorer.index.links.keys_of` gives (before
    and after) must then be resolved again (:func:`explorer.index.links.resolve_keys`).
    When its chunks change, the note goes into ``changes``, for the caller to log with
    :func:`log_vector_changes` before the transaction ends (``None``: logged here).

    The text searched is what a reader sees (a link's shown text, not its syntax); the chunks
    keep their spans in the note's own text, which the preview scrolls to.  ``new``: the caller
    knows that no note is at ``st.rel`` (as a sync does, from the notes it read when it
    began), and it is not looked up.  ``previous``: the vectors of a note renamed to
    ``st.rel`` (:func:`stand_ins_of`).

    A chunk whose own text is as it was but whose embedded text changed (a renamed note's
    title, a heading above it, a new :data:`~explorer.vault.parse.EMBED_FORM`) keeps the
    vector it had as a stand-in (``old_hash``) until its own is embedded: searched
    throughout, re-embedded in the background after the chunks that have no vector at all.
    """
    text = note.search_text
    body = searchable(text)
    now_ns = time.time_ns()
    created_us, created_from = created_of(note, st, now_ns)
    words = (drop_invisible(note.title), " ".join(note.tags), body)  # what notes_fts holds
    values = (
        *words,
        note.status,
        st.size,
        st.mtime_ns,
        note.content_hash,
        note.body_start,
        "\n".join(note.warnings) or None,
        now_ns,
        links.name_key(st.rel),
        links.path_key(st.rel),
        detect(text),
    )
    row = None if new else conn.execute("SELECT id FROM notes WHERE path = ?", (st.rel,)).fetchone()
    if row is None:
        cur = conn.execute(
            "INSERT INTO notes(title, tags, body, status, size, mtime_ns, hash, body_start, "
            "warnings, indexed_ns, name_key, path_key, language, path) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*values, st.rel),
        )
        note_id = int(cur.lastrowid or 0)
        # Its words in a statement of their own (a trigger's would flush them as a segment of
        # their own: see migration 12); a change or a deletion has its trigger.  This is the
        # one insert into ``notes``: another would have to write its words too, or the
        # external-content table would be told to delete words it never held.
        conn.execute(
            "INSERT INTO notes_fts(rowid, title, tags, body) VALUES (?, ?, ?, ?)",
            (note_id, *words),
        )
    else:
        note_id = int(row[0])
        conn.execute(
            "UPDATE notes SET title = ?, tags = ?, body = ?, status = ?, size = ?, mtime_ns = ?, "
            "hash = ?, body_start = ?, warnings = ?, indexed_ns = ?, name_key = ?, path_key = ?, "
            "language = ? WHERE id = ?",
            (*values, note_id),
        )
        conn.execute("DELETE FROM note_tags WHERE note_id = ?", (note_id,))
        conn.execute("DELETE FROM note_props WHERE note_id = ?", (note_id,))
    conn.executemany(
        "INSERT INTO note_tags(note_id, tag) VALUES (?, ?)", [(note_id, t) for t in note.tags]
    )
    # The first index time stays the note's creation while nothing better is known.
    conn.execute(
        "INSERT INTO note_creation(note_id, created_us, source) VALUES (?, ?, ?) "
        "ON CONFLICT(note_id) DO UPDATE SET created_us = excluded.created_us, "
        "source = excluded.source WHERE NOT (excluded.source = 'indexed' AND source = 'indexed')",
        (note_id, created_us, created_from),
    )
    conn.executemany(
        "INSERT INTO note_props(note_id, key, seq, name, kind, text, num) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(note_id, p.key, p.seq, p.name, p.kind, p.text, p.num) for p in note.properties],
    )
    rows = []
    for seq, chunk in enumerate(note.chunks):
        text = note.embed_text(chunk)
        rows.append((note_id, seq, chunk.start, chunk.end, chunk_hash(text), text))
    # Chunks as they were are left alone: a write that changes no chunk (a tag, a status, a
    # link) then changes no vector row either (``vector_changes`` stays as it is).
    if row is None or _chunk_keys(conn, note_id) != [r[1:5] for r in rows]:
        if previous is None and row is not None:
            previous = _stand_ins(conn, note_id, note)
        if row is not None:
            conn.execute("DELETE FROM chunks WHERE note_id = ?", (note_id,))
        conn.executemany(
            "INSERT INTO chunks(note_id, seq, start, end, hash, text, old_hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(*r, _stand_in(conn, previous, r[2], r[3], r[4])) for r in rows],
        )
        _changed(conn, note_id, changes)
    links.write_links(conn, note_id, note.text, note.links, note.aliases, fresh=row is None)
    return note_id


#: (start, end) of a chunk -> the hash of the vector that answers for it until its own lands.
StandIns = dict[tuple[int, int], str]


def stand_ins_of(conn: sqlite3.Connection, note_id: int) -> StandIns:
    """The vectors of a note's chunks, by span, for the note written next with the same
    content under another name (a rename: the same text, so the same spans and bodies)."""
    return {
        (int(a), int(b)): str(h)
        for a, b, h in conn.execute(
            "SELECT start, end, coalesce(old_hash, hash) FROM chunks WHERE note_id = ?",
            (note_id,),
        )
    }


def _stand_ins(conn: sqlite3.Connection, note_id: int, note: ParsedNote) -> StandIns:
    """The vectors of the note's chunks whose own text stays as it was: only where it stands
    (its title, its headings) changed, so the vector it had still answers for it meanwhile."""
    out: StandIns = {}
    bodies = {(c.start, c.end): c.text for c in note.chunks}
    for a, b, h, old, text in conn.execute(
        "SELECT start, end, hash, old_hash, text FROM chunks WHERE note_id = ?", (note_id,)
    ):
        body = bodies.get((int(a), int(b)))
        if body is not None and (text == body or str(text).endswith("\n" + body)):
            out[(int(a), int(b))] = str(old or h)
    return out


def _stand_in(
    conn: sqlite3.Connection, previous: StandIns | None, start: int, end: int, digest: str
) -> str | None:
    """The vector that answers for a new chunk text until its own is embedded: the one the
    same chunk had, if it has none of its own yet and that one exists."""
    old = previous.get((start, end)) if previous else None
    if old is None or old == digest:
        return None
    has = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM vectors WHERE hash = ?), "
        "EXISTS (SELECT 1 FROM vectors WHERE hash = ?)",
        (digest, old),
    ).fetchone()
    return old if not has[0] and has[1] else None


def _chunk_keys(conn: sqlite3.Connection, note_id: int) -> list[tuple[int, int, int, str]]:
    """(seq, start, end, hash) of each chunk the note has in the index, in order."""
    return [
        (int(q), int(a), int(b), str(h))
        for q, a, b, h in conn.execute(
            "SELECT seq, start, end, hash FROM chunks WHERE note_id = ? ORDER BY seq", (note_id,)
        )
    ]


def check_storable(note: ParsedNote) -> None:
    """Raise ``ValueError`` if some text of ``note`` cannot be stored (bound as UTF-8), so that
    nothing of it is written.  Parsing never makes such text; this keeps it so."""
    for text in (
        note.title,
        note.status or "",
        note.text,
        *note.tags,
        *note.warnings,
        *note.aliases,
        *(p.name for p in note.properties),
        *(p.text or "" for p in note.properties),
    ):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"text that is not valid Unicode ({exc.reason})") from None


def touch_note(conn: sqlite3.Connection, st: FileStat) -> None:
    """Record new stats for a note whose content did not change."""
    conn.execute(
        "UPDATE notes SET size = ?, mtime_ns = ?, indexed_ns = ? WHERE path = ?",
        (st.size, st.mtime_ns, time.time_ns(), st.rel),
    )


def delete_note(
    conn: sqlite3.Connection,
    path: str,
    link_keys: set[str] | None = None,
    changes: set[int] | None = None,
) -> bool:
    """Remove a note and (by cascade and trigger) its tags, chunks, links and FTS row; the
    links to it are unresolved, and its names go into ``link_keys`` to be resolved again.
    The note goes into ``changes`` as :func:`upsert_note` says."""
    if link_keys is not None:
        link_keys.update(links.keys_of_path(conn, path))
    gone = conn.execute("DELETE FROM notes WHERE path = ? RETURNING id", (path,)).fetchall()
    for (note_id,) in gone:
        _changed(conn, int(note_id), changes)
    return bool(gone)


def delete_orphan_vectors(conn: sqlite3.Connection) -> int:
    """Vectors whose text no chunk has any more: a deleted note leaves nothing behind."""
    cur = conn.execute(
        "DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.hash = vectors.hash) "
        "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.old_hash = vectors.hash)"
    )
    return cur.rowcount


#: FTS5's merge settings: its defaults, and while a merge into one segment is owed (no
#: incremental merging but in a crisis, at this many segments of one level; FTS5's own is 16).
WORD_MERGES = {"automerge": 4, "crisismerge": 16}
DEFERRED_MERGES = {"automerge": 0, "crisismerge": 64}


def defer_merges(conn: sqlite3.Connection) -> None:
    """Stop FTS5's incremental merging until :func:`optimize_words`: each transaction adds a
    segment, and FTS5 merges them as they come, rewriting the same entries level after level;
    a sync that ends with one merge of everything need not (40,000 generated notes' words
    written 250 a transaction: 15.5 s with the merges, 10.5 s without).  Written in the
    transaction that owes the merge, so no kill leaves one without the other."""
    _set_merges(conn, DEFERRED_MERGES)


def optimize_words(conn: sqlite3.Connection) -> None:
    """Merge the FTS5 index into one segment (what a query then reads once per word), and let
    FTS5 merge incrementally again."""
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('optimize')")
    _set_merges(conn, WORD_MERGES)


def _set_merges(conn: sqlite3.Connection, settings: dict[str, int]) -> None:
    for name, value in settings.items():  # names and values of ours: no user text
        conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES (?, ?)", (name, value))


def set_skipped(conn: sqlite3.Connection, path: str, reason: str | None) -> None:
    """List ``path`` as skipped with ``reason`` (``None``: no longer).  A name that is not valid
    UTF-8 is listed escaped (``caf\\xe9.md``), as the scanner names it."""
    path = escape_name(path)
    if reason is None:
        conn.execute("DELETE FROM skipped WHERE path = ?", (path,))
    else:
        conn.execute(
            "INSERT INTO skipped(path, reason) VALUES (?, ?) "
            "ON CONFLICT(path) DO UPDATE SET reason = excluded.reason",
            (path, escape_name(reason)),
        )


def clear_skipped(conn: sqlite3.Connection, path: str) -> None:
    """Forget the skipped listings of ``path`` and of everything below it (a folder)."""
    path = escape_name(path)
    conn.execute(
        "DELETE FROM skipped WHERE path = ? OR (path >= ? AND path < ?)",
        (path, path + "/", path + "0"),  # "0" follows "/": the range of paths below it
    )
