"""A vault's recent queries and named saved searches, kept beside its index, never in the vault.

One JSON file per vault in the data directory (``<index>.searches.json``, beside the index and
its ``.model`` file, owner-only): the recent queries, newest first, at most :data:`MAX_RECENT`,
each once; and the saved searches by name, each a query with its settings
(:class:`SearchOptions`, the fusion's included).

Several processes change it (the window, ``search --save``), so a change is an operation, not
a copy: :class:`SearchStore` applies it at once to what it shows (:meth:`SearchStore.stage`),
and :meth:`SearchStore.flush` — under an exclusive lock on ``<index>.searches.lock`` — reads
the file again, applies the operations not yet written to what it holds now and writes it whole
(:func:`explorer.files.write_whole`: a crash leaves the old or the new file).  What another
process wrote meanwhile is kept; a store sees it at its next read (the file's identity is
checked at each).  The window flushes on a worker thread, the command line at once.

The file is not trusted: it is read within budgets (:data:`MAX_BYTES`, a nesting of
:data:`MAX_DEPTH` checked before parsing) and field by field — a field of the wrong type, a
search whose query or settings do not hold, is dropped and the rest kept; what was dropped is
said once (:meth:`SearchStore.take_problems`) and the file repaired at the next flush (one that
cannot be read at all is moved aside to ``….broken``).  A file of a later version is read as
empty and replaced at the next write.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer import jsontext
from explorer.files import locked, write_whole
from explorer.index.db import index_path
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import MAX_QUERY_CHARS, QueryError, parse_query

#: Recent queries kept per vault.
MAX_RECENT = 50
#: Saved searches kept per vault, and the longest name.
MAX_SAVED = 200
MAX_NAME = 100
VERSION = 1
#: The largest file read, in bytes, and its deepest nesting (a store nests four levels).
MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 8
#: How many of the dropped fields one report names.
REPORTED = 3


@dataclass(frozen=True, slots=True)
class SavedSearch:
    """A query and the settings it runs with."""

    query: str
    options: SearchOptions

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "options": self.options.changed()}

    def settings(self, sep: str = ", ") -> str:
        """The settings that differ from the defaults: ``setting=value`` joined by ``sep``."""
        return sep.join(f"{k}={v}" for k, v in self.options.changed().items())

    def line(self, name: str) -> str:
        """How a listing shows it: ``NAME: QUERY  (setting=value,…)``."""
        changed = self.settings(",")
        return f"{name}: {self.query}" + (f"  ({changed})" if changed else "")

    @classmethod
    def from_json(cls, data: Any, dropped: list[str] | None = None) -> SavedSearch:
        """The search in ``data``; ``ValueError`` (or :class:`QueryError`) when it is none.
        A setting that does not hold is left out, and named in ``dropped``."""
        if not isinstance(data, dict):
            raise ValueError("not an object")
        query = data.get("query")
        if not isinstance(query, str):
            raise ValueError("no query")
        if len(query) > MAX_QUERY_CHARS:
            raise ValueError(f"a query over {MAX_QUERY_CHARS:,} characters")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise ValueError("settings that are not an object")
        kept: dict[str, Any] = {}
        for name, value in options.items():
            try:
                SearchOptions.from_json({name: value})
            except QueryError as exc:
                if dropped is not None:
                    dropped.append(f"the setting {name!s:.40} ({exc})")
                continue
            kept[name] = value
        return cls(query, SearchOptions.from_json(kept))


@dataclass
class _Contents:
    """What the file holds: the recent searches (newest first) and the saved ones by name."""

    recent: list[SavedSearch] = field(default_factory=list)
    saved: dict[str, SavedSearch] = field(default_factory=dict)

    def copy(self) -> _Contents:
        return _Contents(list(self.recent), dict(self.saved))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "recent": [r.to_json() for r in self.recent],
            "saved": {name: s.to_json() for name, s in self.saved.items()},
        }


#: A change to the store, applied to what the file holds when it is written.
Operation = Callable[[_Contents], None]


@dataclass
class _Reading:
    """One read of the file: its contents, what was dropped, whether it is to be rewritten
    (``repair``) and moved aside first (``unreadable``)."""

    contents: _Contents
    identity: tuple[int, int, int] | None
    problems: list[str] = field(default_factory=list)
    repair: bool = False
    unreadable: bool = False


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size


def _read(path: Path) -> _Reading:
    """What ``path`` holds, read within the budgets and field by field (see the module)."""
    identity = _identity(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return _Reading(_Contents(), identity)
    except OSError as exc:  # no permission…: said, and never rewritten for it
        return _Reading(_Contents(), identity, [f"cannot be read ({exc.strerror or exc})"])
    try:
        if len(raw) > MAX_BYTES:
            raise ValueError(f"over {MAX_BYTES // (1024 * 1024)} MB")
        data = jsontext.loads(raw, MAX_DEPTH)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        moved = f"cannot be read ({exc}); it is moved aside to {path.name}.broken"
        return _Reading(_Contents(), identity, [moved], repair=True, unreadable=True)
    if data.get("version") != VERSION:
        return _Reading(_Contents(), identity)  # a later program's: read as empty
    problems: list[str] = []
    contents = _Contents()
    recent = data.get("recent", [])
    if not isinstance(recent, list):
        problems.append(f"'recent' (a {type(recent).__name__}, not a list)")
        recent = []
    for number, item in enumerate(recent[:MAX_RECENT]):
        try:
            contents.recent.append(SavedSearch.from_json(item, problems))
        except (ValueError, QueryError) as exc:
            problems.append(f"recent query {number + 1} ({exc})")
    saved = data.get("saved", {})
    if not isinstance(saved, dict):
        problems.append(f"'saved' (a {type(saved).__name__}, not an object)")
        saved = {}
    for name, item in saved.items():
        if len(contents.saved) >= MAX_SAVED or not name.strip() or len(name) > MAX_NAME:
            problems.append(f"the saved search {name!r:.40}")
            continue
        try:
            contents.saved[name] = SavedSearch.from_json(item, problems)
        except (ValueError, QueryError) as exc:
            problems.append(f"the saved search {name!r:.40} ({exc})")
    return _Reading(contents, identity, problems, repair=bool(problems))


def searches_file(vault: Path, data: str | os.PathLike[str] | None = None) -> Path:
    """Where ``vault``'s recent and saved searches are kept: beside its index."""
    return index_path(vault, data).with_suffix(".searches.json")


