"""One vault's index and notes, read for a long-lived server: what the tools of ``vault-explorer
mcp`` answer, without the protocol (:mod:`explorer.mcp.server` speaks it).

- **Read-only.**  Each request opens the index on a read-only connection, as ``related`` does
  (:func:`explorer.commands.common.open_readonly`), and reads it in one transaction: one state of
  the index, while a window or ``watch`` writes it.  The writer lease is never taken, except with
  ``sync`` (``--sync``): then a search first brings the index up to date, as ``search`` does, if
  no other process holds the lease; one that does keeps the index current already.
- **One reader at a time.**  A lock serialises the requests' reads: the vector matrix is kept
  between requests (reloaded when the index changes), and only one request uses it at once.
- **The model loads once, on first need, and nobody waits for it who does not need it.**  It is
  the process's shared model (:func:`explorer.embed.provider.shared_provider`), asked for by the
  first request that can use it (a search or explanation that is not lexical, over an index
  with vectors).  That request waits for it *before* taking the lock, so a lexical search,
  ``get_note``, ``related`` (stored vectors) and ``status`` answer meanwhile.
- **Notes are read as the indexer reads them** (:func:`explorer.vault.scan.read_note`): a path is
  vault-relative (made a note id by :func:`explorer.vault.note_path.note_id`, as ``related`` and
  ``explain`` make theirs), names a note the ignore rules let through, and leads to a regular
  file inside the vault, opened without blocking.  ``..``, an absolute path, a symlink out of
  the vault, a FIFO, a device or a folder is refused with one line, never read.

Bad input raises :class:`~explorer.console.UsageError` (or the core's
:class:`~explorer.search.query.QueryError`) with one line to show.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.commands.common import open_readonly
from explorer.commands.related import not_a_note
from explorer.console import UsageError
from explorer.embed.base import EmbedderUnavailable
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB, index_command, index_path
from explorer.index.lease import WriterLease
from explorer.index.status import vault_languages
from explorer.index.vectors import VectorIndex
from explorer.live import Health, stored_health
from explorer.search.answer import Answer, bring_up_to_date, has_vectors, search_index
from explorer.search.explain import Explanation, NoteNotIndexed, explain
from explorer.search.hybrid import Searcher
from explorer.search.options import Mode, SearchOptions
from explorer.search.query import parse_query
from explorer.search.related import RelatedNotes, related
from explorer.vault.ignore import IgnoreRules
from explorer.vault.note_path import BadNotePath, note_id
from explorer.vault.obsidian import is_obsidian_vault, open_uri
from explorer.vault.parse import NotANote, decode
from explorer.vault.scan import read_note, stat_note

#: The most characters of a note one ``get_note`` answer carries.  A longer range is cut at a line
#: end, or inside a line longer than this; the answer says where to go on (:attr:`NoteText.next`).
MAX_NOTE_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class NoteText:
    """Lines ``first``..``last`` (1-based, inclusive) of the note at ``path``, of ``lines``; the
    text starts at character ``first_char`` of line ``first`` (1-based)."""

    path: str
    text: str
    first: int
    last: int
    lines: int
    #: The range asked for was longer than :data:`MAX_NOTE_CHARS`: it ends early, at ``last``.
    truncated: bool
    #: How the text was decoded, when it was not plain UTF-8.
    warnings: tuple[str, ...]
    #: The URI that opens the note in Obsidian (Obsidian vaults only).
    obsidian_uri: str | None
    first_char: int = 1
    #: Where the next answer starts when ``truncated``: ``(start_line, start_char)``, with
    #: ``start_char`` 1 when the text was cut at a line end.
    next: tuple[int, int] | None = None
    #: The ``end_line`` asked for, if one was: the next request asks for it again.
    end_asked: int | None = None

    def next_request(self) -> dict[str, int] | None:
        """The arguments of ``get_note`` (besides ``path``) that return what follows the text,
        ``None`` when nothing of the range asked for is left."""
        if self.next is None:
            return None
        line, char = self.next
        ask = {"start_line": line}
        if char > 1:
            ask["start_char"] = char
        if self.end_asked is not None:
            ask["end_line"] = self.end_asked
        return ask

    def heading(self) -> str:
        """One line: which lines these are and, when the range was cut, what to ask next."""
        start = f", from character {self.first_char}" if self.first_char > 1 else ""
        head = f"{self.path}, lines {self.first}–{self.last} of {self.lines}{start}"
        ask = self.next_request()
        if ask is not None:
            line, char = self.next or (0, 0)
            where = f"inside line {line}" if char > 1 else f"after line {self.last}"
            args = ", ".join(f"{name} {value}" for name, value in ask.items())
            head += f" (cut {where}: ask for {args} for more)"
        return head

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "text": self.text,
            "startLine": self.first,
            "startChar": self.first_char,
            "endLine": self.last,
            "totalLines": self.lines,
            "truncated": self.truncated,
            # The get_note arguments that continue where this text stops (null: nothing left).
            "next": self.next_request(),
            "warnings": list(self.warnings),
            "obsidianUri": self.obsidian_uri,
        }


class VaultReader:
    """Answers the server's requests about the vault ``vault`` (its index under ``data``), with
    the model of ``provider``; ``sync``: bring the index up to date before a search, when no
    other process keeps it current."""

    def __init__(
        self,
        vault: Path,
        data: str | None,
        provider: EmbedderProvider,
        *,
        sync: bool = False,
    ) -> None:
        self.vault = vault
        self.data = data
        self.provider = provider
        self.sync = sync
        self.path = index_path(vault, data)
        self._lock = threading.Lock()
        self._matrix: VectorIndex | None = None
        self._matrix_file: tuple[int, int] | None = None  # the database file it was read from

    # ------------------------------------------------------------------ the tools

    def search(self, raw: str, options: SearchOptions) -> Answer:
        """What ``search --json --no-sync`` answers (after the sync of ``--sync``)."""
        options.validate()
        self._sync_first(options)
        self._model_for(raw, options)
        with self._reading() as db:
            return search_index(db, self.provider, raw, options, vectors=self._vectors(db))

    def explain(self, raw: str, path: str, options: SearchOptions) -> Explanation:
        """What ``explain --json`` answers: every reason ``path`` is where it is for ``raw``."""
        options.validate()
        self._sync_first(options)
        self._model_for(raw, options)
        provider = self.provider if options.mode != Mode.FTS else EmbedderProvider.disabled()
        with self._reading() as db:
            searcher = Searcher(db, provider, vectors=self._vectors(db))
            try:
                return explain(searcher, raw, path, options)
            except NoteNotIndexed:
                raise UsageError(not_a_note(db, path)) from None

    def related(self, path: str, limit: int) -> RelatedNotes:
        """What ``related --json`` answers: the notes nearest in meaning (stored vectors only)."""
        with self._reading() as db:
            try:
                return related(db, self._vectors(db), path, limit)
            except NoteNotIndexed:
                raise UsageError(not_a_note(db, path)) from None
            except ValueError as exc:  # the limit
                raise UsageError(str(exc)) from None

    def status(self) -> dict[str, Any]:
        """What ``status --json`` says (without the checks that read the whole database), the
        command that indexes the vault, and this server's model and whether it syncs."""
        if not self.path.exists():
            health = Health(str(self.vault), str(self.path))
        else:
            with self._reading() as db:
                health = stored_health(db, self.provider.name, check_fts=False)
        data = health.to_json()
        # What indexes this vault into the data folder this server reads (its --data-dir).
        data["indexCommand"] = index_command(self.vault, self.data)
        data["server"] = {
            "model": self.provider.name,
            "modelState": self.provider.state.value,
            "modelError": self.provider.error,
            "sync": self.sync,
        }
        return data

    def get_note(
        self,
        path: str,
        start: int | None = None,
        end: int | None = None,
        start_char: int | None = None,
    ) -> NoteText:
        """Lines ``start``..``end`` (1-based, inclusive; default: all) of the note at ``path``,
        from character ``start_char`` (1-based) of the first."""
        try:  # a backslash is a character of the name when the vault has a file so named
            rel = note_id(path, lambda name: os.path.lexists(self.vault / name))
        except BadNotePath as exc:
            raise UsageError(str(exc)) from None
        if IgnoreRules.for_vault(self.vault).ignores_file(rel):
            raise UsageError(
                f"{rel} is not a note of this vault (notes are .md and .markdown files outside "
                "hidden folders and the .explorerignore patterns)"
            )
        checked = stat_note(self.vault, rel)  # nothing there also for a linked folder on the way
        data = (
            checked if checked is None or isinstance(checked, str) else read_note(self.vault, rel)
        )
        if data is None:
            raise UsageError(f"no note at {rel} (see the paths that search returns)")
        if isinstance(data, str):
            raise UsageError(f"{rel} cannot be read: {data}")
        try:
            text, warnings = decode(data)
        except NotANote as exc:
            raise UsageError(f"{rel} cannot be read: {exc}") from None
        obsidian = open_uri(self.vault, rel) if is_obsidian_vault(self.vault) else None
        return note_lines(
            rel, text.replace("\r\n", "\n"), start, end, warnings, obsidian, start_char
        )

    # ------------------------------------------------------------------ the index

    @contextlib.contextmanager
    def _reading(self) -> Iterator[IndexDB]:
        """The index on a read-only connection, in one read transaction, for this request
        alone."""
        with self._lock:
            db = open_readonly(self.vault, self.data)
            try:
                db.conn.execute("BEGIN")
                yield db
            finally:
                db.close()  # ends the read transaction; nothing was written

    def _vectors(self, db: IndexDB) -> VectorIndex:
        """The matrix kept between requests (the caller holds the lock); a new one when the
        database is another file (rebuilt from scratch: its generations start again)."""
        st = os.stat(db.path)
        if self._matrix is None or self._matrix_file != (st.st_dev, st.st_ino):
            self._matrix = VectorIndex(self.provider.name)
            self._matrix_file = (st.st_dev, st.st_ino)
        return self._matrix

    def _model_for(self, raw: str, options: SearchOptions) -> None:
        """Load the model (once per process) if a search of ``raw`` under ``options`` will use
        it: not lexical, a query with words to search (one without lists the recent notes,
        which compares nothing: the query parsed as the searcher parses it decides), and the
        index has vectors to compare with.  Outside the lock, so that other requests are
        answered while it loads; a model that cannot be had is the search's to report."""
        if options.mode == Mode.FTS:
            return
        with self._reading() as db:
            listing = parse_query(raw, vault_languages(db.conn)).is_listing
            usable = not listing and has_vectors(db, self.provider.name)
        if usable:
            with contextlib.suppress(EmbedderUnavailable):
                self.provider.get()

    def _sync_first(self, options: SearchOptions) -> None:
        """With ``sync``: bring the index up to date, unless another process holds the writer
        lease (it keeps the index current itself)."""
        if not self.sync:
            return
        lease = WriterLease.try_acquire(self.path, "vault-explorer mcp --sync")
        if lease is None:
            return
        try:
            db = IndexDB.open(self.vault, self.data)
            try:
                bring_up_to_date(db, self.provider, options)
            finally:
                db.close()
        finally:
            lease.release()


