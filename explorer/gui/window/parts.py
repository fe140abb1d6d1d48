"""What the window's actions, menus and dialogs use of it, declared apart from the window.

:class:`WindowParts` is the main window as :mod:`~explorer.gui.window.actions`,
:mod:`~explorer.gui.window.menus`, :mod:`~explorer.gui.window.dialogs` and
:mod:`~explorer.gui.window.model_menu` see it: the widgets they connect to and the few things
they ask it to do.  :class:`~explorer.gui.window.main_window.MainWindow` is one; they import
this module, never the window's, so the window imports them without a circle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLineEdit, QMainWindow

from explorer.gui.core.session import VaultSession
from explorer.gui.panels.facets_panel import FacetsPanel
from explorer.gui.panels.fusion_controls import FusionControls
from explorer.gui.panels.quality_panel import QualityPanel
from explorer.gui.preview.around import AroundPanel
from explorer.gui.results.compare_bar import CompareBar
from explorer.gui.results.distributions import DistributionsPanel
from explorer.gui.window.history import SearchHistory
from explorer.gui.window.models import Models
from explorer.gui.window.searches import Searches
from explorer.gui.window.vault_commands import VaultCommands
from explorer.live import Health
from explorer.search.query.options import SearchOptions


class Dialogs(Protocol):
    """The window's dialogs, as its actions open them."""

    def show_skipped(self) -> None: ...

    def show_tune(self) -> None: ...

    def show_why_not(self, path: str | None = None) -> object: ...

    def show_saved(self) -> object: ...


class WindowParts(QMainWindow):
    """The main window's parts its actions, menus and dialogs use (the window sets them)."""

    vaultOpened = Signal(object)  # Path, each time a vault is opened

    vault: Path | None
    session: VaultSession | None
    models: Models
    search_field: QLineEdit
    fusion: FusionControls
    compare_bar: CompareBar
    quality: QualityPanel
    around: AroundPanel
    facets: FacetsPanel
    distributions: DistributionsPanel
    history: SearchHistory
    dialogs: Dialogs
    searches: Searches
    vaults: VaultCommands

    @property
    def health(self) -> Health | None:
        """The open vault's live index health."""
        raise NotImplementedError

    def options(self) -> SearchOptions:
        """The search settings on screen."""
        raise NotImplementedError

    def use_model(self, name: str) -> None:
        raise NotImplementedError

    def set_theme(self, theme: str) -> None:
        raise NotImplementedError
