"""The facets of a result set: its notes' tags, folders and most frequent property values, with
how many of the notes have each, for the window to show beside the results (a click adds the
filter that :attr:`Facet.filter` writes)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

#: Values shown per kind (tags, folders, each property), and properties shown.
TOP_VALUES = 10
TOP_PROPERTIES = 8


@dataclass(frozen=True, slots=True)
class Facet:
    """One value and the number of notes of the result set that have it."""

    label: str
    count: int
    #: The query text that keeps only these notes (``tag:ops``, ``path:dev/``, ``[status:open]``).
    filter: str


@dataclass(frozen=True, slots=True)
class Facets:
    tags: list[Facet]
    folders: list[Facet]
    #: The most frequent values of each property the notes have, by property name (folded).
    properties: dict[str, list[Facet]]


def facets(conn: sqlite3.Connection, paths: list[str]) -> Facets:
    """The facets of the notes at ``paths`` (a result set), most frequent first."""
    listed = json.dumps(sorted(set(paths)))
    ids = "SELECT n.id FROM notes n WHERE n.path IN (SELECT value FROM json_each(?))"
    tags = Counter(
        {
            str(tag): int(count)
            for tag, count in conn.execute(
                f"SELECT tag, count(*) FROM note_tags WHERE note_id IN ({ids}) GROUP BY tag",
                (listed,),
            )
        }
    )
    # A folder's filter (``path:plugins/``) finds the notes of its subfolders too: so does
    # its count, each note counted under every folder above it.
    folders = Counter(
        str(folder) + "/" for p in set(paths) for folder in PurePosixPath(p).parents if folder.name
    )
    by_key: dict[str, Counter[str]] = {}
    for key, text, count in conn.execute(
        "SELECT key, lower(text), count(DISTINCT note_id) FROM note_props "
        f"WHERE note_id IN ({ids}) AND text IS NOT NULL GROUP BY key, lower(text)",
        (listed,),
    ):
        by_key.setdefault(str(key), Counter())[str(text)] = int(count)
    # A property whose values each occur once (a description, a permalink) narrows to one
    # note a click: noise beside the results, left out.
    by_key = {key: counts for key, counts in by_key.items() if max(counts.values()) > 1}
    busiest = sorted(by_key, key=lambda k: (-sum(by_key[k].values()), k))[:TOP_PROPERTIES]
    return Facets(
        tags=[Facet(t, c, f"tag:{t}") for t, c in _top(tags)],
        folders=[Facet(f, c, f"path:{_quoted(f)}") for f, c in _top(folders)],
        properties={
            key: [Facet(v, c, f"[{key}:{_quoted(v)}]") for v, c in _top(by_key[key])]
            for key in busiest
        },
    )


def _top(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_VALUES]


def _quoted(value: str) -> str:
    return f'"{value}"' if any(ch.isspace() for ch in value) else value
