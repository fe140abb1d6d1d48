"""Query embeddings in order of urgency: one thread, a priority queue.

Every :class:`~explorer.search.hybrid.Searcher` of a process embeds its query on this one
thread (the model is used by one query at a time, and a query's timeout starts when it is
asked for).  The window's own query is :data:`URGENT`: it goes ahead of whatever questions a
panel queued (:data:`NORMAL`), so it waits at most for the one embedding under way.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

#: The window's own query.
URGENT = 0
#: Everything else: a panel's questions, a command's queries.
NORMAL = 10


class PriorityExecutor:
    """One worker thread that runs what it is given, most urgent (lowest number) first and in
    the order given within one priority.  The thread starts with the first call."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: list[tuple[int, int, Future[Any], Callable[[], Any]]] = []
        self._order = itertools.count()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, fn: Callable[..., T], *args: Any, priority: int = NORMAL) -> Future[T]:
        future: Future[T] = Future()
        with self._ready:
            heapq.heappush(self._queue, (priority, next(self._order), future, lambda: fn(*args)))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._ready.notify()
        return future

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                _, _, future, call = heapq.heappop(self._queue)
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = call()
            except BaseException as exc:  # handed to whoever waits for it
                future.set_exception(exc)
            else:
                future.set_result(result)


#: The process's query-embedding thread.
EXECUTOR = PriorityExecutor("embed-query")
