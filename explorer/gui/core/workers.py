"""Running work off the GUI thread: a ``QRunnable`` with a separate signals ``QObject``.

The superqt pattern: the runnable does the work on a pool thread and only *emits*; the signals
object lives in the GUI thread, so every slot connected to it runs there (queued).  Workers never
touch widgets.  A worker can be aborted cooperatively (``should_stop``), and results of a request
that is no longer the latest are dropped by whoever receives them (see :class:`Latest`).
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class WorkerSignals(QObject):
    """What a worker reports; connect before :meth:`Worker.start`."""

    started = Signal()
    returned = Signal(object)
    errored = Signal(object)  # the exception
    finished = Signal()


class Worker(QRunnable):
    """Calls ``fn(*args, **kwargs)`` on a pool thread and emits its result or exception."""

    _running: ClassVar[set[Worker]] = set()  # keeps Python wrappers alive until they finish
    _lock = threading.Lock()

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.signals = WorkerSignals()
        self._abort = threading.Event()

    def abort(self) -> None:
        """Ask the work to stop at its next check of :meth:`should_stop`."""
        self._abort.set()

    def should_stop(self) -> bool:
        return self._abort.is_set()

    def start(self, pool: QThreadPool | None = None) -> Worker:
        with Worker._lock:
            Worker._running.add(self)
        # Released on the GUI thread once ``finished`` is delivered, after every earlier signal.
        self.signals.finished.connect(self._release)
        (pool or QThreadPool.globalInstance()).start(self)
        return self

    def run(self) -> None:
        signals = self.signals
        try:
            signals.started.emit()
            if self._abort.is_set():
                return
            try:
                result = self.fn(*self.args, **self.kwargs)
            except Exception as exc:
                exc.__traceback_text__ = traceback.format_exc()  # type: ignore[attr-defined]
                signals.errored.emit(exc)
            else:
                signals.returned.emit(result)
        finally:
            signals.finished.emit()

    def _release(self) -> None:
        with Worker._lock:
            Worker._running.discard(self)


def run_in_pool(
    fn: Callable[..., Any],
    *args: Any,
    on_result: Callable[[Any], None] | None = None,
    on_error: Callable[[Any], None] | None = None,
    pool: QThreadPool | None = None,
    **kwargs: Any,
) -> Worker:
    """Start ``fn`` on ``pool`` (default: the global pool) with callbacks run on the GUI
    thread."""
    worker = Worker(fn, *args, **kwargs)
    if on_result is not None:
        worker.signals.returned.connect(on_result)
    if on_error is not None:
        worker.signals.errored.connect(on_error)
    return worker.start(pool)


class Latest:
    """Request ids: each new request supersedes the older ones, whose results are dropped."""

    def __init__(self) -> None:
        self._current = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            self._current += 1
            return self._current

    @property
    def current(self) -> int:
        return self._current

    def is_current(self, request: int) -> bool:
        return request == self._current
