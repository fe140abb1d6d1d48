"""The order of the hits shown: relevance (the fused order, the default), or a note's date,
title or path (``SearchOptions.sort``, ``search --sort``).

The hits are the fused ranking cut to the limit, then put in the order asked for: a sort
changes the order of the best matches, never which notes they are.  Dates are newest first
(a note without a known creation time last); title and path from A to Z, without case.
"""

from __future__ import annotations

import sqlite3

from explorer.search.fusion.results import Hit

#: The orders, the first the default.
SORTS = ("relevance", "modified", "created", "title", "path")


def sort_hits(conn: sqlite3.Connection, hits: list[Hit], sort: str) -> list[Hit]:
    """``hits`` (in fused order) in the order ``sort`` names; stable, so ties keep the fused
    order."""
    if sort == "relevance" or len(hits) < 2:
        return list(hits)
    if sort == "title":
        return sorted(hits, key=lambda h: (h.title.casefold(), h.path))
    if sort == "path":
        return sorted(hits, key=lambda h: h.path.casefold())
    dates = _dates(conn, [h.path for h in hits], sort)
    oldest = min((t for t in dates.values() if t is not None), default=0) - 1  # unknown: last
    return sorted(hits, key=lambda h: -_known(dates.get(h.path), oldest))


def _known(time: int | None, otherwise: int) -> int:
    return otherwise if time is None else time


def _dates(conn: sqlite3.Connection, paths: list[str], sort: str) -> dict[str, int | None]:
    marks = ", ".join("?" * len(paths))
    if sort == "modified":
        sql = f"SELECT path, mtime_ns FROM notes WHERE path IN ({marks})"
    elif sort == "created":
        sql = (
            "SELECT n.path, c.created_us FROM notes n LEFT JOIN note_creation c "
            f"ON c.note_id = n.id WHERE n.path IN ({marks})"
        )
    else:
        raise ValueError(f"unknown sort {sort!r}")
    return {str(p): None if t is None else int(t) for p, t in conn.execute(sql, paths)}
