"""Work off the asking thread, most urgent first: the one executor of the process's jobs.

A :class:`PriorityExecutor` runs what it is given on threads of its own (started at the first
need, at most ``workers`` of them), most urgent (lowest :attr:`Job.priority`) first and in the
order given within one priority.  Each call is a :class:`Job`: the future of its outcome.  The
query embeddings, the vector list beside the lexical one, the model's loading, an open vault's
reads (:class:`explorer.live.reader.IndexReader`) and the window's background work all run on
one.

**Groups.**  A job may belong to a group, in which the newest request supersedes the older ones
(:meth:`PriorityExecutor.supersede` makes a request without a job, to drop the older ones; a
request of several steps gives each step its number: ``submit(…, request=n)``).  A
superseded job still queued is dropped (its future cancelled); one under way is no longer
:meth:`Job.wanted`, and its next :meth:`PriorityExecutor.checkpoint` raises :class:`Superseded`
(an owner may stop it sooner: ``on_supersede``).  Whoever hands a job's outcome on hands it on
only while the job is wanted (the window: :func:`explorer.gui.core.workers.reply_to`): one rule for
what is dropped, wherever the job ran.

**Checkpoints.**  A long job calls :meth:`PriorityExecutor.checkpoint` between its steps: it
stops there when superseded, and runs any more urgent job queued meanwhile right there, on its
own thread (so what a one-thread executor's jobs share, such as a database connection, keeps one
user at a time).

No Qt and nothing else of the program's here: every layer may use it.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

#: The window's own query (and what it shows at once).
URGENT = 0
#: Everything else: a panel's questions, a command's queries.
NORMAL = 10


class Superseded(Exception):
    """A newer request of the job's group (or closing its executor) made it pointless."""


class Job(Future[T]):
    """One call given to a :class:`PriorityExecutor`, and the future of its outcome."""

    def __init__(
        self, owner: PriorityExecutor, call: Callable[[], T], priority: int, group: str | None
    ) -> None:
        super().__init__()
        self.owner = owner
        self.call = call
        self.priority = priority
        self.group = group
        self.seq = 0  # its place in the order of requests, once queued

    def __lt__(self, other: Job[Any]) -> bool:
        return (self.priority, self.seq) < (other.priority, other.seq)

    def wanted(self) -> bool:
        """Whether it is still the newest request of its group (a job of no group always is)
        and its executor still runs."""
        return self.owner.is_latest(self.group, self.seq)


