"""The window's menu actions are declared once by an Action and found by it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from explorer.embed.provider import EmbedderProvider
from explorer.gui.window.actions import Action
from tests.gui.conftest import WindowFactory
from tests.gui.driver import drive


def test_every_action_is_made_once_and_sits_in_a_menu(
    make_window: WindowFactory, fake_provider: EmbedderProvider, vault: Path
) -> None:
    window = make_window(fake_provider, vault)
    in_menus = {
        action for menu in window.menuBar().findChildren(QMenu) for action in menu.actions()
    }
    made = [drive(window).action(key) for key in Action]
    assert all(isinstance(action, QAction) for action in made)
    assert len(set(made)) == len(Action)
    assert set(made) <= in_menus
    assert drive(window).action(Action.RECONCILE).shortcut().toString() == "F5"
