"""The window's menus: File (vaults, index), Search, View (fusion, tuning, theme), Compare, Help.

The actions are declared in :mod:`~explorer.gui.window.actions`, one by an
:class:`~explorer.gui.window.actions.Action` each; here they are laid out in the menu bar.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from explorer.gui.core.theme import THEMES
from explorer.gui.window.actions import Action
from explorer.gui.window.parts import WindowParts


@dataclass
class Menus:
    """What the menu bar holds besides the declared actions."""

    recent: QMenu
    themes: dict[str, QAction]
    #: The Search menu (the model menu adds itself there).
    search: QMenu
    #: Search ▸ Saved Searches (filled by :class:`~explorer.gui.window.saved_menu.SavedMenu`).
    saved: QMenu


def build_menus(window: WindowParts, actions: dict[Action, QAction]) -> Menus:
    """Fill the window's menu bar with ``actions`` (and the menus made from lists)."""
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    file_menu.addAction(actions[Action.OPEN_VAULT])
    recent = QMenu("Open &Recent", window)
    recent.aboutToShow.connect(lambda: window.vaults.fill_recent(recent))
    file_menu.addMenu(recent)
    file_menu.addAction(actions[Action.OPEN_SAMPLE_VAULT])
    file_menu.addSeparator()
    file_menu.addAction(actions[Action.RECONCILE])
    file_menu.addAction(actions[Action.PAUSE_EMBEDDING])
    file_menu.addAction(actions[Action.SKIPPED_FILES])
    file_menu.addSeparator()
    file_menu.addAction(actions[Action.QUIT])

    search = bar.addMenu("&Search")
    search.addAction(actions[Action.WHY_NOT])
    search.addSeparator()
    search.addAction(actions[Action.SAVE_SEARCH])
    saved = search.addMenu("Saved Searc&hes")
    saved.setObjectName("savedSearches")
    search.addSeparator()

    view = bar.addMenu("&View")
    for key in (
        Action.RESET_FUSION,
        Action.TUNE,
        Action.QUALITY_PANEL,
        Action.DISTRIBUTIONS,
        Action.AROUND,
        Action.FACETS,
    ):
        view.addAction(actions[key])
    theme_menu = view.addMenu("&Theme")
    group = QActionGroup(window)
    themes: dict[str, QAction] = {}
    for theme in THEMES:
        action = QAction(theme.capitalize(), window, checkable=True)
        action.triggered.connect(lambda _=False, t=theme: window.set_theme(t))
        group.addAction(action)
        theme_menu.addAction(action)
        themes[theme] = action

    compare = bar.addMenu("&Compare")
    compare.setToolTipsVisible(True)
    compare.addAction(actions[Action.PIN_BASELINE])
    compare.addAction(actions[Action.UNPIN_BASELINE])
    compare.addSeparator()
    for action in window.compare_bar.pair_actions:
        compare.addAction(action)

    help_menu = bar.addMenu("&Help")
    help_menu.addAction(actions[Action.QUERY_SYNTAX])
    help_menu.addAction(actions[Action.ABOUT])
    return Menus(recent, themes, search, saved)
