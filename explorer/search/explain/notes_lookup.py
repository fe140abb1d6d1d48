"""Finding a note by a few typed letters: a fuzzy match against note paths and titles.

The typed letters must appear in order (a subsequence, case-insensitive, spaces ignored) in the
note's path or its title.  A match scores for each letter, more for letters that continue a run,
more again at the start of a path segment or a word, and the title's score counts a bit more
than the path's.  :func:`lookup` returns the best matches first, ties broken by the shorter
path; :func:`notes` reads the candidates from an open index, :func:`indexed_id` turns a
typed path into the id of the note the index has under it, and :func:`not_a_note` says that a
path is not a note of the index, naming the closest that are.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from explorer.search.query.query import QueryError
from explorer.vault.note_path import BadNotePath, note_id

#: What the score of one matched letter is made of.
LETTER = 1.0
RUN = 3.0  # the letter follows the previous matched letter
BOUNDARY = 4.0  # the letter starts a path segment or a word
FIRST = 2.0  # the letter is the very first of the text
TITLE = 1.25  # a title match's score is multiplied by this
SEPARATORS = "/\\-_. "

#: Matches :func:`lookup` returns at most, unless told.
DEFAULT_LIMIT = 20
#: Close paths :func:`not_a_note` names.
SUGGESTIONS = 3


@dataclass(frozen=True, slots=True)
class NoteRef:
    path: str
    title: str

    @property
    def label(self) -> str:
        """What a picker shows: the path, and the title when it says more than the file name."""
        stem = self.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if self.title and _words(self.title) != _words(stem):
            return f"{self.path} — {self.title}"
        return self.path


@dataclass(frozen=True, slots=True)
class Match:
    note: NoteRef
    score: float
    on: str  # "path" or "title": the field that scored best
    positions: tuple[int, ...]  # the matched letters' indices in that field


def fuzzy_score(pattern: str, text: str) -> tuple[float, tuple[int, ...]] | None:
    """The best score of ``pattern``'s letters found in order in ``text``, and where; ``None``
    when they are not all there.  Spaces in the pattern are ignored."""
    needle = "".join(pattern.lower().split())
    if not needle:
        return None
    hay = text.lower()
    n, m = len(needle), len(hay)
    if n > m or not _in_order(needle, hay):
        return None
    bonus = _bonuses(text)
    neg = float("-inf")
    # best[i][j]: the best score with needle[:i + 1] matched and needle[i] at hay[j].
    best: list[list[float]] = [[neg] * m for _ in range(n)]
    back: list[list[int]] = [[-1] * m for _ in range(n)]
    for j in range(m):
        if hay[j] == needle[0]:
            best[0][j] = bonus[j]
    for i in range(1, n):
        row, prev = best[i], best[i - 1]
        running, running_at = neg, -1  # the best of prev[: j - 1]
        for j in range(i, m):
            if j - 2 >= 0 and prev[j - 2] > running:
                running, running_at = prev[j - 2], j - 2
            if hay[j] != needle[i]:
                continue
            gap = running + bonus[j]
            run = prev[j - 1] + bonus[j] + RUN
            if run >= gap and prev[j - 1] > neg:
                row[j], back[i][j] = run, j - 1
            elif running > neg:
                row[j], back[i][j] = gap, running_at
    last = best[n - 1]
    end = max(range(m), key=lambda j: last[j])
    if last[end] == neg:
        return None
    positions = [end]
    for i in range(n - 1, 0, -1):
        positions.append(back[i][positions[-1]])
    return last[end], tuple(reversed(positions))


def _in_order(needle: str, hay: str) -> bool:
    """Whether every letter of ``needle`` is in ``hay``, in order (the cheap test first)."""
    letters = iter(hay)
    return all(c in letters for c in needle)


@lru_cache(maxsize=65536)
def _bonuses(text: str) -> tuple[float, ...]:
    """What a matched letter scores at each position of ``text``, before runs."""
    hay = text.lower()
    return tuple(
        LETTER
        + (FIRST if j == 0 else 0.0)
        + (BOUNDARY if j == 0 or hay[j - 1] in SEPARATORS or _camel(text, j) else 0.0)
        for j in range(len(hay))
    )


def _words(text: str) -> list[str]:
    for sep in SEPARATORS:
        text = text.replace(sep, " ")
    return text.lower().split()


def _camel(text: str, j: int) -> bool:
    return j > 0 and text[j].isupper() and text[j - 1].islower()


def lookup(pattern: str, notes: Iterable[NoteRef], limit: int = DEFAULT_LIMIT) -> list[Match]:
    """The notes whose path or title has ``pattern``'s letters in order, best first (at most
    ``limit``).  An empty pattern matches nothing."""
    out: list[Match] = []
    for note in notes:
        on_path = fuzzy_score(pattern, note.path)
        on_title = fuzzy_score(pattern, note.title) if note.title else None
        title_score = on_title[0] * TITLE if on_title else float("-inf")
        if on_path is None and on_title is None:
            continue
        if on_title is not None and (on_path is None or title_score > on_path[0]):
            out.append(Match(note, title_score, "title", on_title[1]))
        elif on_path is not None:
            out.append(Match(note, on_path[0], "path", on_path[1]))
    out.sort(key=lambda x: (-x.score, len(x.note.path), x.note.path))
    return out[:limit]


def notes(conn: sqlite3.Connection) -> list[NoteRef]:
    """Every note of the index, by path."""
    return [
        NoteRef(str(path), str(title))
        for path, title in conn.execute("SELECT path, title FROM notes ORDER BY path")
    ]


def indexed_id(conn: sqlite3.Connection, path: str) -> str:
    """``path`` as a note id (:func:`explorer.vault.note_path.note_id`), a backslash kept when
    the index has a note of that exact name; :class:`QueryError` for a path that cannot be a
    note's (absolute, ``..``, a drive, NUL).  Whether the index has the note is the caller's to
    ask."""
    try:
        return note_id(path, lambda rel: _has_note(conn, rel))
    except BadNotePath as exc:
        raise QueryError(str(exc)) from None


def _has_note(conn: sqlite3.Connection, path: str) -> bool:
    return conn.execute("SELECT 1 FROM notes WHERE path = ?", (path,)).fetchone() is not None


def not_a_note(conn: sqlite3.Connection, path: str) -> str:
    """One line: ``path`` is not a note of the index, and the closest paths that are."""
    close = [m.note.path for m in lookup(path, notes(conn), SUGGESTIONS)]
    if not close:  # nothing has the letters in order: try the file name alone
        stem = path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        close = [m.note.path for m in lookup(stem, notes(conn), SUGGESTIONS)]
    hint = f"; did you mean {', '.join(close)}?" if close else " (see: vault-explorer status)"
    return f"{path} is not a note of the index{hint}"
