"""When a note was modified and created, as the index knows it, and where its creation time
comes from (the window shows it under the preview's title)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass

#: Where a creation time comes from (``note_created.source``), as a person reads it.
CREATED_FROM = {
    "frontmatter": "from its frontmatter",
    "file": "the file's birth time",
    "indexed": "not recorded",
}


@dataclass(frozen=True, slots=True)
class NoteDates:
    modified_ns: int
    created_ns: int | None
    #: ``frontmatter``, ``file`` or ``indexed`` (see :data:`CREATED_FROM`).
    created_from: str | None

    def line(self, *, tz: dt.tzinfo | None = None) -> str:
        """ "modified 2026-12-01 14:03 · created 2024-03-14 (from its frontmatter)", in ``tz``
        (default: the machine's time zone); never created after modified, except as a note's
        frontmatter says."""
        modified = _moment(self.modified_ns, tz)
        text = f"modified {modified}"
        if self.created_ns is not None and (
            self.created_from == "indexed"
            or (self.created_from == "file" and self.created_ns > self.modified_ns)
        ):
            # The first index, or a copied file's birth after its last change, says only that
            # the note existed by then (by its last change at the latest), not since when.
            when = _moment(min(self.created_ns, self.modified_ns), tz)
            return f"{text} · created {when} or before (not recorded)"
        if self.created_ns is not None:
            source = CREATED_FROM.get(self.created_from or "", self.created_from or "")
            if self.created_from == "frontmatter":  # the day as written, not moved to a zone
                when = _moment(self.created_ns, dt.UTC).removesuffix(" 00:00")
            else:
                when = _moment(self.created_ns, tz)
            text += f" · created {when} ({source})"
        return text


def note_dates(conn: sqlite3.Connection, path: str) -> NoteDates | None:
    """The dates of the note at ``path``, or ``None`` when the index has no such note."""
    row = conn.execute(
        "SELECT n.mtime_ns, c.created_ns, c.source FROM notes n "
        "LEFT JOIN note_created c ON c.note_id = n.id WHERE n.path = ?",
        (path,),
    ).fetchone()
    if row is None:
        return None
    return NoteDates(int(row[0]), None if row[1] is None else int(row[1]), row[2])


def _moment(ns: int, tz: dt.tzinfo | None) -> str:
    moment = dt.datetime.fromtimestamp(ns / 1e9, tz or dt.UTC)
    if tz is None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")
