"""The window's settings in one place, each with its type and default (Picard's ``options.py``).

Backed by :class:`QSettings`; tests pass their own ``QSettings`` (an INI file in a temporary
folder) so nothing leaks into the user's configuration.  Values read back are coerced to the
declared type, and a value that cannot be read falls back to the default.

The search settings are one value, :data:`SEARCH`: the :class:`SearchOptions` a person changed
from the defaults, as JSON (``{"mode": "fts", "w_fts": 0.5}``), so a setting they never touched
follows the program's defaults when those change.

The store carries a version (:data:`VERSION`).  Opening an older one runs the upgrade steps in
:data:`UPGRADES` in order, each turning version ``n - 1`` into ``n`` (Picard's upgrade hooks), then
writes the new version; a read-only store is upgraded in memory only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from explorer.search.query.options import SearchOptions, parameter_named
from explorer.search.query.query import QueryError

ORGANIZATION = "vault-explorer"
APPLICATION = "Vault Explorer"
MAX_RECENT = 8
#: The version of the settings this program writes.
CURRENT_VERSION = 4

T = TypeVar("T")


@dataclass(frozen=True)
class Option(Generic[T]):
    key: str
    default: T


VERSION = Option("settings/version", 0)
SEARCH = Option("search/options", "{}")
LAST_VAULT = Option("vault/last", "")
RECENT_VAULTS: Option[list[str]] = Option("vault/recent", [])
THEME = Option("view/theme", "system")
GEOMETRY = Option("window/geometry", QByteArray())
STATE = Option("window/state", QByteArray())
SPLITTER = Option("window/splitter", QByteArray())
HEADER = Option("window/header", QByteArray())
LAST_QUERY = Option("search/last_query", "")
#: Whether the preview's explain block shows the fused score's arithmetic.
ARITHMETIC = Option("view/arithmetic", False)


@dataclass(frozen=True)
class VaultState:
    """What the window shows of one vault, kept for the next time it is open: the query (its
    facet filters are in it), the order of the hits and the panels' layout."""

    query: str = ""
    sort: str = "relevance"
    #: ``QMainWindow.saveState()``: which panels show, where and how wide (empty: as built).
    panels: QByteArray = QByteArray()  # noqa: RUF009 (a QByteArray is immutable here)


def _vault_key(path: str) -> str:
    """The settings group of the vault at ``path`` (a path's slashes would nest groups)."""
    return "vaults/" + hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class Settings:
    """Typed access to a :class:`QSettings` store."""

    def __init__(self, store: QSettings | None = None, *, read_only: bool = False) -> None:
        self.store = store if store is not None else QSettings(ORGANIZATION, APPLICATION)
        self.read_only = read_only
        #: What a read-only store would have been told: key → value (``None``: removed).
        self._unsaved: dict[str, Any] = {}
        #: One line for each saved value that could not be used and fell back to its default.
        self.notices: list[str] = []
        self.upgrade()

    def get(self, option: Option[T]) -> T:
        raw = self.raw(option.key)
        if raw is None:
            return option.default
        return _coerce(raw, option.default)

    def set(self, option: Option[T], value: T) -> None:
        self.set_raw(option.key, value)

    def raw(self, key: str) -> Any:
        """The value stored under ``key`` as the store gives it, or ``None``."""
        if key in self._unsaved:
            return self._unsaved[key]
        return self.store.value(key, None)

    def set_raw(self, key: str, value: Any) -> None:
        if self.read_only:
            self._unsaved[key] = value
        else:
            self.store.setValue(key, value)

    def remove(self, key: str) -> None:
        if self.read_only:
            self._unsaved[key] = None
        else:
            self.store.remove(key)

    def sync(self) -> None:
        if not self.read_only:
            self.store.sync()

    # ------------------------------------------------------------------------- versions

    def version(self) -> int:
        """The version the store was written by: 1 for the unversioned stores of before, 0
        for an empty one."""
        stored = self.get(VERSION)
        if stored:
            return stored
        return 1 if self.store.allKeys() else 0

    def upgrade(self) -> None:
        """Run the upgrade steps from the store's version to :data:`CURRENT_VERSION`."""
        version = self.version()
        if version == CURRENT_VERSION:
            return
        if version > CURRENT_VERSION:
            return  # written by a newer program: read what we know, change nothing
        for step in range(version + 1, CURRENT_VERSION + 1):
            upgrade = UPGRADES.get(step)
            if upgrade is not None and version > 0:
                upgrade(self)
        self.set(VERSION, CURRENT_VERSION)
        self.sync()

    # ------------------------------------------------------------------------- search

    def search_options(self, base: SearchOptions | None = None) -> SearchOptions:
        """``base`` (the defaults) with the search settings the person changed; a value that
        cannot be read is left at its default, with a line in :attr:`notices` (a setting this
        program does not know, written by a newer one, is passed over quietly)."""
        options = base or SearchOptions()
        try:
            changed = json.loads(self.get(SEARCH))
        except (ValueError, RecursionError):
            self._notice("the saved search settings could not be read; using the defaults")
            return options
        if not isinstance(changed, dict):
            self._notice("the saved search settings could not be read; using the defaults")
            return options
        known = set(SearchOptions.__dataclass_fields__)
        for name, value in changed.items():
            try:
                options = SearchOptions.from_json({name: value}, options)
            except QueryError as exc:
                if name in known:
                    default = getattr(base or SearchOptions(), name)
                    self._notice(f"saved setting ignored: {exc}; using the default {default}")
        return options

    def _notice(self, line: str) -> None:
        if line not in self.notices:
            self.notices.append(line)

    def set_search_options(self, options: SearchOptions) -> None:
        """Keep what differs from the defaults (the limit is the window's, not kept)."""
        changed = replace(options, limit=SearchOptions().limit).changed()
        self.set(SEARCH, json.dumps(changed, sort_keys=True))

    def vault_state(self, path: str) -> VaultState:
        """What was shown of the vault at ``path`` when it was last left (the defaults for a
        vault never opened)."""
        key = _vault_key(path)
        default = VaultState()
        return VaultState(
            query=self.get(Option(f"{key}/query", default.query)),
            sort=self.get(Option(f"{key}/sort", default.sort)),
            panels=self.get(Option(f"{key}/panels", QByteArray())),
        )

    def set_vault_state(self, path: str, state: VaultState) -> None:
        key = _vault_key(path)
        self.set_raw(f"{key}/path", path)  # for a person reading the file
        self.set_raw(f"{key}/query", state.query)
        self.set_raw(f"{key}/sort", state.sort)
        self.set_raw(f"{key}/panels", state.panels)

    def remember_vault(self, path: str) -> list[str]:
        """Make ``path`` the last vault and the head of the recent list; returns the list."""
        recent = [p for p in self.get(RECENT_VAULTS) if p != path]
        recent.insert(0, path)
        recent = recent[:MAX_RECENT]
        self.set(RECENT_VAULTS, recent)
        self.set(LAST_VAULT, path)
        return recent


