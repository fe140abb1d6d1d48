"""The live index seen from the GUI thread: its events as a Qt signal, its health polled.

:class:`~explorer.live.LiveIndex` calls subscribers on its own threads; the bridge re-emits each
event through a signal of a ``QObject`` that lives in the GUI thread, so the slots run there
(queued).  ``health()`` reads the database, so it runs on a pool thread, at most one at a time,
and arrives as ``healthChanged``.  Stopping a live index can take seconds (it finishes a batch);
:meth:`LiveBridge.stop` does it on a background thread unless told to wait.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from explorer.gui.workers import run_in_pool
from explorer.live import LiveEvent, LiveIndex

HEALTH_INTERVAL_MS = 1000


class LiveBridge(QObject):
    """Owns one running :class:`LiveIndex` for the window."""

    liveEvent = Signal(object)  # LiveEvent, on the GUI thread
    healthChanged = Signal(object)  # dict from LiveIndex.health()

    def __init__(self, live: LiveIndex, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.live = live
        self._unsubscribe: Any = None
        self._health_busy = False
        self._health_again = False
        self._stopped = False
        self.last_health: dict[str, Any] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(HEALTH_INTERVAL_MS)
        self._timer.timeout.connect(self.poll_health)

    def start(self) -> None:
        self._unsubscribe = self.live.subscribe(self._on_event)
        self.live.start()
        self._timer.start()
        self.poll_health()

    def _on_event(self, event: LiveEvent) -> None:
        # Called on a LiveIndex thread: only emit (queued to the GUI thread).
        if not self._stopped:
            self.liveEvent.emit(event)

    def poll_health(self) -> None:
        """Ask for the index health (coalesced: one read at a time, one more queued)."""
        if self._stopped:
            return
        if self._health_busy:
            self._health_again = True
            return
        self._health_busy = True
        live = self.live

        def read() -> dict[str, Any]:
            return live.health()

        run_in_pool(read, on_result=self._health_read, on_error=self._health_failed)

    def _health_read(self, health: dict[str, Any]) -> None:
        self._health_busy = False
        if self._stopped:
            return
        self.last_health = health
        self.healthChanged.emit(health)
        if self._health_again:
            self._health_again = False
            self.poll_health()

    def _health_failed(self, exc: BaseException) -> None:
        self._health_busy = False

    def stop(self, wait: bool = False) -> threading.Thread | None:
        """Stop watching; the live index stops on a background thread (joined if ``wait``)."""
        if self._stopped:
            return None
        self._stopped = True
        self._timer.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        live = self.live
        thread = threading.Thread(target=live.stop, name="live-index-stop", daemon=True)
        thread.start()
        if wait:
            thread.join(15.0)
        return thread
