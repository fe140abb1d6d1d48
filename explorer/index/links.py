"""Links between notes in the index: storing them, keeping them resolved, reading them back.

Each link row keeps what the link says and ``to_id``, the note it resolves to by Obsidian's rules
(:class:`explorer.vault.links.Resolver`).  A link can only resolve to a note whose name, or one
of whose aliases, folds to the link's ``target_key``; so whenever notes are written or deleted,
the links of exactly those keys are resolved again (:func:`resolve_keys`), against just the
notes of those keys.  A target created or renamed into place turns its links from unresolved to
resolved; a deleted note's incoming links fall to the next note of that name, or to ``NULL``.

Measured on the tldr vault (7,425 notes): resolving at each write costs the sync one indexed
query per batch of notes, where resolving at read time would build a resolver of every note
for each filtered search; and ``linkto:`` / ``linkedfrom:`` stay plain SQL, so they restrict
the lexical and the vector list through the same clause as ``tag:`` and ``path:``.
"""

from __future__ import annotations

import functools
import json
import posixpath
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explorer.vault.links import (
    Link,
    Resolver,
    fold,
    is_attachment_name,
    link_text,
    note_name,
)
from explorer.vault.note_path import BadNotePath, readings

#: Characters of a backlink's line kept for display.
CONTEXT_CHARS = 300
#: Meta key set while some links may be unresolved (a sync that resolves them at its end).
UNRESOLVED_META = "links_unresolved"


@dataclass(frozen=True, slots=True)
class Backlink:
    """A note that links to the one asked about, with the line that links."""

    path: str
    title: str
    line: int
    text: str
    embed: bool


@dataclass(frozen=True, slots=True)
class OutLink:
    """A link of a note: where it leads (``None``: unresolved) and how it reads."""

    target: str
    path: str | None
    shown: str
    heading: str | None
    block: str | None
    embed: bool
    markdown: bool
    line: int


@functools.lru_cache(maxsize=65536)
def name_key(target: str) -> str:
    """The key a link target is looked up by: its folded name (``Folder/My note.md`` →
    ``my note``); an attachment keeps its extension (``diagram.png``)."""
    target = target.strip().replace("\\", "/")
    if is_attachment_name(target):
        return fold(target.rstrip("/").rsplit("/", 1)[-1])
    return fold(note_name(target))


def path_key(path: str) -> str:
    """The folded path without a note extension (``Guides/Setup.md`` → ``guides/setup``)."""
    name = note_name(path)
    folder = posixpath.dirname(path)
    return fold(f"{folder}/{name}" if folder else name)


def _contexts(text: str, links: Sequence[Link]) -> list[str]:
    """The line of each link, as a reader sees it.  The links come in order, so those of a line
    are neighbours: each line is made once, from its own links (a note of 40,000 link lines
    once took 27 s here, rescanning every link for each line)."""
    out: list[str] = []
    first = 0
    while first < len(links):
        link = links[first]
        last = first + 1
        while last < len(links) and links[last].line == link.line:
            last += 1
        start = text.rfind("\n", 0, link.start) + 1
        end = text.find("\n", link.end)
        end = len(text) if end < 0 else end
        shown = link_text(text, links[first:last], start, end).strip()[:CONTEXT_CHARS]
        out.extend([shown] * (last - first))
        first = last
    return out


def keys_of(path: str, links: Sequence[Link], aliases: Sequence[str]) -> set[str]:
    """The keys a note at ``path`` with these links and aliases touches: its own names, and
    its links' targets."""
    keys = {name_key(path), *(fold(a) for a in aliases if a.strip())}
    keys.update(name_key(link.target) for link in links if link.target)
    keys.discard("")
    return keys