class PriorityExecutor:
    """Up to ``workers`` threads named ``name`` that run what they are given, most urgent first
    (see the module).  ``on_supersede(job)`` is called, on the asking thread, for each job under
    way that a newer request of its group superseded; ``on_exit()`` on each worker thread as it
    ends, once the executor is closed."""

    def __init__(
        self,
        name: str,
        *,
        workers: int = 1,
        on_supersede: Callable[[Job[Any]], None] | None = None,
        on_exit: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.workers = workers
        self._on_supersede = on_supersede
        self._on_exit = on_exit
        self._queue: list[Job[Any]] = []
        self._order = itertools.count(1)
        self._latest: dict[str, int] = {}
        self._ready = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._idle = 0  # threads waiting for a job
        self._running: list[Job[Any]] = []  # under way on any thread, the latest begun last
        self._local = threading.local()  # ``stack``: the jobs under way on this thread
        #: Set by :meth:`close`: nothing more runs.
        self.closed = threading.Event()
        self.ran: dict[str | None, int] = {}  # jobs run to their end, per group (tests)
        self.cancelled = 0  # jobs stopped under way by a newer request or by closing (tests)

    # ------------------------------------------------------------------ asking

    def submit(
        self,
        fn: Callable[..., T],
        *args: Any,
        priority: int = NORMAL,
        group: str | None = None,
        request: int | None = None,
    ) -> Job[T]:
        """Run ``fn(*args)`` on a worker thread; with ``group``, this request supersedes the
        older ones of the group.  With ``request`` too (a number :meth:`supersede` gave), the
        job is a step of that request instead of a new one: cancelled at once if a newer
        request of the group has come.  Once closed, every job is cancelled at once."""
        job: Job[T] = Job(self, functools.partial(fn, *args) if args else fn, priority, group)
        stale: list[Job[Any]] = []
        running: list[Job[Any]] = []
        with self._ready:
            if self.closed.is_set() or (request is not None and not self.is_latest(group, request)):
                job.cancel()
                return job
            if request is None:
                request, stale, running = self._request(group)
            job.seq = request
            heapq.heappush(self._queue, job)
            if len(self._queue) > self._idle and len(self._threads) < self.workers:
                thread = threading.Thread(target=self._work, name=self.name, daemon=True)
                self._threads.append(thread)
                thread.start()
            self._ready.notify()
        self._dropped(stale, running)
        return job

    def supersede(self, group: str) -> int:
        """A request of ``group`` without a job: every older one is superseded.  Returns its
        number, which :meth:`is_latest` knows until the next request of the group."""
        with self._ready:
            seq, stale, running = self._request(group)
        self._dropped(stale, running)
        return seq

    def is_latest(self, group: str | None, seq: int) -> bool:
        """Whether request ``seq`` of ``group`` is still the newest of its group (any request of
        no group is) and the executor still runs."""
        if self.closed.is_set():
            return False
        return group is None or self._latest.get(group) == seq

    def close(self) -> None:
        """Drop what is queued (cancelled) and stop the threads once their job under way is
        done; a job asked for later is cancelled at once."""
        with self._ready:
            self.closed.set()
            queued, self._queue = self._queue, []
            self._ready.notify_all()
        for job in queued:
            job.cancel()

    def join(self, timeout: float | None = None) -> None:
        """Wait at most ``timeout`` seconds in all (``None``: as long as it takes) for the
        threads to end (after :meth:`close`)."""
        for thread in list(self._threads):
            thread.join(timeout)

    @property
    def alive(self) -> bool:
        return any(thread.is_alive() for thread in self._threads)

    # ------------------------------------------------------------------ seen from a job

    def current(self) -> Job[Any] | None:
        """The innermost job under way on this thread, if it is one of this executor's."""
        stack: list[Job[Any]] = getattr(self._local, "stack", [])
        return stack[-1] if stack else None

    def under_way(self) -> Job[Any] | None:
        """The job begun last of those under way on any thread (read from any thread)."""
        try:
            return self._running[-1]
        except IndexError:
            return None

    def checkpoint(self) -> None:
        """Between two steps of a long job: raise :class:`Superseded` if a newer request of its
        group (or closing) made it pointless, and run any more urgent job that is waiting."""
        job = self.current()
        if job is None:
            return
        if not job.wanted():
            raise Superseded
        while True:
            with self._ready:
                if not self._queue or self._queue[0].priority >= job.priority:
                    return
                urgent = heapq.heappop(self._queue)
            self._execute(urgent)

    # ------------------------------------------------------------------ the worker threads

    def _request(self, group: str | None) -> tuple[int, list[Job[Any]], list[Job[Any]]]:
        """(Under the lock.)  A new request's number; the queued jobs it drops from the queue
        and the running ones it supersedes."""
        seq = next(self._order)
        if group is None:
            return seq, [], []
        self._latest[group] = seq
        stale = [job for job in self._queue if job.group == group]
        if stale:
            self._queue = [job for job in self._queue if job.group != group]
            heapq.heapify(self._queue)
        return seq, stale, [job for job in self._running if job.group == group]

    def _dropped(self, stale: list[Job[Any]], running: list[Job[Any]]) -> None:
        for job in stale:
            job.cancel()
        if self._on_supersede is not None:
            for job in running:
                self._on_supersede(job)

    def _work(self) -> None:
        try:
            while True:
                with self._ready:
                    while not self._queue and not self.closed.is_set():
                        self._idle += 1
                        try:
                            self._ready.wait()
                        finally:
                            self._idle -= 1
                    if self.closed.is_set():
                        return
                    job = heapq.heappop(self._queue)
                self._execute(job)
                # Let go of it now, not when the next job comes: what its call holds (a
                # window's object, say) dies where its owner drops it, never on this thread.
                del job
        finally:
            if self._on_exit is not None:
                self._on_exit()

    def _execute(self, job: Job[Any]) -> None:
        if not job.set_running_or_notify_cancel():
            return
        if not job.wanted():
            job.set_exception(Superseded())
            return
        stack: list[Job[Any]] = self._local.__dict__.setdefault("stack", [])
        stack.append(job)
        self._running.append(job)
        try:
            result = job.call()
        except Superseded as exc:
            self.cancelled += 1
            job.set_exception(exc)
        except BaseException as exc:  # handed to whoever waits for it
            job.set_exception(exc)
        else:
            self.ran[job.group] = self.ran.get(job.group, 0) + 1
            job.set_result(result)
        finally:
            self._running.remove(job)
            stack.pop()
