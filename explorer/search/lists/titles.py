"""A note's own name typed as the query: its title or one of its aliases, matched exactly or
nearly, as evidence of its own.

Nothing says more about a note than its name, and people type names more than anything else:
"refund policy" is the note ``Refund policy.md``.  The lexical list cannot promise that (a note
that mentions refunds and policies more often outranks it by bm25), nor can the vector list.  So a
note whose title (frontmatter ``title``, else its first H1, else its file name: the index's
``title`` column) or one of whose aliases (frontmatter ``aliases``) matches the query's words is
evidence of its own (:func:`explorer.search.fusion.fusion.fuse` fuses it as the ``title`` list):

- **exact**: the same words, ignoring case, punctuation and accents (``refund policy`` is
  ``Refund policy``, ``Refund-Policy`` and ``Réfund policy!``);
- **near**: one step away: a word missing or extra (``refund`` or ``our refund policy``), a
  plural (``refund policies``), or one typo in one word of four letters or more (``refund
  polcy``).

The notes are found by index, never by reading every title: the titles through the FTS5 index's
``title`` column (the notes whose title holds all the query's words but at most one; the index's
porter stemmer already matches plurals), the aliases through their folded keys
(``note_aliases.key``: the alias typed as it is written but for its case, or with one word
more), and, for a typo in a query of one word, which no index finds, among the notes the lists
found anyway.  Only the few found are compared word by word here.  A query of more than
:data:`MAX_WORDS` words is a question, not a name: none is looked up.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from explorer.search.query.query import Query, Term
from explorer.search.query.restriction import Restriction, restriction
from explorer.vault.links import fold

#: How a title or alias matches the query.
Closeness = Literal["exact", "near"]

#: The longest query (in words) looked up as a name: its notes holding all words but one are
#: found by one FTS5 expression of ``n`` alternatives.
MAX_WORDS = 8
#: At most this many notes whose title holds the query's words are compared, shortest titles
#: first: an exact title is the shortest that holds them.
LOOKED_UP = 64
#: A word of fewer letters than this is never taken as a typo of another (``tab`` and ``tap``).
TYPO_LETTERS = 4

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class TitleMatch:
    """A note's title or alias matching the query: how closely, and the name matched."""

    closeness: Closeness
    name: str
    alias: bool = False

    def to_json(self) -> dict[str, object]:
        return {"closeness": self.closeness, "name": self.name, "alias": self.alias}


