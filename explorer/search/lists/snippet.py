"""Snippets made from a bounded window of a note's body, marked by FTS5 itself.

FTS5's ``snippet()`` over a whole body tokenizes all of it and scores every match against every
other one, so its cost grew with the square of a note's size (a note of one sentence repeated:
2 MB 9 s, 5 MB 53 s).  Here a body is read a window at a time through SQLite's incremental blob
I/O (``substr()`` would load the whole value first), the window goes into a small in-memory FTS5
table with the index's tokenizer, and ``snippet()`` runs there, for all the notes of a list with
a few statements.  What one note costs is bounded whatever its size:

* the first window that holds a match is used, looking no further than :data:`SCAN_BYTES` into
  the body; a match past that, like a match in the title only, gives the beginning of the body
  unmarked (what ``snippet()`` gives for a body without a match);
* a window with more than :data:`DENSE_MARKS` marked words is cut to the text around its first
  match, since ``snippet()``'s scoring is quadratic in the matches it is given.

A body that fits one window gets the very snippet ``snippet()`` made over the whole body (same
tokenizer, same text, same phrases), unless it is that dense.
"""

from __future__ import annotations

import functools
import html
import re
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

from explorer.index.migrations import FTS_TOKENIZER
from explorer.index.text import unspace_cjk
from explorer.search.query.query import Query

SNIPPET_TOKENS = 24
#: Largest piece of a body read and handed to FTS5 at once.  A body up to this size is
#: snippeted whole, as FTS5 did before; almost every note is smaller.
WINDOW_BYTES = 16 * 1024
#: Consecutive windows overlap by this much, so that a phrase across a boundary is still found
#: (a query is at most 1,000 characters).
OVERLAP_BYTES = 4 * 1024
#: How far into a body a match is looked for (bytes read from the index per note, at most).
SCAN_BYTES = 8 * WINDOW_BYTES
#: A window with more marked words than this is cut to the text around its first match.
DENSE_MARKS = 200
#: Characters kept before the first match and after it, in a cut window.
CUT_BEFORE, CUT_AFTER = 200, 800
#: How far from a window's cut edge a space is looked for, not to keep half a word.
_EDGE_CHARS = 64
_OPEN, _CLOSE = "\x02", "\x03"
_MARKED = re.compile(f"{_OPEN}([^{_CLOSE}]*){_CLOSE}")
#: Matches the windows that hold no match by their anchor column, so that ``snippet()`` gives
#: their beginning, as it does for a body without a match.
_FALLBACK = 'anchor : "fallback"'
_TABLES = ("scan", "pick")  # windows searched for a match; windows cut or fallen back to
#: Each thread's window tables between two searches (made once per thread, emptied after use).
_SPARE = threading.local()


@dataclass(frozen=True, slots=True)
class Window:
    """The part of a note's body handed to FTS5's ``snippet()``."""

    text: str
    at_start: bool  # the body begins here
    at_end: bool  # the body ends here
    matched: bool  # holds a match of the marked phrases


@dataclass(slots=True)
class _Scan:
    """One note's search for a window with a match."""

    note_id: int
    read_to: int = 0  # where in the body the last window read ended
    tail: bytes = b""  # the end of the last window: the start of the next
    first: Window | None = None  # the fallback
    chosen: _Row | None = None


_Row = tuple[str, int, Window]  # the table and row a window was loaded as, and the window