def note_lines(
    path: str,
    text: str,
    start: int | None,
    end: int | None,
    warnings: list[str],
    obsidian_uri: str | None,
    start_char: int | None = None,
) -> NoteText:
    """Lines ``start``..``end`` of ``text``, from character ``start_char`` of line ``start``, at
    most :data:`MAX_NOTE_CHARS` characters of them: cut at the last line end that fits, or
    inside a line that alone is longer (the answer's :attr:`NoteText.next` goes on there)."""
    lines = text.split("\n")
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the newline that ends the last line starts no line of its own
    total = len(lines)
    first = 1 if start is None else start
    last = total if end is None else min(end, total)
    column = 1 if start_char is None else start_char
    if first < 1 or (end is not None and end < first):
        raise UsageError(f"lines {first}..{end} is not a range of lines (they start at 1)")
    if first > total:
        raise UsageError(f"{path} has {total} line{'s' if total != 1 else ''}; start_line {first}")
    width = len(lines[first - 1])
    if column < 1 or column > max(width, 1):
        raise UsageError(
            f"line {first} of {path} has {width} character{'s' if width != 1 else ''}; "
            f"start_char {column} (characters start at 1)"
        )
    shown: list[str] = []
    size = 0
    following: tuple[int, int] | None = None
    for number in range(first, last + 1):
        begin = column - 1 if number == first else 0
        line = lines[number - 1][begin:]
        cost = len(line) + (1 if shown else 0)  # the newline before it
        if size + cost > MAX_NOTE_CHARS:
            if not shown:  # one line longer than the budget: as much of it as fits
                shown.append(line[:MAX_NOTE_CHARS])
                following = (number, begin + MAX_NOTE_CHARS + 1)
                last = number
            else:
                following = (number, 1)
                last = number - 1
            break
        shown.append(line)
        size += cost
    return NoteText(
        path,
        "\n".join(shown),
        first,
        last,
        total,
        following is not None,
        tuple(warnings),
        obsidian_uri,
        first_char=column,
        next=following,
        end_asked=end,
    )
