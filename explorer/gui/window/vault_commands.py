"""The File menu's vault commands: open a vault (chosen, recent or the sample), reconcile the
index with the vault, pause its embedding (a controller of the main window, given what it
needs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from explorer.display import safe_text
from explorer.gui.core.resources import sample_vault
from explorer.gui.core.session import VaultSession
from explorer.gui.window import settings as opt
from explorer.gui.window.settings import Settings


class VaultCommands(QObject):
    """Opens vaults by ``open_vault``; acts on the open one's ``session()``."""

    def __init__(
        self,
        open_vault: Callable[[Path], None],
        vault: Callable[[], Path | None],
        session: Callable[[], VaultSession | None],
        settings: Settings,
        say: Callable[[str, int], None],
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self.open_vault = open_vault
        self.vault = vault
        self.session = session
        self.settings = settings
        self.say = say
        self.window = window  # the folder dialog's parent

    def choose(self) -> None:
        """File ▸ Open Vault…: a folder chosen in a dialog."""
        vault = self.vault()
        start = str(vault.parent) if vault else str(Path.home())
        chosen = QFileDialog.getExistingDirectory(self.window, "Open Vault", start)
        if chosen:
            self.open_vault(Path(chosen))

    def open_sample(self) -> None:
        self.open_vault(sample_vault())

    def fill_recent(self, menu: QMenu) -> None:
        """File ▸ Open Recent, filled as it opens: the recent vaults (a gone one disabled)."""
        menu.clear()
        recent = self.settings.get(opt.RECENT_VAULTS)
        for entry in recent:
            action = menu.addAction(safe_text(entry))
            action.setEnabled(Path(entry).is_dir())
            action.triggered.connect(lambda _=False, p=entry: self.open_vault(Path(p)))
        if not recent:
            menu.addAction("(none)").setEnabled(False)

    def reconcile(self) -> None:
        """File ▸ Reconcile (F5): compare the index with the vault now."""
        session = self.session()
        if session is not None:
            session.reconcile()
            self.say("Reconciling the index with the vault…", 3000)

    def pause_embedding(self, paused: bool) -> None:
        """File ▸ Pause Embedding: hold (or resume) the embedding of this vault's notes, and
        of any vault opened while it is checked."""
        session = self.session()
        if session is not None and session.live is not None:
            session.live.pause_embedding(paused)