class Snippets:
    """Snippets of the notes of the index behind ``conn``: one per search, in one thread.

    The windows of all the notes asked for at once are searched and snippeted together.
    ``bytes_read`` counts the bytes of bodies read so far, the measure of the work done.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._index = conn
        self._fts: sqlite3.Connection = _SPARE.__dict__.pop("fts", None) or _window_tables()
        self._rows = 0
        self.bytes_read = 0

    def close(self) -> None:
        """Empty the window tables and keep them for this thread's next search."""
        if self._fts.in_transaction:
            self._fts.rollback()
        self._clear()
        _SPARE.fts = self._fts

    def _clear(self) -> None:
        for table in _TABLES:
            self._fts.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")
            self._fts.execute(f"DELETE FROM {table}_text")

    def __enter__(self) -> Snippets:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def snippets(self, notes: Sequence[tuple[int, str]]) -> list[str]:
        """The snippet of each (note id, marks) pair, in order: HTML-escaped, what ``marks`` (an
        FTS5 expression) matches in ``<mark>`` tags; ``""`` for a note that is gone."""
        out = [""] * len(notes)
        groups: dict[str, list[int]] = {}
        for i, (_, marks) in enumerate(notes):
            groups.setdefault(marks, []).append(i)
        for marks, where in groups.items():
            chosen = self._windows([notes[i][0] for i in where], marks)
            for i, text in zip(where, self._snippets(chosen, marks), strict=True):
                out[i] = text
        return out

    def snippet(self, note_id: int, marks: str) -> str:
        return self.snippets([(note_id, marks)])[0]

    def window(self, note_id: int, marks: str) -> Window | None:
        """The window of the note's body its snippet is made from; ``None`` if the note is
        gone (deleted since it was ranked)."""
        (chosen,) = self._windows([note_id], marks)
        return None if chosen is None else chosen[2]

    def _windows(self, note_ids: list[int], marks: str) -> list[_Row | None]:
        """The window of each note, loaded: searched window by window, all notes at once.

        When this returns, the ``scan`` table's rows that match ``marks`` are exactly the
        windows chosen there (a dense window is deleted from it), and the ``pick`` table holds
        the cut windows and those that fell back to the beginning of the body.
        """
        self._clear()
        scans = [_Scan(note_id) for note_id in note_ids]
        pending = scans
        while pending:
            loaded = [(scan, self._read(scan)) for scan in pending]
            rows = [(self._row(), window) for _, window in loaded if window is not None]
            self._load("scan", rows, "")
            marked = self._highlights(marks, [row for row, _ in rows])
            pending, picked, dense = [], [], []
            numbered = iter(rows)
            for scan, window in loaded:
                if window is None:  # the note is gone
                    scan.chosen = ("pick", self._row(), scan.first) if scan.first else None
                    picked += [scan.chosen] if scan.chosen else []
                    continue
                row, _ = next(numbered)
                scan.first = scan.first or window
                if row not in marked:
                    if window.at_end or scan.read_to + WINDOW_BYTES - OVERLAP_BYTES > SCAN_BYTES:
                        scan.chosen = ("pick", self._row(), scan.first)
                        picked.append(scan.chosen)
                    else:
                        pending.append(scan)
                elif (cut := _cut_if_dense(window, marked[row])) is None:
                    scan.chosen = (
                        "scan",
                        row,
                        Window(window.text, window.at_start, window.at_end, True),
                    )
                else:
                    scan.chosen = ("pick", self._row(), cut)
                    picked.append(scan.chosen)
                    dense.append((row, window))
            self._unload("scan", dense)
            self._load("pick", [(r, w) for _, r, w in picked if not w.matched], "fallback")
            self._load("pick", [(r, w) for _, r, w in picked if w.matched], "")
        return [scan.chosen for scan in scans]

    def _read(self, scan: _Scan) -> Window | None:
        """The next window of ``scan``'s note; ``None`` if the note is gone."""
        try:
            with self._index.blobopen("notes", "body", scan.note_id, readonly=True) as blob:
                size = len(blob)
                blob.seek(min(scan.read_to, size))
                chunk = blob.read(WINDOW_BYTES - len(scan.tail))
        except sqlite3.OperationalError as exc:
            if _gone(exc):
                return None
            raise
        self.bytes_read += len(chunk)
        data = scan.tail + chunk
        at_start = scan.read_to == 0
        scan.read_to += len(chunk)
        scan.tail = data[-OVERLAP_BYTES:]
        return _window(data, at_start, scan.read_to >= size)

    def _row(self) -> int:
        self._rows += 1
        return self._rows

    def _load(self, table: str, rows: list[tuple[int, Window]], anchor: str) -> None:
        """Put windows into ``table`` under the rows given (the one way text reaches FTS5
        here), in one transaction, so that they make one segment of its index."""
        if not rows:
            return
        values = [(row, window.text, anchor) for row, window in rows]
        self._fts.execute("BEGIN")
        self._fts.executemany(
            f"INSERT INTO {table}_text(rowid, body, anchor) VALUES (?, ?, ?)", values
        )
        self._fts.executemany(f"INSERT INTO {table}(rowid, body, anchor) VALUES (?, ?, ?)", values)
        self._fts.execute("COMMIT")

    def _unload(self, table: str, rows: list[tuple[int, Window]]) -> None:
        for row, window in rows:
            self._fts.execute(
                f"INSERT INTO {table}({table}, rowid, body, anchor) VALUES ('delete', ?, ?, '')",
                (row, window.text),
            )

    def _highlights(self, marks: str, rows: list[int]) -> dict[int, str]:
        """The rows among ``rows`` (consecutive) that match ``marks``, with the matches marked."""
        if not marks or not rows:
            return {}
        cursor = self._fts.execute(
            f"SELECT rowid, highlight(scan, 0, '{_OPEN}', '{_CLOSE}') FROM scan "
            "WHERE scan MATCH ? AND rowid BETWEEN ? AND ?",
            (f"body : ({marks})", rows[0], rows[-1]),
        )
        return {int(row): str(text) for row, text in cursor}

    def _snippets(self, chosen: list[_Row | None], marks: str) -> list[str]:
        """The snippets of the ``chosen`` windows: two statements for all of them."""
        matches = f"body : ({marks})"
        raw: dict[tuple[str, int], str] = {}
        for table, expression in (("scan", matches), ("pick", f"({matches}) OR {_FALLBACK}")):
            if not marks:
                expression = _FALLBACK
            cursor = self._fts.execute(
                f"SELECT rowid, snippet({table}, 0, '{_OPEN}', '{_CLOSE}', '…', "
                f"{SNIPPET_TOKENS}) FROM {table} WHERE {table} MATCH ?",
                (expression,),
            )
            raw.update(((table, int(row)), str(text)) for row, text in cursor)
        out = []
        for item in chosen:
            if item is None:
                out.append("")
                continue
            table, row, window = item
            text = raw.get((table, row), "")
            if not window.at_start and not text.startswith("…"):
                text = "…" + text
            if not window.at_end and not text.endswith("…"):
                text += "…"
            out.append(mark_snippet(text))
        return out


