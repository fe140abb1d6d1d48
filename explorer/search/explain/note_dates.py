"""When a note was modified and created, as the index knows it, and where its creation time
comes from (the window shows it under the preview's title)."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
from dataclasses import dataclass

#: Where a creation time comes from (``note_creation.source``), as a person reads it.
CREATED_FROM = {
    "frontmatter": "from its frontmatter",
    "file": "the file's birth time",
    "indexed": "not recorded",
}


@dataclass(frozen=True, slots=True)
class NoteDates:
    modified_ns: int
    #: In microseconds since 1970 (any year from 1 to 9999).
    created_us: int | None
    #: ``frontmatter``, ``file`` or ``indexed`` (see :data:`CREATED_FROM`).
    created_from: str | None

    def line(self, *, tz: dt.tzinfo | None = None) -> str:
        """ "modified 2026-12-01 14:03 · created 2024-03-14 (from its frontmatter)", in ``tz``
        (default: the machine's time zone); never created after modified, except as a note's
        frontmatter says."""
        modified_us = self.modified_ns // 1000
        text = f"modified {_moment(modified_us, tz)}"
        if self.created_us is not None and (
            self.created_from == "indexed"
            or (self.created_from == "file" and self.created_us > modified_us)
        ):
            # The first index, or a copied file's birth after its last change, says only that
            # the note existed by then (by its last change at the latest), not since when.
            when = _moment(min(self.created_us, modified_us), tz)
            return f"{text} · created {when} or before (not recorded)"
        if self.created_us is not None:
            source = CREATED_FROM.get(self.created_from or "", self.created_from or "")
            if self.created_from == "frontmatter":  # the day as written, not moved to a zone
                when = _moment(self.created_us, dt.UTC).removesuffix(" 00:00")
            else:
                when = _moment(self.created_us, tz)
            text += f" · created {when} ({source})"
        return text


def note_dates(conn: sqlite3.Connection, path: str) -> NoteDates | None:
    """The dates of the note at ``path``, or ``None`` when the index has no such note."""
    row = conn.execute(
        "SELECT n.mtime_ns, c.created_us, c.source FROM notes n "
        "LEFT JOIN note_creation c ON c.note_id = n.id WHERE n.path = ?",
        (path,),
    ).fetchone()
    if row is None:
        return None
    return NoteDates(int(row[0]), None if row[1] is None else int(row[1]), row[2])


def moment(us: int) -> dt.datetime:
    """The moment ``us`` microseconds after 1970 name, UTC, of any year from 1 to 9999 (the
    nearest of them beyond it)."""
    return _EPOCH + dt.timedelta(microseconds=max(_FIRST_US, min(_LAST_US, us)))


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_FIRST_US = (dt.datetime.min.replace(tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(microseconds=1)
_LAST_US = (dt.datetime.max.replace(tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(microseconds=1)


def _moment(us: int, tz: dt.tzinfo | None) -> str:
    """``us`` as its day and minute in ``tz`` (``None``: the machine's zone)."""
    when = moment(us)
    with contextlib.suppress(OverflowError):  # the calendar's first or last day, in UTC
        when = when.astimezone(tz)
    return minute_text(when)


def minute_text(when: dt.datetime) -> str:
    """``2024-03-14 10:30``, the year in four digits for every year (``0044``)."""
    return f"{when.year:04d}-{when.month:02d}-{when.day:02d} {when.hour:02d}:{when.minute:02d}"
