"""Where a search's time goes: named stages, timed only while someone records them.

The search functions mark their steps (``with stage("parse"): …``); a caller that wants the
figures opens a recorder around the call (``with recording() as steps: searcher.search(…)``)
and reads ``steps.ms`` afterwards.  With no recorder open, :func:`stage` hands back one shared
empty context: a context-variable look-up, no clock read, nothing kept.

A stage's time is its own: a stage opened inside another is taken out of the outer one, so the
stages of the recording thread add up to the time they cover, and :attr:`Stages.total_ms` less
their sum is what no stage covered (:attr:`Stages.other_ms`).  Work handed to another thread
records into the same recorder when it runs in a copy of the caller's context
(:func:`contextvars.copy_context`); its stages ran *beside* the recording thread, and are kept
apart (:attr:`Stages.beside`), not counted in the sum.

No Qt and nothing else of the program's here: every layer may use it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from types import TracebackType


class Stages:
    """The milliseconds of each named stage of one recorded call."""

    def __init__(self) -> None:
        #: Milliseconds by stage, in the order each stage first ended.
        self.ms: dict[str, float] = {}
        #: The stages that ran on another thread than the recording one (beside it).
        self.beside: set[str] = set()
        #: The whole recorded call, set when the recording ends.
        self.total_ms = 0.0
        self._thread = threading.get_ident()
        self._lock = threading.Lock()
        #: Per thread, the time taken by the stages nested in each open stage.
        self._open: dict[int, list[float]] = {}

    @property
    def own_ms(self) -> float:
        """The sum of the stages of the recording thread (those beside it ran meanwhile)."""
        return sum(ms for name, ms in self.ms.items() if name not in self.beside)

    @property
    def other_ms(self) -> float:
        """What no stage of the recording thread covered: the recorded call less their sum."""
        return max(0.0, self.total_ms - self.own_ms)

    def _add(self, name: str, ms: float, thread: int) -> None:
        with self._lock:
            self.ms[name] = self.ms.get(name, 0.0) + ms
            if thread != self._thread:
                self.beside.add(name)


_RECORDER: ContextVar[Stages | None] = ContextVar("explorer_stages", default=None)


class _Timed:
    """One stage under way: its time, less that of the stages opened inside it, to ``into``."""

    __slots__ = ("_into", "_name", "_nested", "_started", "_thread")

    def __init__(self, into: Stages, name: str) -> None:
        self._into = into
        self._name = name

    def __enter__(self) -> None:
        self._thread = threading.get_ident()
        self._nested = self._into._open.setdefault(self._thread, [])
        self._nested.append(0.0)
        self._started = time.perf_counter()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        elapsed = (time.perf_counter() - self._started) * 1000
        inner = self._nested.pop()
        if self._nested:
            self._nested[-1] += elapsed
        self._into._add(self._name, elapsed - inner, self._thread)


_OFF = contextlib.nullcontext()


def stage(name: str) -> contextlib.AbstractContextManager[None]:
    """Time the block as stage ``name`` of the call being recorded, if one is."""
    into = _RECORDER.get()
    return _OFF if into is None else _Timed(into, name)


@contextlib.contextmanager
def recording() -> Iterator[Stages]:
    """Record the stages of what runs inside the block (this thread, and the work it hands on
    in a copy of its context); the figures are complete when the block ends."""
    steps = Stages()
    token = _RECORDER.set(steps)
    started = time.perf_counter()
    try:
        yield steps
    finally:
        steps.total_ms = (time.perf_counter() - started) * 1000
        _RECORDER.reset(token)