def write_links(
    conn: sqlite3.Connection,
    note_id: int,
    text: str,
    links: Sequence[Link],
    aliases: Sequence[str],
    *,
    fresh: bool = False,
) -> None:
    """Store the aliases and links of note ``note_id`` (whose ``name_key`` and ``path_key`` the
    caller wrote with the note), replacing what it had (``fresh``: it had nothing).  The new
    links start unresolved (but for ``[[#Heading]]``, the note itself): resolving the keys of
    :func:`keys_of` (and the note's keys before, :func:`keys_of_path`) resolves them."""
    if not fresh:
        conn.execute("DELETE FROM note_aliases WHERE note_id = ?", (note_id,))
        conn.execute("DELETE FROM links WHERE note_id = ?", (note_id,))
    alias_rows = {fold(a): a for a in aliases if a.strip()}
    if alias_rows:
        conn.executemany(
            "INSERT INTO note_aliases(note_id, alias, key) VALUES (?, ?, ?)",
            [(note_id, alias, key) for key, alias in alias_rows.items()],
        )
    if not links:
        return
    rows = []
    contexts = _contexts(text, links)
    for seq, link in enumerate(links):
        rows.append(
            (
                note_id,
                seq,
                link.target,
                name_key(link.target) if link.target else "",
                link.heading,
                link.block,
                link.shown,
                int(link.embed),
                int(link.markdown),
                link.line,
                contexts[seq],
                note_id if not link.target else None,
            )
        )
    conn.executemany(
        "INSERT INTO links(note_id, seq, target, target_key, heading, block, shown, embed, "
        "markdown, line, context, to_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def note_keys(conn: sqlite3.Connection, note_id: int) -> set[str]:
    """The keys (name and aliases) note ``note_id`` answers to now."""
    keys = {
        str(row[0])
        for row in conn.execute("SELECT name_key FROM notes WHERE id = ?", (note_id,))
        if row[0]
    }
    keys.update(
        str(row[0])
        for row in conn.execute("SELECT key FROM note_aliases WHERE note_id = ?", (note_id,))
    )
    return keys


def all_keys(conn: sqlite3.Connection) -> set[str]:
    """Every target key of every link."""
    return {str(r[0]) for r in conn.execute("SELECT DISTINCT target_key FROM links")}


def keys_of_path(conn: sqlite3.Connection, path: str) -> set[str]:
    """The keys of the note at ``path`` (none if the index does not hold it)."""
    row = conn.execute("SELECT id FROM notes WHERE path = ?", (path,)).fetchone()
    return set() if row is None else note_keys(conn, int(row[0]))


def resolve_keys(conn: sqlite3.Connection, keys: Iterable[str]) -> int:
    """Resolve again every link whose target key is one of ``keys``; returns how many changed."""
    wanted = sorted({k for k in keys if k})
    if not wanted:
        return 0
    param = json.dumps(wanted)
    # A wikilink to a bare name (almost every link) resolves in SQL: the shortest path of that
    # name, else of that alias (the Resolver's rules for a name; tested to agree).
    simple = conn.execute(_RESOLVE_NAMES, (param,)).rowcount
    rows = conn.execute(
        "SELECT l.note_id, l.seq, l.target, l.target_key, l.markdown, l.to_id, n.path "
        "FROM links l JOIN notes n ON n.id = l.note_id "
        "WHERE l.target_key IN (SELECT value FROM json_each(?)) "
        f"AND NOT ({_SIMPLE})",
        (param,),
    ).fetchall()
    if not rows:
        return simple
    present = sorted({str(r[3]) for r in rows})
    candidates: dict[str, list[tuple[int, str, str | None]]] = {}
    for note_id, path, key, alias in conn.execute(
        "SELECT id, path, name_key, NULL FROM notes "
        "WHERE name_key IN (SELECT value FROM json_each(?1)) "
        "UNION ALL SELECT n.id, n.path, a.key, a.alias FROM note_aliases a "
        "JOIN notes n ON n.id = a.note_id WHERE a.key IN (SELECT value FROM json_each(?1))",
        (json.dumps(present),),
    ):
        candidates.setdefault(str(key), []).append((int(note_id), str(path), alias))
    resolvers: dict[str, tuple[Resolver, dict[str, int]]] = {}
    changed = []
    for note_id, seq, target, key, markdown, to_id, source in rows:
        if key not in resolvers:
            found = candidates.get(key, [])
            names: dict[str, list[str]] = {}
            for _, path, alias in found:
                names.setdefault(path, [])
                if alias is not None:
                    names[path].append(alias)
            resolvers[key] = (Resolver(names.items()), {p: i for i, p, _ in found})
        resolver, ids = resolvers[key]
        resolved = resolver.resolve(target, source, markdown=bool(markdown))
        new_id = ids.get(resolved) if resolved is not None else None
        if new_id != to_id:
            changed.append((new_id, note_id, seq))
    conn.executemany("UPDATE links SET to_id = ? WHERE note_id = ? AND seq = ?", changed)
    return simple + len(changed)


_DEPTH = "(length({a}.path) - length(replace({a}.path, '/', '')))"
#: Links whose target is a bare name: no folder, not a markdown link (those need the source's
#: folder, :class:`~explorer.vault.links.Resolver`).
_SIMPLE = "l.markdown = 0 AND instr(l.target, '/') = 0"
_RESOLVE_NAMES = f"""
    UPDATE links AS l SET to_id = coalesce(
        (SELECT n.id FROM notes n WHERE n.name_key = l.target_key
         ORDER BY {_DEPTH.format(a="n")}, length(n.path), n.path LIMIT 1),
        (SELECT n.id FROM note_aliases a JOIN notes n ON n.id = a.note_id WHERE a.key = l.target_key
         ORDER BY {_DEPTH.format(a="n")}, length(n.path), n.path LIMIT 1))
    WHERE l.target_key IN (SELECT value FROM json_each(?)) AND {_SIMPLE}
    """


def _note_id(conn: sqlite3.Connection, path: str) -> int | None:
    row = conn.execute("SELECT id FROM notes WHERE path = ?", (path,)).fetchone()
    return None if row is None else int(row[0])


def backlinks(conn: sqlite3.Connection, path: str) -> list[Backlink]:
    """The links of other notes to ``path``, by note path then line."""
    note_id = _note_id(conn, path)
    if note_id is None:
        return []
    rows = conn.execute(
        "SELECT n.path, n.title, l.line, l.context, l.embed FROM links l "
        "JOIN notes n ON n.id = l.note_id WHERE l.to_id = ? AND l.note_id != ? "
        "ORDER BY n.path, l.line, l.seq",
        (note_id, note_id),
    ).fetchall()
    out: list[Backlink] = []
    seen: set[tuple[str, int]] = set()
    for src, title, line, context, embed in rows:
        if (src, line) in seen:  # two links on one line: the line once
            continue
        seen.add((src, line))
        out.append(Backlink(str(src), str(title), int(line), str(context), bool(embed)))
    return out


def outlinks(conn: sqlite3.Connection, path: str) -> list[OutLink]:
    """The links of ``path`` in the order written (unresolved ones with ``path`` ``None``)."""
    note_id = _note_id(conn, path)
    if note_id is None:
        return []
    rows = conn.execute(
        "SELECT l.target, t.path, l.shown, l.heading, l.block, l.embed, l.markdown, l.line "
        "FROM links l LEFT JOIN notes t ON t.id = l.to_id WHERE l.note_id = ? ORDER BY l.seq",
        (note_id,),
    ).fetchall()
    return [
        OutLink(str(a), None if b is None else str(b), str(c), d, e, bool(f), bool(g), int(h))
        for a, b, c, d, e, f, g, h in rows
    ]


def linked_paths(conn: sqlite3.Connection, path: str) -> set[str]:
    """Notes ``path`` links to or is linked from (itself excluded)."""
    note_id = _note_id(conn, path)
    if note_id is None:
        return set()
    rows = conn.execute(
        "SELECT n.path FROM links l JOIN notes n ON n.id = l.to_id WHERE l.note_id = ?1 "
        "UNION SELECT n.path FROM links l JOIN notes n ON n.id = l.note_id WHERE l.to_id = ?1",
        (note_id,),
    )
    return {str(r[0]) for r in rows} - {path}


def note_names(
    conn: sqlite3.Connection, paths: Iterable[str] | None = None
) -> dict[str, list[str]]:
    """Every note of the index (or those of ``paths`` it holds), its path to its aliases as its
    sync read them."""
    where, params = ("", ()) if paths is None else (_IN_PATHS, (json.dumps(sorted(paths)),))
    names: dict[str, list[str]] = {
        str(r[0]): [] for r in conn.execute(f"SELECT path FROM notes n {where}", params)
    }
    for path, alias in conn.execute(
        "SELECT n.path, a.alias FROM note_aliases a JOIN notes n ON n.id = a.note_id "
        f"{where} ORDER BY n.path, a.alias",
        params,
    ):
        names.setdefault(str(path), []).append(str(alias))
    return names


_IN_PATHS = "WHERE n.path IN (SELECT value FROM json_each(?))"


def resolver(conn: sqlite3.Connection) -> Resolver:
    """A resolver over every note of the index (paths and aliases).  Attachments are not
    indexed: images are found on disk by the caller."""
    return Resolver(note_names(conn).items())


# ----------------------------------------------------------------------------- filters


def note_sql(value: str) -> tuple[str, list[object]]:
    """A subquery giving the id of the note ``value`` names (``linkto:VALUE``): the note whose
    id it is (:func:`explorer.vault.note_path.readings`, as ``get_note`` reads a path), else a
    vault path with or without ``.md``, a path suffix, or a note name or alias, by the
    Resolver's rules."""
    sql, params = _named_sql(value)
    try:
        exact = readings(value.strip())
    except BadNotePath:
        return sql, params
    marks = ", ".join("?" * len(exact))
    first = f"(SELECT e.id FROM notes e WHERE e.path IN ({marks}) ORDER BY e.path = ? DESC LIMIT 1)"
    return f"COALESCE({first}, {sql})", [*exact, exact[0], *params]


def _named_sql(value: str) -> tuple[str, list[object]]:
    """:func:`note_sql` by the Resolver's rules alone."""
    value = value.strip().replace("\\", "/").strip("/")
    key = name_key(value)
    order = f"ORDER BY pri, {_DEPTH.format(a='t')}, length(t.path), t.path LIMIT 1"
    if "/" in value:
        want = path_key(posixpath.normpath(value))
        sql = (
            "(SELECT id FROM (SELECT t.id, 0 AS pri, t.path FROM notes t WHERE t.name_key = ? "
            "AND (t.path_key = ? OR substr(t.path_key, -length(?) - 1) = '/' || ?)) AS t "
            f"{order})"
        )
        return sql, [key, want, want, want]
    sql = (
        "(SELECT id FROM (SELECT t.id, 0 AS pri, t.path FROM notes t WHERE t.name_key = ? "
        "UNION ALL SELECT t.id, 1, t.path FROM note_aliases a JOIN notes t ON t.id = a.note_id "
        f"WHERE a.key = ?) AS t {order})"
    )
    return sql, [key, key]


def link_filter_sql(kind: str, value: str, alias: str = "n") -> tuple[str, list[object]]:
    """SQL condition on ``notes`` as ``alias``: ``linkto`` (notes linking to ``value``) or
    ``linkedfrom`` (notes ``value`` links to).  A value that names no note passes nothing."""
    ids, params = link_ids_sql(kind, value)
    return f"{alias}.id IN ({ids})", params


def link_ids_sql(kind: str, value: str) -> tuple[str, list[object]]:
    """The ``SELECT`` of the ids of the notes :func:`link_filter_sql` passes."""
    target, params = note_sql(value)
    if kind == "linkto":
        sql = f"SELECT l.note_id FROM links l WHERE l.to_id = {target} AND l.note_id != l.to_id"
    elif kind == "linkedfrom":
        sql = (
            f"SELECT l.to_id FROM links l WHERE l.note_id = {target} "
            "AND l.to_id IS NOT NULL AND l.to_id != l.note_id"
        )
    else:
        raise ValueError(f"unknown link filter {kind!r}")
    return sql, params
