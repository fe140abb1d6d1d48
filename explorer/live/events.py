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
from typing import Any, ClassVar, Generic, Self, TypeVar

from explorer.index.sync import SyncReport

log = logging.getLogger(__name__)

#: Events kept for a log shown after the fact.
EVENT_LOG = 500

T = TypeVar("T")


@dataclass(frozen=True)
class Event:
    """Something the live index did, for an event log: when, and one line saying what.  Each
    kind is a class of its own (``kind`` names it in a log); how far embedding has got is not
    an event but the index's :class:`~explorer.live.health.Health`."""

    time: float
    message: str
    kind: ClassVar[str] = "event"

    @classmethod
    def now(cls, message: str, **fields: Any) -> Self:
        return cls(time.time(), message, **fields)


@dataclass(frozen=True)
class SyncEvent(Event):
    """The writer applied a batch or a reconcile; ``touched``: notes whose results may
    change."""

    report: SyncReport | None = None
    touched: frozenset[str] = frozenset()
    kind: ClassVar[str] = "sync"


@dataclass(frozen=True)
class VectorsStored(Event):
    """The embedder stored a batch of vectors, of the notes in ``touched``."""

    touched: frozenset[str] = frozenset()
    kind: ClassVar[str] = "embed-progress"


@dataclass(frozen=True)
class EmbedDone(Event):
    """The embedding queue emptied (``done`` chunks embedded in the run), or another process's
    writer changed vectors."""

    done: int = 0
    kind: ClassVar[str] = "embed-done"


@dataclass(frozen=True)
class WatcherEvent(Event):
    """The watcher's state changed."""

    kind: ClassVar[str] = "watcher"


@dataclass(frozen=True)
class ErrorEvent(Event):
    """Something failed (the index stays as the last commit)."""

    kind: ClassVar[str] = "error"


@dataclass(frozen=True)
class NoticeEvent(Event):
    """Something the user should know (an index rebuilt, a writer gone)."""

    kind: ClassVar[str] = "notice"


LiveEvent = SyncEvent | VectorsStored | EmbedDone | WatcherEvent | ErrorEvent | NoticeEvent


def changes_results(event: LiveEvent) -> bool:
    """Whether after ``event`` what the index answers may differ: notes changed, or vectors
    arrived."""
    return isinstance(event, EmbedDone) or (isinstance(event, SyncEvent) and bool(event.touched))


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

    def emit(self, kind: type[LiveEvent], message: str, **fields: Any) -> None:
        """Publish an event of ``kind`` that happened now."""
        self.publish(kind.now(message, **fields))
