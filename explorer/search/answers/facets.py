"""The facets of a result set: its notes' tags, folders and most frequent property values, with
how many of the notes have each, for the window to show beside the results (a click adds the
filter that :attr:`Facet.filter` writes).

The filters a query holds are found by the parser's reading (:func:`written_filters`), not by
their spelling: ``path:"my notes/"`` is the folder's facet however the query quotes it, a click
on an active facet cuts that filter out of the query (:func:`toggled_query`), and an active
filter stays listed, with no note, when no note shown has it (:func:`with_active`), so that a
click can always take it off again."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from explorer.search.query.query import parse_query, tokens
from explorer.search.query.quoting import filter_text

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
        tags=[Facet(t, c, filter_text("tag", t)) for t, c in _top(tags)],
        folders=[Facet(f, c, filter_text("path", f)) for f, c in _top(folders)],
        properties={
            key: [Facet(v, c, filter_text("property", v, key)) for v, c in _top(by_key[key])]
            for key in busiest
        },
    )


def _top(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_VALUES]


@dataclass(frozen=True, slots=True)
class WrittenFilter:
    """A filter a facet can write, as a query holds it: ``kind`` ``tag``, ``path`` or
    ``property`` (``name`` the property's, folded), its ``value``, and where it is."""

    kind: str
    name: str
    value: str
    start: int
    end: int

    @property
    def key(self) -> tuple[str, str, str]:
        """What two spellings of one filter share (values without case, as they compare)."""
        return self.kind, self.name, self.value.casefold()

    @property
    def filter(self) -> str:
        return filter_text(self.kind, self.value, self.name)


def written_filters(raw: str) -> list[WrittenFilter]:
    """The ``tag:``, ``path:`` and ``[name:value]`` filters of ``raw``, as the parser reads
    each token."""
    out: list[WrittenFilter] = []
    for match in tokens(raw):
        query = parse_query(match.group(0))
        found: tuple[str, str, str] | None = None
        if query.terms or query.excluded or query.notes:
            continue
        if query.tags:
            found = ("tag", "", query.tags[0])
        elif query.paths:
            found = ("path", "", query.paths[0])
        elif query.properties and query.properties[0].op == "=":
            prop = query.properties[0]
            found = None if prop.negative else ("property", prop.key, prop.value)
        if found is not None:
            out.append(WrittenFilter(*found, match.start(), match.end()))
    return out


def filter_key(token: str) -> tuple[str, str, str] | None:
    """The :attr:`WrittenFilter.key` of a facet's filter ``token`` (``None``: it is none)."""
    found = written_filters(token)
    return found[0].key if len(found) == 1 else None


def active_keys(query: str) -> set[tuple[str, str, str]]:
    """The :attr:`WrittenFilter.key` of every filter ``query`` holds (read once, to mark many
    facets by)."""
    return {w.key for w in written_filters(query)}


def holds_filter(query: str, token: str) -> bool:
    """Whether ``query`` holds the filter ``token``, however it is spelled there."""
    return filter_key(token) in active_keys(query)


def toggled_query(query: str, token: str) -> str:
    """``query`` with the filter ``token`` cut out where it holds it, else added at its end."""
    key = filter_key(token)
    held = [w for w in written_filters(query) if key is not None and w.key == key]
    if not held:
        return f"{query.strip()} {token}".strip()
    for w in reversed(held):
        query = f"{query[: w.start].rstrip()} {query[w.end :].lstrip()}"
    return query.strip()


def with_active(found: Facets, query: str) -> Facets:
    """``found`` with each facet filter of ``query`` that it does not list, with no note:
    what keeps an active filter on screen, to be clicked off."""
    listed = {filter_key(f.filter) for f in _every(found)}
    tags, folders = list(found.tags), list(found.folders)
    properties = {key: list(values) for key, values in found.properties.items()}
    for w in written_filters(query):
        if w.key in listed:
            continue
        listed.add(w.key)
        facet = Facet(w.value, 0, w.filter)
        if w.kind == "tag":
            tags.append(facet)
        elif w.kind == "path":
            folders.append(facet)
        else:
            properties.setdefault(w.name, []).append(facet)
    return replace(found, tags=tags, folders=folders, properties=properties)


def _every(found: Facets) -> list[Facet]:
    return [*found.tags, *found.folders, *(f for v in found.properties.values() for f in v)]
