"""What a hit's keys and menus do with its note: open it in the system's editor, in Obsidian,
or copy its path (a controller of the main window, given what it needs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication

from explorer.display import safe_text
from explorer.search.fusion.results import Hit
from explorer.vault.obsidian import open_uri

Say = Callable[[str, int], None]


class NoteActions(QObject):
    """Opens and copies the notes of the vault ``vault()`` gives; says what it did by ``say``;
    an opened note's query is kept among the recent ones by ``remember``."""

    def __init__(
        self,
        vault: Callable[[], Path | None],
        say: Say,
        remember: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.vault = vault
        self.say = say
        self.remember = remember
        #: How a URL is opened (tests record it instead).
        self.open_url: Callable[[QUrl], object] = QDesktopServices.openUrl

    def open_note(self, hit: Hit) -> None:
        """Open the note in the system's default editor (Enter, double click)."""
        self.remember()
        vault = self.vault()
        if vault is not None:
            self.open_url(QUrl.fromLocalFile(str(vault / hit.path)))
            self.say(f"Opened {safe_text(hit.path)}", 3000)

    def open_in_obsidian(self, path: str) -> None:
        """Open the note in Obsidian (the results' and the preview's menus offer it for an
        Obsidian vault)."""
        vault = self.vault()
        if vault is not None:
            self.open_url(QUrl(open_uri(vault, path), QUrl.ParsingMode.StrictMode))
            self.say(f"Opened {safe_text(path)} in Obsidian", 3000)

    def copy_path(self, hit: Hit) -> None:
        """Copy the note's full path (Ctrl+C in the results)."""
        vault = self.vault()
        if vault is not None:
            path = str(vault / hit.path)
            QGuiApplication.clipboard().setText(path)
            self.say(f"Copied {safe_text(path)}", 3000)
