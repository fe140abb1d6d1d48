"""A vault's recent queries and named saved searches, kept beside its index, never in the vault.

One JSON file per vault in the data directory (``<index>.searches.json``, beside the index and
its ``.model`` file): the recent queries, newest first, at most :data:`MAX_RECENT`, each once;
and the saved searches by name, each a query with its settings (:class:`SearchOptions`, the
fusion's included).  It is written whole to a temporary file and moved over the old one, so a
crash leaves the old or the new file, never half of one; a file that cannot be read (damaged,
or of a later version) is read as empty and replaced at the next write.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.index.db import index_path
from explorer.search.options import SearchOptions
from explorer.search.query import QueryError

#: Recent queries kept per vault.
MAX_RECENT = 50
#: Saved searches kept per vault, and the longest name.
MAX_SAVED = 200
MAX_NAME = 100
VERSION = 1


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
    def from_json(cls, data: Any) -> SavedSearch:
        if not isinstance(data, dict) or not isinstance(data.get("query"), str):
            raise ValueError("not a saved search")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise ValueError("not a saved search")
        return cls(data["query"], SearchOptions.from_json(options))


def searches_file(vault: Path, data: str | os.PathLike[str] | None = None) -> Path:
    """Where ``vault``'s recent and saved searches are kept: beside its index."""
    return index_path(vault, data).with_suffix(".searches.json")


class SearchStore:
    """The recent and saved searches of one vault; every change is written at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._recent: list[SavedSearch] = []
        self._saved: dict[str, SavedSearch] = {}
        self._load()

    @classmethod
    def of(cls, vault: Path, data: str | os.PathLike[str] | None = None) -> SearchStore:
        return cls(searches_file(vault, data))

    def recent(self) -> list[SavedSearch]:
        """The recent searches, newest first."""
        return list(self._recent)

    def saved(self) -> dict[str, SavedSearch]:
        """The saved searches by name, in the order of their names (without case)."""
        return dict(sorted(self._saved.items(), key=lambda item: item[0].casefold()))

    def remember(self, query: str, options: SearchOptions) -> None:
        """Put ``query`` first among the recent ones (once: an earlier use of the same text
        goes); an empty query is not remembered."""
        if not query.strip():
            return
        self._recent = [SavedSearch(query, options)] + [
            r for r in self._recent if r.query.strip() != query.strip()
        ]
        del self._recent[MAX_RECENT:]
        self._write()

    def save(self, name: str, query: str, options: SearchOptions) -> None:
        """Keep ``query`` with ``options`` under ``name`` (replacing one of that name)."""
        name = name.strip()
        if not name or len(name) > MAX_NAME:
            raise QueryError(f"a saved search needs a name of 1 to {MAX_NAME} characters")
        if name not in self._saved and len(self._saved) >= MAX_SAVED:
            raise QueryError(f"at most {MAX_SAVED} saved searches; delete one first")
        self._saved[name] = SavedSearch(query, options.validate())
        self._write()

    def get(self, name: str) -> SavedSearch:
        try:
            return self._saved[name.strip()]
        except KeyError:
            known = ", ".join(self.saved()) or "none yet"
            raise QueryError(f"no saved search named {name.strip()!r} (saved: {known})") from None

    def delete(self, name: str) -> bool:
        """Forget the saved search ``name``; whether there was one."""
        if self._saved.pop(name.strip(), None) is None:
            return False
        self._write()
        return True

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return
        for item in data.get("recent") or []:
            try:
                self._recent.append(SavedSearch.from_json(item))
            except (ValueError, QueryError):
                continue
        del self._recent[MAX_RECENT:]
        saved = data.get("saved")
        for name, item in (saved if isinstance(saved, dict) else {}).items():
            try:
                self._saved[str(name)] = SavedSearch.from_json(item)
            except (ValueError, QueryError):
                continue

    def _write(self) -> None:
        data = {
            "version": VERSION,
            "recent": [r.to_json() for r in self._recent],
            "saved": {name: s.to_json() for name, s in self._saved.items()},
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        partial.replace(self.path)