def words(text: str) -> tuple[str, ...]:
    """``text`` as the words a name is compared by: lower case, without accents, split at
    every character that is neither a letter nor a digit (``Réfund-Policy!`` → ``refund``,
    ``policy``)."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return tuple(_WORD.findall(folded))


def closeness(query: tuple[str, ...], name: tuple[str, ...]) -> Closeness | None:
    """How the words of a name match the query's (:func:`words`): ``exact`` when they are the
    same, ``near`` when one step apart (a word missing or extra, plurals, one typo), else
    ``None``."""
    if not query or not name:
        return None
    if query == name:
        return "exact"
    q = tuple(_singular(w) for w in query)
    n = tuple(_singular(w) for w in name)
    if len(q) == len(n):
        differ = [i for i in range(len(q)) if q[i] != n[i]]
        if not differ or (len(differ) == 1 and _one_typo(q[differ[0]], n[differ[0]])):
            return "near"
        return None
    shorter, longer = (q, n) if len(q) < len(n) else (n, q)
    if len(longer) - len(shorter) != 1:
        return None
    if any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer))):
        return "near"
    return None


def _singular(word: str) -> str:
    """An English plural's singular, by its spelling (``policies`` → ``policy``, ``boxes`` →
    ``box``, ``tabs`` → ``tab``); other words as they are."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _one_typo(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one typo: a letter changed, left out, added, or two
    neighbours swapped (of words of :data:`TYPO_LETTERS` letters or more)."""
    if max(len(a), len(b)) < TYPO_LETTERS or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        if len(differ) == 1:
            return True
        return (
            len(differ) == 2
            and differ[1] == differ[0] + 1
            and a[differ[0]] == b[differ[1]]
            and a[differ[1]] == b[differ[0]]
        )
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def title_matches(
    conn: sqlite3.Connection,
    query: Query,
    restricted: Restriction | None = None,
    seen: Mapping[str, str] | None = None,
) -> dict[str, TitleMatch]:
    """The notes whose title or alias matches ``query``'s words, by path: how closely, and
    what matched (a note's closest name, its title before an alias).  ``restricted``: the
    query's filters (:func:`explorer.search.query.restriction.restriction`), which these notes pass
    as every list's do; ``seen``: the titles of notes the lists found (path → title), among
    which a typo in a one-word query is looked for."""
    typed = words(query.free_text)
    if not typed or len(typed) > MAX_WORDS:
        return {}
    if restricted is None:
        restricted = restriction(conn, query)
    found: dict[int, tuple[str, str]] = {}  # note id -> path, title
    names: dict[int, list[tuple[str, bool]]] = {}  # note id -> (name, alias?)
    for note_id, path, title in _by_title(conn, typed, restricted):
        found[note_id] = (path, title)
        names.setdefault(note_id, []).append((title, False))
    for note_id, path, title, alias in _by_alias(conn, query.free_text, typed):
        found[note_id] = (path, title)
        names.setdefault(note_id, []).append((alias, True))
    out: dict[str, TitleMatch] = {}
    for path, title in (seen or {}).items():
        match = _closest([(title, False)], typed)
        if match is not None:
            out[path] = match
    kept = _passing(conn, restricted, list(found))
    for note_id, (path, _) in found.items():
        match = _closest(names[note_id], typed) if note_id in kept else None
        if match is not None and _better(match, out.get(path)):
            out[path] = match
    return out


def _closest(names: Iterable[tuple[str, bool]], typed: tuple[str, ...]) -> TitleMatch | None:
    best: TitleMatch | None = None
    for name, alias in names:
        how = closeness(typed, words(name))
        if how is not None and _better(TitleMatch(how, name, alias), best):
            best = TitleMatch(how, name, alias)
    return best


def _better(match: TitleMatch, other: TitleMatch | None) -> bool:
    """Whether ``match`` says more than ``other``: exact before near, a title before an alias."""
    if other is None:
        return True
    return (match.closeness != "exact", match.alias) < (other.closeness != "exact", other.alias)


def _by_title(
    conn: sqlite3.Connection, typed: tuple[str, ...], restricted: Restriction | None
) -> list[tuple[int, str, str]]:
    """The notes whose title holds every word of ``typed`` but at most one, shortest titles
    first, at most :data:`LOOKED_UP`: (id, path, title)."""
    terms = [Term(w).fts() for w in typed]
    if any(t is None for t in terms):
        return []
    quoted = [t for t in terms if t is not None]
    if len(quoted) == 1:
        expression = f"title : {quoted[0]}"
    else:
        groups = (" ".join(group) for group in combinations(quoted, len(quoted) - 1))
        expression = "title : (" + " OR ".join(f"({g})" for g in groups) + ")"
    only, params = restricted.fts_sql() if restricted is not None else ("", [])
    # Shortest titles first: bm25 would weigh the whole note's length, not its title's.
    return [
        (int(i), str(p), str(t))
        for i, p, t in conn.execute(
            "SELECT n.id, n.path, n.title FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
            f"WHERE notes_fts MATCH ?{only} ORDER BY length(n.title), n.path LIMIT ?",
            (expression, *params, LOOKED_UP),
        )
    ]


def _by_alias(
    conn: sqlite3.Connection, raw: str, typed: tuple[str, ...]
) -> list[tuple[int, str, str, str]]:
    """The notes with an alias the query names, looked up by the aliases' folded keys: as
    typed, as its words, a word's plural or singular, or its words but one: (id, path,
    title, alias)."""
    keys = {fold(raw.strip()), " ".join(typed)}
    for i, word in enumerate(typed):
        for other in {_singular(word), word + "s"} - {word}:  # a plural or singular
            keys.add(" ".join((*typed[:i], other, *typed[i + 1 :])))
        if len(typed) > 1:  # a word extra
            keys.add(" ".join(typed[:i] + typed[i + 1 :]))
    marks = ",".join("?" * len(keys))
    return [
        (int(i), str(p), str(t), str(a))
        for i, p, t, a in conn.execute(
            "SELECT n.id, n.path, n.title, a.alias FROM note_aliases a "
            f"JOIN notes n ON n.id = a.note_id WHERE a.key IN ({marks})",
            sorted(keys),
        )
    ]


def _passing(conn: sqlite3.Connection, restricted: Restriction | None, ids: list[int]) -> set[int]:
    """Those of ``ids`` that the query's filters and exclusions pass (all of them without),
    by the sets every list applies (the filters' SQL form read each note's row: 5 ms for a
    property filter at 50,000 notes)."""
    if not ids:
        return set()
    if restricted is None:
        return set(ids)
    where, params = restricted.where()
    marks = ",".join("?" * len(ids))
    return {
        int(i)
        for (i,) in conn.execute(
            f"SELECT n.id FROM notes n WHERE n.id IN ({marks}) AND {where}", (*ids, *params)
        )
    }