# ----------------------------------------------------------------------------- upgrade steps

#: Version 1's search settings: key → (setting, default then).  Frozen history: these are the
#: values version 1 wrote for a person who never changed them, whatever the defaults are now.
_V1_SEARCH: dict[str, tuple[str, Any]] = {
    "search/mode": ("mode", "hybrid"),
    "fusion/k": ("k", 60.0),
    "fusion/w_fts": ("w_fts", 0.7),
    "fusion/w_vec": ("w_vec", 0.3),
    "fusion/depth": ("depth", 50),
    "fusion/min_sim": ("min_sim", 0.3),
}


def _v2_search_settings_as_one_value(settings: Settings) -> None:
    """Version 1 wrote every search setting under its own key at each close, defaults included,
    so it cannot tell a chosen value from a default.  Version 2 keeps only the chosen ones: a
    value equal to version 1's default counts as not chosen, and follows the defaults now."""
    changed: dict[str, Any] = {}
    for key, (name, default) in _V1_SEARCH.items():
        raw = settings.raw(key)
        settings.remove(key)
        if raw is None:
            continue
        value = _coerce(raw, default)
        if value != default:
            try:
                changed[name] = parameter_named(name).coerce(value)
            except QueryError:
                continue
    settings.set(SEARCH, json.dumps(changed, sort_keys=True))


#: Version 2's fusion defaults (frozen history): weighted RRF, k 10, equal weights.
_V2_FUSION: dict[str, Any] = {"fusion": "rrf", "w_fts": 0.5, "w_vec": 0.5}


def _v3_rrf_tuning_stays_rrf(settings: Settings) -> None:
    """Version 3's default fusion is convex, where ``k`` means nothing and the weights weigh
    normalised scores rather than ranks.  A person who tuned version 2's RRF (changed ``k`` or a
    weight without choosing a method) keeps the ranking they tuned: RRF, with version 2's
    defaults for the weights they left alone.  Everyone else follows the new defaults."""
    try:
        changed = json.loads(settings.get(SEARCH))
    except ValueError:
        return
    if not isinstance(changed, dict) or "fusion" in changed:
        return
    if not {"k", "w_fts", "w_vec"} & set(changed):
        return
    settings.set(SEARCH, json.dumps({**_V2_FUSION, **changed}, sort_keys=True))


#: Version 3's fusion defaults (frozen history): convex, 0.3 / 0.7, relative floor 0.8.
_V3_FUSION: dict[str, Any] = {"fusion": "convex", "w_fts": 0.3, "w_vec": 0.7, "min_rel": 0.8}


def _v4_convex_tuning_stays_convex(settings: Settings) -> None:
    """Version 4's default fusion is calibrated, with other weights and no relative floor.  A
    person who tuned version 3's ranking (chose a method, or changed a weight or a floor) keeps
    the ranking they had: their values, and version 3's defaults (convex, 0.3 / 0.7, relative
    floor 0.8) for what they left alone.  Everyone else follows the new defaults."""
    try:
        changed = json.loads(settings.get(SEARCH))
    except ValueError:
        return
    if not isinstance(changed, dict) or changed.get("fusion") == "calibrated":
        return
    if "fusion" not in changed and not {"w_fts", "w_vec", "min_rel", "min_sim"} & set(changed):
        return
    settings.set(SEARCH, json.dumps({**_V3_FUSION, **changed}, sort_keys=True))


#: version → the step that turns the version before it into it.
UPGRADES: dict[int, Callable[[Settings], None]] = {
    2: _v2_search_settings_as_one_value,
    3: _v3_rrf_tuning_stays_rrf,
    4: _v4_convex_tuning_stays_convex,
}


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
