"""The window's menu actions, each declared once by an :class:`Action` and looked up by it.

Each action's ``QAction`` is made by one function registered with :func:`add_action` (text,
shortcut, tooltip, what it calls); :func:`make_actions` makes them all for a window, and
:mod:`~explorer.gui.window.menus` lays them out in the menu bar.  The window, its menus and the
tests find an action by its member: ``window.action(Action.TUNE)``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum, auto

from PySide6.QtGui import QAction, QKeySequence

from explorer.gui.window.help import show_about, show_syntax
from explorer.gui.window.parts import WindowParts


class Action(Enum):
    """Every action of the window's menus (the themes, recent vaults, models and compare
    pairs are made from lists, not declared one by one)."""

    OPEN_VAULT = auto()
    OPEN_SAMPLE_VAULT = auto()
    RECONCILE = auto()
    PAUSE_EMBEDDING = auto()
    SKIPPED_FILES = auto()
    QUIT = auto()
    WHY_NOT = auto()
    SAVE_SEARCH = auto()
    MANAGE_SAVED = auto()
    RESET_FUSION = auto()
    TUNE = auto()
    QUALITY_PANEL = auto()
    DISTRIBUTIONS = auto()
    AROUND = auto()
    FACETS = auto()
    PIN_BASELINE = auto()
    UNPIN_BASELINE = auto()
    QUERY_SYNTAX = auto()
    ABOUT = auto()


Factory = Callable[[WindowParts], QAction]
_FACTORIES: dict[Action, Factory] = {}


def add_action(key: Action) -> Callable[[Factory], Factory]:
    """Register the function that makes ``key``'s action for a window."""

    def register(factory: Factory) -> Factory:
        if key in _FACTORIES:
            raise ValueError(f"{key} is registered twice")
        _FACTORIES[key] = factory
        return factory

    return register


def make_actions(window: WindowParts) -> dict[Action, QAction]:
    """Every registered action, made for ``window``."""
    missing = set(Action) - set(_FACTORIES)
    if missing:
        raise LookupError(f"no action registered for {sorted(m.name for m in missing)}")
    return {key: _FACTORIES[key](window) for key in Action}


# ---------------------------------------------------------------------------------- File


@add_action(Action.OPEN_VAULT)
def _open_vault(window: WindowParts) -> QAction:
    action = QAction("&Open Vault…", window)
    action.setShortcut(QKeySequence.StandardKey.Open)
    action.triggered.connect(window.vaults.choose)
    return action


@add_action(Action.OPEN_SAMPLE_VAULT)
def _open_sample_vault(window: WindowParts) -> QAction:
    action = QAction("Open &Sample Vault", window)
    action.triggered.connect(window.vaults.open_sample)
    return action


@add_action(Action.RECONCILE)
def _reconcile(window: WindowParts) -> QAction:
    action = QAction("&Reconcile Index Now", window)
    action.setShortcut(QKeySequence("F5"))
    action.triggered.connect(window.vaults.reconcile)
    return action


@add_action(Action.PAUSE_EMBEDDING)
def _pause_embedding(window: WindowParts) -> QAction:
    action = QAction("&Pause Embedding", window, checkable=True)
    action.setToolTip(
        "Hold the embedding of the notes after the batch under way (meaning search then finds "
        "only the notes already embedded; words search is not affected)"
    )
    action.toggled.connect(window.vaults.pause_embedding)
    return action


@add_action(Action.SKIPPED_FILES)
def _skipped_files(window: WindowParts) -> QAction:
    action = QAction("&Skipped Files…", window)
    action.triggered.connect(window.dialogs.show_skipped)
    return action


@add_action(Action.QUIT)
def _quit(window: WindowParts) -> QAction:
    action = QAction("&Quit", window)
    action.setShortcut(QKeySequence.StandardKey.Quit)
    action.triggered.connect(window.close)
    return action


# ---------------------------------------------------------------------------------- Search


@add_action(Action.WHY_NOT)
def _why_not(window: WindowParts) -> QAction:
    action = QAction("Why &Not This Note…", window)
    action.setShortcut(QKeySequence("Ctrl+Shift+W"))
    action.setToolTip("Every reason a note is where it is for this query and these settings")
    action.triggered.connect(lambda: window.dialogs.show_why_not())
    return action


@add_action(Action.SAVE_SEARCH)
def _save_search(window: WindowParts) -> QAction:
    action = QAction("&Save Search…", window)
    action.setShortcut(QKeySequence.StandardKey.Save)
    action.setToolTip("Keep the query with its mode, fusion settings and sort under a name")
    action.triggered.connect(lambda: window.searches.save())
    return action


@add_action(Action.MANAGE_SAVED)
def _manage_saved(window: WindowParts) -> QAction:
    action = QAction("&Manage Saved Searches…", window)
    action.setToolTip("Run or delete this vault's saved searches")
    action.triggered.connect(window.dialogs.show_saved)
    return action


# ---------------------------------------------------------------------------------- View


@add_action(Action.RESET_FUSION)
def _reset_fusion(window: WindowParts) -> QAction:
    action = QAction("Reset &Fusion Settings", window)
    action.triggered.connect(window.fusion.reset)
    return action


@add_action(Action.TUNE)
def _tune(window: WindowParts) -> QAction:
    action = QAction("T&une on Judgments…", window)
    action.setToolTip("Score every fusion setting on this vault's graded queries; apply the best")
    action.triggered.connect(window.dialogs.show_tune)
    return action


@add_action(Action.QUALITY_PANEL)
def _quality_panel(window: WindowParts) -> QAction:
    action = window.quality.toggleViewAction()
    action.setText("&Quality Panel")
    action.setToolTip("Judged queries with nDCG@10 per mode; grade a hit with keys 0–3")
    return action


@add_action(Action.DISTRIBUTIONS)
def _distributions(window: WindowParts) -> QAction:
    action = QAction("Score &Distributions", window, checkable=True)
    action.setChecked(True)
    action.setToolTip(
        "Under the results: the query's cosine over the vault and the lexical list's bm25 by "
        "pass, the hits marked"
    )
    action.toggled.connect(window.distributions.setVisible)
    return action


@add_action(Action.AROUND)
def _around(window: WindowParts) -> QAction:
    action = window.around.toggleViewAction()
    action.setText("&Around This Note")
    action.setShortcut(QKeySequence("Ctrl+Shift+A"))
    action.setToolTip("Backlinks and related notes of the note in the preview")
    return action


@add_action(Action.FACETS)
def _facets(window: WindowParts) -> QAction:
    action = window.facets.toggleViewAction()
    action.setText("&Facets")
    action.setShortcut(QKeySequence("Ctrl+Shift+F"))
    action.setToolTip("Tags, folders and property values of the results; a click filters")
    return action


# ---------------------------------------------------------------------------------- Compare


@add_action(Action.PIN_BASELINE)
def _pin_baseline(window: WindowParts) -> QAction:
    return window.compare_bar.pin_action


@add_action(Action.UNPIN_BASELINE)
def _unpin_baseline(window: WindowParts) -> QAction:
    return window.compare_bar.unpin_action


# ---------------------------------------------------------------------------------- Help


@add_action(Action.QUERY_SYNTAX)
def _query_syntax(window: WindowParts) -> QAction:
    action = QAction("Query &Syntax", window)
    action.triggered.connect(lambda: show_syntax(window))
    return action


@add_action(Action.ABOUT)
def _about(window: WindowParts) -> QAction:
    action = QAction("&About Vault Explorer", window)
    action.triggered.connect(lambda: show_about(window))
    return action
