"""The live index seen from the GUI thread: its events and its health as Qt signals.

:class:`~explorer.live.LiveIndex` calls subscribers on its own threads; the bridge re-emits each
event through a signal of a ``QObject`` that lives in the GUI thread, so the slots run there
(queued).  Health changes arrive the same way, coalesced: however many the index publishes while
the GUI thread is busy, the window gets the latest one once (``healthChanged``).  Nothing here
reads the database.  Stopping a live index can take seconds (it finishes a batch);
:meth:`LiveBridge.stop` does it as a job of :data:`STOPPING`, waited for only when told to.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal

from explorer.jobs import Job, PriorityExecutor
from explorer.live import Health, LiveEvent, LiveIndex

#: Where live indexes stop: side by side (a window switching vaults while the last one stops).
STOPPING = PriorityExecutor("live-index-stop", workers=4)
#: Seconds :meth:`LiveBridge.stop` waits at most when told to wait.
STOP_WAIT_S = 15.0


class LiveBridge(QObject):
    """Owns one running :class:`LiveIndex` for the window."""

    liveEvent = Signal(object)  # LiveEvent, on the GUI thread
    healthChanged = Signal(object)  # Health, on the GUI thread
    _healthPosted = Signal()  # a newer Health waits in ``_posted``

    def __init__(self, live: LiveIndex, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.live = live
        self._unsubscribe: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._posted: Health | None = None
        self._stopped = False
        self.last_health: Health | None = None
        self._healthPosted.connect(self._deliver_health, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
        self._unsubscribe = [
            self.live.subscribe(self._on_event),
            self.live.subscribe_health(self._on_health),
        ]
        self._on_health(self.live.health())  # how it stands before the first change
        self.live.start()

    def _on_event(self, event: LiveEvent) -> None:
        # Called on a LiveIndex thread: only emit (queued to the GUI thread).
        if not self._stopped:
            self.liveEvent.emit(event)

    def _on_health(self, health: Health) -> None:
        # Called on a LiveIndex thread: keep the latest, and ask the GUI thread to take it
        # unless an earlier request is still on its way.
        with self._lock:
            waiting = self._posted is not None
            self._posted = health
        if not waiting and not self._stopped:
            self._healthPosted.emit()

    def _deliver_health(self) -> None:
        with self._lock:
            health, self._posted = self._posted, None
        if health is None or self._stopped:
            return
        self.last_health = health
        self.healthChanged.emit(health)

    def stop(self, wait: bool = False) -> Job[None] | None:
        """Stop watching; the live index stops in the background (waited for if ``wait``)."""
        if self._stopped:
            return None
        self._stopped = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        stopping = STOPPING.submit(self.live.stop)
        if wait:
            concurrent.futures.wait([stopping], STOP_WAIT_S)
        return stopping
