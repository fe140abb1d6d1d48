"""What the live index tells the world: its events, their subscribers and a short log.

Subscribers are called on the thread that publishes (the index's own threads): a window hands
what it receives to its own thread.  A subscriber that raises is logged and skipped; it never
stops the index.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from explorer.index.sync import SyncReport

log = logging.getLogger(__name__)

#: Events kept for a log shown after the fact.
EVENT_LOG = 500

T = TypeVar("T")


@dataclass(frozen=True)
class LiveEvent:
    """Something the live index did, for an event log."""

    kind: str  # "sync" | "embed-progress" | "embed-done" | "watcher" | "error" | "notice"
    time: float
    message: str
    report: SyncReport | None = None
    touched: frozenset[str] = frozenset()  # note paths whose results may change
    done: int = 0
    total: int = 0
    rate: float = 0.0
    note: str = ""


def changes_results(event: LiveEvent) -> bool:
    """Whether after ``event`` what the index answers may differ: notes changed, or vectors
    arrived."""
    return event.kind == "embed-done" or (event.kind == "sync" and bool(event.touched))


class Subscribers(Generic[T]):
    """Callbacks that get every value published from now on."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[T], None]] = []

    def subscribe(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Call ``callback`` with every value from now on; returns a function that
        unsubscribes it."""
        with self._lock:
            self._callbacks.append(callback)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return unsubscribe

    def publish(self, value: T, what: str | None = None) -> None:
        """Call every subscriber with ``value`` (``what`` names it in a failure's log)."""
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback(value)
            except Exception:  # a subscriber's bug must not stop the index
                log.exception("live index subscriber failed on %s", what or self.what)


class EventLog:
    """The live index's events: published to subscribers and kept, the latest
    :data:`EVENT_LOG` of them."""

    def __init__(self, size: int = EVENT_LOG) -> None:
        self._lock = threading.Lock()
        self._log: deque[LiveEvent] = deque(maxlen=size)
        self._subscribers: Subscribers[LiveEvent] = Subscribers("an event")

    def subscribe(self, callback: Callable[[LiveEvent], None]) -> Callable[[], None]:
        return self._subscribers.subscribe(callback)

    def events(self) -> list[LiveEvent]:
        """The most recent events, oldest first."""
        with self._lock:
            return list(self._log)

    def publish(self, event: LiveEvent) -> None:
        with self._lock:
            self._log.append(event)
        self._subscribers.publish(event, event.kind)

    def emit(self, kind: str, message: str, **fields: Any) -> None:
        """Publish an event of ``kind`` that happened now."""
        self.publish(LiveEvent(kind, time.time(), message, **fields))
