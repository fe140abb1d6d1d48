"""One vault's index and notes, read for a long-lived server: what the tools of ``vault-explorer
mcp`` answer, without the protocol (:mod:`explorer.mcp.server` speaks it).

- **Read-only, through the window's reader.**  Every read of the index is a job of an
  :class:`~explorer.live.reader.IndexReader`, as the window's are: one thread, one read-only
  connection (opened again when another process rebuilds or deletes the index), one vector
  matrix kept between requests (refreshed when the index changes); the requests' reads take
  turns on it, each in one read transaction: one state of the index, while a window or
  ``watch`` writes it.  The writer lease is never taken, except with ``sync`` (``--sync``):
  then a search first brings the index up to date, as ``search`` does, if no other process
  holds the lease; one that does keeps the index current already.
- **The model loads once, on first need, and nobody waits for it who does not need it.**  It is
  the process's shared model (:func:`explorer.embed.provider.shared_provider`), asked for by the
  first request that can use it (a search or explanation that is not lexical, over an index
  with vectors).  That request waits for it on its own thread, *before* its search is a job of
  the reader, so a lexical search, ``get_note``, ``related`` (stored vectors) and ``status``
  answer meanwhile.
- **Notes are read as the indexer reads them** (:func:`explorer.vault.scan.read_note`): a path is
  vault-relative (made a note id by :func:`explorer.vault.note_path.note_id`, as ``related`` and
  ``explain`` make theirs), names a note the ignore rules let through, and leads to a regular
  file inside the vault, opened without blocking.  ``..``, an absolute path, a symlink out of
  the vault, a FIFO, a device or a folder is refused with one line, never read.

Bad input raises :class:`~explorer.console.UsageError` (or the core's
:class:`~explorer.search.query.query.QueryError`) with one line to show.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from explorer.console import UsageError
from explorer.embed.base import EmbedderUnavailable
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB, index_command, index_path
from explorer.index.lease import WriterLease
from explorer.index.status import vault_languages
from explorer.index.update import bring_up_to_date
from explorer.live import Health, LiveIndex, stored_health
from explorer.live.reader import IndexReader, ReadContext
from explorer.search.answers.answer import EMBED_BEFORE_SEARCH, Answer, has_vectors, search_index
from explorer.search.answers.related import RelatedNotes, related
from explorer.search.explain.explain import NoteNotIndexed, explain
from explorer.search.explain.explanation import Explanation
from explorer.search.explain.notes_lookup import not_a_note
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import Mode, SearchOptions
from explorer.search.query.query import parse_query
from explorer.vault.ignore import IgnoreRules
from explorer.vault.note_path import BadNotePath, note_id
from explorer.vault.obsidian import is_obsidian_vault, open_uri
from explorer.vault.parse import NotANote, decode
from explorer.vault.scan import read_note, stat_note

T = TypeVar("T")

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


#: Seconds a request waits for the writer's start-up reconcile (a new index of a 40,000-note
#: vault takes a minute or two): less than a client waits for a server that said it is busy
#: (:data:`explorer.live.serve.LOADING_TIMEOUT`), so that it is answered with what is indexed
#: by then rather than given up on.
CATCH_UP_WAIT = 100.0


class VaultReader:
    """Answers the server's requests about the vault ``vault`` (its index under ``data``), with
    the model of ``provider``; ``sync``: bring the index up to date before a search, when no
    other process keeps it current.  Every read of the index is a job of :attr:`reader`: the
    one given (a window's, which then stays its owner's to close), else one of its own."""

    def __init__(
        self,
        vault: Path,
        data: str | None,
        provider: EmbedderProvider,
        *,
        sync: bool = False,
        reader: IndexReader | None = None,
        writer: LiveIndex | None = None,
    ) -> None:
        self.vault = vault
        self.data = data
        self.provider = provider
        self.sync = sync
        self.path = index_path(vault, data)
        self.writer = writer
        self._owned = reader is None
        self.reader = reader or IndexReader(
            self._open, provider, writer=writer, reopen_if_replaced=True
        )

    def _open(self) -> IndexDB:
        return IndexDB.open_reader(self.vault, self.data)

    def close(self, wait: float | None = None) -> None:
        """Stop the reader, if it is this one's own (waiting at most ``wait`` seconds)."""
        if self._owned:
            self.reader.close(wait)

    # ------------------------------------------------------------------ the tools

    def search(self, raw: str, options: SearchOptions) -> Answer:
        """What ``search --json --no-sync`` answers (after the sync of ``--sync``)."""
        options.validate()
        self._sync_first(options)
        self._model_for(raw, options)
        return self._read(
            lambda ctx: search_index(
                ctx.db, self.provider, raw, options, vectors=ctx.vectors(self.provider.name)
            )
        )

    def explain(self, raw: str, path: str, options: SearchOptions) -> Explanation:
        """What ``explain --json`` answers: every reason ``path`` is where it is for ``raw``."""
        options.validate()
        self._sync_first(options)
        self._model_for(raw, options)
        provider = self.provider if options.mode != Mode.FTS else EmbedderProvider.disabled()

        def run(ctx: ReadContext) -> Explanation:
            searcher = Searcher(ctx.db, provider, vectors=ctx.vectors(self.provider.name))
            try:
                return explain(searcher, raw, path, options)
            except NoteNotIndexed:
                raise UsageError(not_a_note(ctx.db.conn, path)) from None

        return self._read(run)

    def related(self, path: str, limit: int) -> RelatedNotes:
        """What ``related --json`` answers: the notes nearest in meaning (stored vectors only)."""

        def run(ctx: ReadContext) -> RelatedNotes:
            try:
                return related(ctx.db, ctx.vectors(self.provider.name), path, limit)
            except NoteNotIndexed:
                raise UsageError(not_a_note(ctx.db.conn, path)) from None
            except ValueError as exc:  # the limit
                raise UsageError(str(exc)) from None

        return self._read(run)

    def status(self) -> dict[str, Any]:
        """What ``status --json`` says (without the checks that read the whole database), the
        command that indexes the vault, and this server's model and whether it syncs."""
        if not self.path.exists():
            health = Health(str(self.vault), str(self.path))
        else:
            health = self._read(
                lambda ctx: stored_health(ctx.db, self.provider.name, check_fts=False)
            )
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

    def _read(self, fn: Callable[[ReadContext], T]) -> T:
        """``fn`` run on the reader, in one read transaction (one state of the index, while a
        window or ``watch`` writes it); this request's answer, waited for.  While ``writer``
        makes a new index, or catches one up with the vault at its start, the request waits for
        that (at most :data:`CATCH_UP_WAIT`): its answer is the one a search that synced first
        would give."""
        if self.writer is not None:
            self.writer.wait_caught_up(CATCH_UP_WAIT)

        def snapshot(ctx: ReadContext) -> T:
            conn = ctx.db.conn
            conn.execute("BEGIN")
            try:
                return fn(ctx)
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")  # nothing was written

        return self.reader.submit(snapshot, group=None).result()

    def _model_for(self, raw: str, options: SearchOptions) -> None:
        """Load the model (once per process) if a search of ``raw`` under ``options`` will use
        it: not lexical, a query with words to search (one without lists the recent notes,
        which compares nothing: the query parsed as the searcher parses it decides), and the
        index has vectors to compare with.  Waited for here, not on the reader, so that other
        requests are answered while it loads; a model that cannot be had is the search's to
        report."""
        if options.mode == Mode.FTS:
            return

        def usable(ctx: ReadContext) -> bool:
            listing = parse_query(raw, vault_languages(ctx.db.conn)).is_listing
            return not listing and has_vectors(ctx.db, self.provider.name)

        if self._read(usable):
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
                embedding = None if options.mode == Mode.FTS else self.provider
                bring_up_to_date(db, embedding, at_most=EMBED_BEFORE_SEARCH)
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
