"""The vault's recent queries in the search field, and where its saved searches are kept.

:class:`SearchHistory` holds the open vault's :class:`~explorer.search.answers.saved.SearchStore`
(one small JSON file beside the index, never in the vault) for the history and for the saved
searches (:mod:`~explorer.gui.window.saved_menu`).

A query is remembered when the person shows they have arrived at it, not per keystroke (the
field searches as one types, and "mee", "meet", "meeti" are no queries anyone wants back): on
Enter, on moving into the results (Down, a click on a row) and on opening a note.  An empty
query (the recent notes) is never remembered.

The store is read on the GUI thread (one small file, read within budgets) and written off it:
each change shows at once and its write (under the file's lock, merged with what the command
line saved meanwhile: :meth:`~explorer.search.answers.saved.SearchStore.flush`) runs on the window's
background executor; closing the vault waits for the writes under way.  What reading the file
dropped is logged once and said in the status bar (:attr:`SearchHistory.problem`).

The recent queries open as a menu under the field: Up in the field, Alt+Down, or the ▾ button
at its end.  Down in the field keeps moving into the results.  In the menu Up/Down move, Enter
runs the query (with the settings on screen), Esc goes back to the field.
"""

from __future__ import annotations

import logging
import os
from concurrent import futures
from concurrent.futures import Future
from pathlib import Path

from PySide6.QtCore import QObject, QPoint, Signal
from PySide6.QtWidgets import QMenu, QWidget

from explorer.display import safe_text
from explorer.gui.core.workers import BACKGROUND, reply_to
from explorer.search.answers.saved import SavedSearch, SearchStore
from explorer.search.query.options import SearchOptions

log = logging.getLogger(__name__)

#: Recent queries the menu lists, and the longest text it shows of one.
MENU_ENTRIES = 20
MENU_TEXT = 90
#: Seconds closing a vault waits for the writes of its searches under way.
WRITE_WAIT = 10.0


def menu_text(query: str, most: int = MENU_TEXT) -> str:
    """How a query shows in a menu: safe, on one line, cut to ``most`` characters."""
    text = " ".join(safe_text(query).split())
    text = text if len(text) <= most else text[: most - 1] + "…"
    return text.replace("&", "&&")  # no mnemonic


class SearchHistory(QObject):
    """The open vault's recent and saved searches, and the menu of the recent queries."""

    #: A recent query chosen from the menu (its text).
    recalled = Signal(str)
    #: The saved searches changed (saved, replaced or deleted).
    savedChanged = Signal()
    #: A line to show: what reading the store dropped, or why a write failed.
    problem = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.store: SearchStore | None = None
        self.menu = QMenu(parent)
        self.menu.setObjectName("historyMenu")
        self.menu.setToolTipsVisible(True)
        self._writes: list[Future[None]] = []

    # ------------------------------------------------------------------ the vault

    def open_vault(self, vault: Path, data_dir: str | os.PathLike[str] | None) -> None:
        self.store = SearchStore.of(vault, data_dir)
        for line in self.store.take_problems():
            log.warning("%s", line)
            self.problem.emit(line)
        self._write()  # a file reading found fault with is repaired
        self.savedChanged.emit()  # another vault's saved searches

    def close_vault(self) -> None:
        self.wait_written(WRITE_WAIT)
        self.store = None
        self.savedChanged.emit()

    def wait_written(self, timeout: float | None = None) -> bool:
        """Wait for the writes under way; whether they all ended."""
        self._writes = list(futures.wait(self._writes, timeout).not_done)
        return not self._writes

    def _write(self) -> None:
        """Write the store's changes on the background executor (a failure is logged and
        said: the changes stay staged for the next write)."""
        if self.store is None:
            return
        self._writes = [w for w in self._writes if not w.done()]
        job = BACKGROUND.submit(self.store.flush)
        self._writes.append(job)
        reply_to(job, on_error=self._write_failed)

    def _write_failed(self, exc: BaseException) -> None:
        line = f"recent and saved searches not written: {exc}"
        log.warning("%s", line)
        self.problem.emit(line)

    # ------------------------------------------------------------------ the history

    def remember(self, query: str, options: SearchOptions) -> None:
        """Put ``query`` first among the vault's recent queries (an empty one is not kept)."""
        if self.store is None or not query.strip():
            return
        recent = self.store.recent()
        if recent and recent[0].query == query and recent[0].options == options:
            return  # already the newest: no write
        if self.store.stage_remember(query, options):
            self._write()

    def recent(self) -> list[str]:
        """The vault's recent queries, newest first."""
        return [r.query for r in self.store.recent()] if self.store is not None else []

    def show_menu(self, under: QWidget) -> None:
        """List the recent queries in a menu under ``under`` (the search field)."""
        self.fill_menu()
        self.menu.setMinimumWidth(under.width())  # a drop-down of the field
        self.menu.popup(under.mapToGlobal(QPoint(0, under.height())))
        actions = [a for a in self.menu.actions() if a.isEnabled()]
        if actions:
            self.menu.setActiveAction(actions[0])

    def fill_menu(self) -> None:
        self.menu.clear()
        recent = self.recent()[:MENU_ENTRIES]
        for query in recent:
            action = self.menu.addAction(menu_text(query))
            action.setToolTip(safe_text(query))
            action.triggered.connect(lambda _=False, q=query: self.recalled.emit(q))
        if not recent:
            self.menu.addAction("(no recent queries yet)").setEnabled(False)

    # ------------------------------------------------------------------ saved searches

    def saved(self) -> dict[str, SavedSearch]:
        return self.store.saved() if self.store is not None else {}

    def save(self, name: str, query: str, options: SearchOptions) -> None:
        """Keep ``query`` and ``options`` as ``name`` (raises QueryError for a bad name)."""
        if self.store is None:
            return
        self.store.stage_save(name, query, options)
        self._write()
        self.savedChanged.emit()

    def delete(self, name: str) -> bool:
        deleted = self.store is not None and self.store.stage_delete(name)
        if deleted:
            self._write()
            self.savedChanged.emit()
        return deleted