def _window_tables() -> sqlite3.Connection:
    """An in-memory database with the two window tables, tokenized as the index is."""
    fts = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    for table in _TABLES:
        fts.executescript(
            f"CREATE TABLE {table}_text(body TEXT, anchor TEXT);"
            f"CREATE VIRTUAL TABLE {table} USING fts5(body, anchor, content='{table}_text', "
            f"content_rowid='rowid', tokenize='{FTS_TOKENIZER}');"
        )
    return fts


def _cut_if_dense(window: Window, marked: str) -> Window | None:
    """The text around the first match of ``window`` (``marked`` is its highlighted text), if
    it has more than :data:`DENSE_MARKS` marked words; else ``None``."""
    regions = _MARKED.findall(marked)  # overlapping matches of a phrase make one region
    if len(regions) <= DENSE_MARKS and len(" ".join(regions).split()) <= DENSE_MARKS:
        return None
    first = marked.find(_OPEN)
    end = marked.find(_CLOSE, first) + 1
    start = max(0, first - CUT_BEFORE)
    stop = min(len(marked), end + CUT_AFTER)
    text = _trim(marked[start:stop], start > 0, stop < len(marked))
    return Window(
        text.replace(_OPEN, "").replace(_CLOSE, ""),
        window.at_start and start == 0,
        window.at_end and stop == len(marked),
        True,
    )


def _window(data: bytes, at_start: bool, at_end: bool) -> Window:
    """The text of ``data`` (a slice of a UTF-8 body), without half words or characters at a
    cut edge, and without the characters the snippet markers use."""
    text = _trim(data.decode("utf-8", "ignore"), not at_start, not at_end)
    if _OPEN in text or _CLOSE in text:
        text = text.replace(_OPEN, " ").replace(_CLOSE, " ")
    return Window(text, at_start, at_end, False)


def _trim(text: str, head: bool, tail: bool) -> str:
    """``text`` without the word cut at its start (``head``) or end (``tail``), if a space is
    near enough to tell where it is."""
    if head:
        for i, ch in enumerate(text[:_EDGE_CHARS]):
            if ch.isspace():
                text = text[i + 1 :]
                break
    if tail:
        for i in range(len(text) - 1, max(-1, len(text) - 1 - _EDGE_CHARS), -1):
            if text[i].isspace():
                text = text[:i]
                break
    return text


def body_start(conn: sqlite3.Connection, note_id: int, chars: int) -> str:
    """The first ``chars`` characters of a note's body, read without loading all of it."""
    try:
        with conn.blobopen("notes", "body", note_id, readonly=True) as blob:
            data = blob.read(4 * chars)
    except sqlite3.OperationalError as exc:
        if _gone(exc):
            return ""
        raise
    return data.decode("utf-8", "ignore")[:chars]


def _gone(exc: sqlite3.OperationalError) -> bool:
    """Whether ``blobopen`` failed because the row is not there (deleted since it was found)."""
    return str(exc).startswith("no such rowid")


def mark_snippet(raw: str) -> str:
    """FTS5 snippet text, HTML-escaped, with its match markers turned into ``<mark>`` tags."""
    text = html.escape(unspace_cjk(raw).replace("\n", " "), quote=False)
    return text.replace(_OPEN, "<mark>").replace(_CLOSE, "</mark>")


def marked_words(query: Query) -> tuple[str, ...]:
    """The words :func:`plain_snippet` marks: those of three letters or more of the query's
    content terms."""
    return tuple(w for t in query.content_terms for w in re.findall(r"\w{3,}", t.text))


def plain_snippet(text: str, words: tuple[str, ...], width: int = 200) -> str:
    """A snippet for a note the lexical list did not find: its best chunk, words marked."""
    text = " ".join(unspace_cjk(text).split())
    if len(text) > width:
        text = text[:width].rsplit(" ", 1)[0] + " …"
    escaped = html.escape(text, quote=False)
    marker = _marker(words)
    return escaped if marker is None else marker.sub(r"<mark>\1</mark>", escaped)


@functools.lru_cache(maxsize=64)
def _marker(words: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern marking any of ``words`` where it stands as a whole word (longest first)."""
    if not words:
        return None
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    alternatives = "|".join(re.escape(html.escape(w, quote=False)) for w in ordered)
    return re.compile(rf"(?<![\w>])({alternatives})(?![\w<])", re.IGNORECASE)
