"""Reading an index back as plain data, to compare indexes and check for leftovers."""

from __future__ import annotations

from typing import Any

from explorer.index.db import IndexDB


def snapshot(db: IndexDB, model: str | None = None) -> dict[str, Any]:
    """Everything a user could observe of an index, without row ids or timestamps."""
    c = db.conn
    notes = sorted(
        c.execute("SELECT path, title, tags, body, status, size, mtime_ns, hash FROM notes")
    )
    tags = sorted(
        c.execute("SELECT n.path, t.tag FROM note_tags t JOIN notes n ON n.id = t.note_id")
    )
    chunks = sorted(
        c.execute(
            "SELECT n.path, c.seq, c.start, c.end, c.hash "
            "FROM chunks c JOIN notes n ON n.id = c.note_id"
        )
    )
    vectors = sorted(c.execute("SELECT hash, model, dim, vec FROM vectors"))
    fts = sorted(
        c.execute(
            "SELECT n.path, f.title FROM notes_fts f JOIN notes n ON n.id = f.rowid "
            "WHERE notes_fts MATCH 'a OR the OR x OR note'"
        )
    )
    return {"notes": notes, "tags": tags, "chunks": chunks, "vectors": vectors, "fts": fts}


def table_counts(db: IndexDB) -> dict[str, int]:
    return {
        name: int(db.conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
        for name in ("notes", "note_tags", "chunks", "vectors", "skipped")
    }


def mentions(db: IndexDB, text: str) -> list[str]:
    """Tables in which ``text`` still appears anywhere (a deleted note must leave none)."""
    found = []
    for table, columns in {
        "notes": ("path", "title", "tags", "body"),
        "note_tags": ("tag",),
        "chunks": ("text",),
        "skipped": ("path",),
    }.items():
        where = " OR ".join(f"instr({col}, ?) > 0" for col in columns)
        count = db.conn.execute(
            f"SELECT count(*) FROM {table} WHERE {where}", [text] * len(columns)
        )
        if count.fetchone()[0]:
            found.append(table)
    if db.conn.execute(
        "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", ('"' + text + '"',)
    ).fetchone()[0]:
        found.append("notes_fts")
    return found