class SearchStore:
    """The recent and saved searches of one vault (see the module).  Its methods may be
    called from any thread; a change is shown at once and written by :meth:`flush`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.with_suffix(".lock")
        self._mutex = threading.Lock()  # the contents shown and the pending operations
        self._writing = threading.Lock()  # one flush at a time in this process
        self._pending: list[Operation] = []
        self._problems: list[str] = []
        self._reading = _Reading(_Contents(), None)
        self._shown = _Contents()
        self._refresh(force=True)

    @classmethod
    def of(cls, vault: Path, data: str | os.PathLike[str] | None = None) -> SearchStore:
        return cls(searches_file(vault, data))

    # ------------------------------------------------------------------ reading

    def recent(self) -> list[SavedSearch]:
        """The recent searches, newest first."""
        return list(self._refresh().recent)

    def saved(self) -> dict[str, SavedSearch]:
        """The saved searches by name, in the order of their names (without case)."""
        saved = self._refresh().saved
        return dict(sorted(saved.items(), key=lambda item: item[0].casefold()))

    def get(self, name: str) -> SavedSearch:
        try:
            return self._refresh().saved[name.strip()]
        except KeyError:
            known = ", ".join(self.saved()) or "none yet"
            raise QueryError(f"no saved search named {name.strip()!r} (saved: {known})") from None

    def take_problems(self) -> list[str]:
        """What reading the file dropped, or that it could not be read, as one line (none
        when all was well): said once."""
        with self._mutex:
            problems, self._problems = self._problems, []
        if not problems:
            return []
        if problems[0].startswith("cannot be read"):  # the whole file
            return [f"the saved searches at {self.path} {problems[0]}"]
        named = "; ".join(problems[:REPORTED])
        more = f"; and {len(problems) - REPORTED} more" if len(problems) > REPORTED else ""
        return [f"the saved searches at {self.path}: dropped {named}{more}; the rest is kept"]

    def _refresh(self, force: bool = False) -> _Contents:
        """What is shown: the file as it is now, with the changes not yet written."""
        with self._mutex:
            if force or _identity(self.path) != self._reading.identity:
                self._reading = _read(self.path)
                self._problems += self._reading.problems
                self._replay()
            return self._shown.copy()  # for reading while another thread changes them

    def _replay(self) -> None:
        shown = self._reading.contents.copy()
        for operation in self._pending:
            operation(shown)
        self._shown = shown

    # ------------------------------------------------------------------ changing

    def remember(self, query: str, options: SearchOptions) -> None:
        """Put ``query`` first among the recent ones (once: an earlier use of the same text
        goes) and write it; an empty query is not remembered."""
        if self.stage_remember(query, options):
            self.flush()

    def stage_remember(self, query: str, options: SearchOptions) -> bool:
        """:meth:`remember`, shown but not yet written: whether there is anything to write."""
        if not query.strip() or len(query) > MAX_QUERY_CHARS:
            return False
        search = SavedSearch(query, options)

        def remember(contents: _Contents) -> None:
            kept = [r for r in contents.recent if r.query.strip() != query.strip()]
            contents.recent = [search, *kept][:MAX_RECENT]

        self.stage(remember)
        return True

    def save(self, name: str, query: str, options: SearchOptions) -> None:
        """Keep ``query`` with ``options`` under ``name`` (replacing one of that name) and
        write it; :class:`QueryError` for a bad name or a query the parser refuses."""
        self.stage_save(name, query, options)
        self.flush()

    def stage_save(self, name: str, query: str, options: SearchOptions) -> None:
        """:meth:`save`, shown but not yet written."""
        name = name.strip()
        if not name or len(name) > MAX_NAME:
            raise QueryError(f"a saved search needs a name of 1 to {MAX_NAME} characters")
        parse_query(query)  # a query refused as too long is not kept either
        search = SavedSearch(query, options.validate())
        if name not in self.saved() and len(self.saved()) >= MAX_SAVED:
            raise QueryError(f"at most {MAX_SAVED} saved searches; delete one first")

        def save(contents: _Contents) -> None:
            if name in contents.saved or len(contents.saved) < MAX_SAVED:
                contents.saved[name] = search

        self.stage(save)

    def delete(self, name: str) -> bool:
        """Forget the saved search ``name`` and write it; whether there was one."""
        if not self.stage_delete(name):
            return False
        self.flush()
        return True

    def stage_delete(self, name: str) -> bool:
        """:meth:`delete`, shown but not yet written."""
        name = name.strip()
        if name not in self.saved():
            return False

        def delete(contents: _Contents) -> None:
            contents.saved.pop(name, None)

        self.stage(delete)
        return True

    def stage(self, operation: Operation) -> None:
        """Apply ``operation`` to what is shown now, and to the file at the next flush."""
        with self._mutex:
            self._pending.append(operation)
            operation(self._shown)

    def flush(self) -> None:
        """Write the changes staged so far: under the file's lock, applied to what the file
        holds now (what another process wrote is kept); a file that needs repairing is
        rewritten even with nothing staged.  ``OSError`` when it cannot be written (the
        changes stay staged)."""
        with self._writing:
            with self._mutex:
                operations = list(self._pending)
            if not operations and not self._reading.repair:
                return
            with locked(self.lock_path):
                reading = _read(self.path)
                if reading.unreadable:
                    os.replace(self.path, self.path.with_name(self.path.name + ".broken"))
                contents = reading.contents.copy()
                for operation in operations:
                    operation(contents)
                write_whole(self.path, _json_bytes(contents))
                identity = _identity(self.path)
            with self._mutex:
                del self._pending[: len(operations)]
                self._reading = _Reading(contents, identity)
                self._replay()

    def repair(self) -> None:
        """Rewrite a file that reading found fault with (nothing when it was sound); a
        folder that cannot be written is left as it is."""
        if self._reading.repair:
            with contextlib.suppress(OSError):
                self.flush()


def _json_bytes(contents: _Contents) -> bytes:
    return json.dumps(contents.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
