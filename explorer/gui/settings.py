"""The window's settings in one place, each with its type and default (Picard's ``options.py``).

Backed by :class:`QSettings`; tests pass their own ``QSettings`` (an INI file in a temporary
folder) so nothing leaks into the user's configuration.  Values read back are coerced to the
declared type, and a value that cannot be read falls back to the default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from explorer.search.fusion import DEFAULT_K
from explorer.search.hybrid import DEFAULT_MIN_SIM

ORGANIZATION = "vault-explorer"
APPLICATION = "Vault Explorer"
MAX_RECENT = 8

T = TypeVar("T")


@dataclass(frozen=True)
class Option(Generic[T]):
    key: str
    default: T


MODE = Option("search/mode", "hybrid")
K = Option("fusion/k", float(DEFAULT_K))
W_FTS = Option("fusion/w_fts", 0.7)
W_VEC = Option("fusion/w_vec", 0.3)
DEPTH = Option("fusion/depth", 50)
MIN_SIM = Option("fusion/min_sim", float(DEFAULT_MIN_SIM))
LAST_VAULT = Option("vault/last", "")
RECENT_VAULTS: Option[list[str]] = Option("vault/recent", [])
THEME = Option("view/theme", "system")
GEOMETRY = Option("window/geometry", QByteArray())
STATE = Option("window/state", QByteArray())
SPLITTER = Option("window/splitter", QByteArray())
HEADER = Option("window/header", QByteArray())
LAST_QUERY = Option("search/last_query", "")


class Settings:
    """Typed access to a :class:`QSettings` store."""

    def __init__(self, store: QSettings | None = None, *, read_only: bool = False) -> None:
        self.store = store if store is not None else QSettings(ORGANIZATION, APPLICATION)
        self.read_only = read_only

    def get(self, option: Option[T]) -> T:
        raw = self.store.value(option.key, None)
        if raw is None:
            return option.default
        return _coerce(raw, option.default)

    def set(self, option: Option[T], value: T) -> None:
        if not self.read_only:
            self.store.setValue(option.key, value)

    def sync(self) -> None:
        if not self.read_only:
            self.store.sync()

    def remember_vault(self, path: str) -> list[str]:
        """Make ``path`` the last vault and the head of the recent list; returns the list."""
        recent = [p for p in self.get(RECENT_VAULTS) if p != path]
        recent.insert(0, path)
        recent = recent[:MAX_RECENT]
        self.set(RECENT_VAULTS, recent)
        self.set(LAST_VAULT, path)
        return recent


def _coerce(raw: Any, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            return raw if isinstance(raw, bool) else str(raw).lower() in ("1", "true", "yes")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
        if isinstance(default, str):
            return str(raw)
        if isinstance(default, list):
            if isinstance(raw, str):
                return [raw] if raw else []
            return [str(x) for x in raw]
        if isinstance(default, QByteArray):
            return raw if isinstance(raw, QByteArray) else QByteArray(raw)
    except (TypeError, ValueError):
        return default
    return raw
