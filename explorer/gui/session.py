"""One open vault, seen from the GUI thread: its search thread and its live index.

Opening is ordered: the search thread opens the index first (creating or migrating it), then
the live index starts (reconcile, watch, embed) on its own threads, so two connections never
race to create the same database.  Everything arrives as signals on the GUI thread: search
results, live events, index health.  Closing never waits on the GUI thread unless asked to
(the application's exit does).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from explorer.embed.provider import EmbedderProvider
from explorer.gui.live_bridge import LiveBridge
from explorer.gui.search_service import SearchResult, SearchService
from explorer.live import Health, LiveEvent, LiveIndex
from explorer.search.hybrid import SearchOptions


class VaultSession(QObject):
    """The search service and the live index of one vault."""

    opened = Signal(object)  # list of notices from opening the index
    openFailed = Signal(str)
    searched = Signal(object)  # SearchResult of the latest request only
    liveEvent = Signal(object)  # LiveEvent
    healthChanged = Signal(object)  # Health, whenever the live index's health changes

    def __init__(
        self,
        vault: Path,
        data_dir: str | None,
        provider: EmbedderProvider,
        *,
        watch: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.vault = vault
        self.data_dir = data_dir
        self.provider = provider
        self.watch = watch
        self.service = SearchService(vault, data_dir, provider, self)
        self.service.opened.connect(self._service_opened)
        self.service.openFailed.connect(self.openFailed)
        self.service.finished.connect(self._finished)
        self.live: LiveIndex | None = None
        self.bridge: LiveBridge | None = None
        self.health: Health | None = None
        self.searching = False
        self.closed = False

    # ------------------------------------------------------------------ life

    def open(self) -> None:
        self.service.open()

    @property
    def is_open(self) -> bool:
        return self.service.is_open and not self.closed

    def _service_opened(self, notices: list[str]) -> None:
        if self.closed:
            return
        # The search thread created (or migrated) the database; now the live index may open it.
        self.live = LiveIndex(self.vault, self.data_dir, self.provider, watch=self.watch)
        self.bridge = LiveBridge(self.live, self)
        self.bridge.liveEvent.connect(self._live_event)
        self.bridge.healthChanged.connect(self._health_changed)
        self.bridge.start()
        self.opened.emit(notices)

    def close(self, wait: bool = False) -> None:
        """Stop the live index and the search thread (in the background unless ``wait``)."""
        if self.closed:
            return
        self.closed = True
        if self.bridge is not None:
            self.bridge.stop(wait=wait)
        self.service.close(wait=wait)

    # ------------------------------------------------------------------ searching

    def search(self, raw: str, options: SearchOptions) -> int:
        """Queue a search; its result arrives as ``searched`` unless a newer one supersedes it."""
        self.searching = True
        return self.service.search(raw, options)

    @property
    def calls(self) -> int:
        """Searches actually run (the cached lists are re-fused without one)."""
        return self.service.calls

    def _finished(self, result: SearchResult) -> None:
        if self.closed or not self.service.latest.is_current(result.request):
            return  # superseded: a newer request is on its way
        self.searching = False
        self.searched.emit(result)

    # ------------------------------------------------------------------ the live index

    def _live_event(self, event: LiveEvent) -> None:
        if not self.closed:
            self.liveEvent.emit(event)

    def _health_changed(self, health: Health) -> None:
        if not self.closed:
            self.health = health
            self.healthChanged.emit(health)

    def reconcile(self) -> None:
        if self.live is not None:
            self.live.request_reconcile()

    def settled(self) -> bool:
        """Whether the live index is idle: start-up reconcile done, nothing left to embed."""
        return self.live is not None and self.live.wait_idle(0)
