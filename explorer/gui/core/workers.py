"""Work off the GUI thread, its outcome back on it: one rule for every panel.

Every job of the window runs on a :class:`~explorer.jobs.PriorityExecutor`: the session's reader
for what reads the index (:meth:`explorer.gui.core.session.VaultSession.query`), :data:`BACKGROUND`
or a panel's own executor for the rest (:func:`run_in_pool`).  :func:`reply_to` hands a job's
outcome to the GUI thread as a :class:`Reply`, by the one rule of :mod:`explorer.jobs`: only
while the job is wanted — the newest request of its group, its executor still running.  A job
superseded (by a newer request of its group, or :meth:`~explorer.jobs.PriorityExecutor.supersede`),
cancelled or dropped by closing says nothing, so no panel counts its own requests.  Jobs never
touch widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from explorer.jobs import NORMAL, Job, PriorityExecutor, Superseded

#: The window's work that is no read of the index (a note rendered for the preview): two at
#: once, so that a new selection never waits for a render it superseded.
BACKGROUND = PriorityExecutor("gui-work", workers=2)


class Reply(QObject):
    """The outcome of one job, on the GUI thread (see the module)."""

    answered = Signal(object)  # what the job returned
    failed = Signal(object)  # the exception it raised

    def __init__(self, job: Job[Any]) -> None:
        super().__init__()
        self.job = job


class _Courier(QObject):
    """Lives in the GUI thread: a job's end, signalled from any thread, is handled there, always
    queued (a job that ended before its reply was connected is still heard).

    What crosses threads is the job, never its reply: the reply waits here, so no cycle
    (reply → job → its callback → reply) leaves it, its job and whatever the job's call holds
    to Python's collector, which runs on whichever thread allocates.  Delivered, the reply is
    let go of here, on the GUI thread, and so is its job: a QObject destroyed on a worker
    thread corrupts Qt's state."""

    settled = Signal(object)  # Job

    def __init__(self) -> None:
        super().__init__()
        self.waiting: dict[Job[Any], list[Reply]] = {}  # kept alive until their job has ended
        self.settled.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def _deliver(self, job: Job[Any]) -> None:
        replies = self.waiting.pop(job, [])
        for reply in replies:
            reply.deleteLater()
        if not replies or job.cancelled() or not job.wanted():
            return
        exc = job.exception()
        if isinstance(exc, Superseded):
            return
        for reply in replies:
            if exc is not None:
                reply.failed.emit(exc)
            else:
                reply.answered.emit(job.result())

    def ended(self, job: Future[Any]) -> None:
        """(Any thread.)  ``job`` has ended: its reply is delivered on the GUI thread."""
        self.settled.emit(job)


_courier: _Courier | None = None


def reply_to(
    job: Job[Any],
    on_result: Callable[[Any], None] | None = None,
    on_error: Callable[[Any], None] | None = None,
) -> Reply:
    """The :class:`Reply` of ``job`` (called on the GUI thread), its signals connected to
    ``on_result`` and ``on_error`` when given."""
    global _courier
    if _courier is None:
        _courier = _Courier()
    courier = _courier
    reply = Reply(job)
    if on_result is not None:
        reply.answered.connect(on_result)
    if on_error is not None:
        reply.failed.connect(on_error)
    replies = courier.waiting.setdefault(job, [])
    if not replies:  # the job's first reply: one settling delivers every reply waiting then
        job.add_done_callback(courier.ended)
    replies.append(reply)
    return reply


def run_in_pool(
    fn: Callable[..., Any],
    *args: Any,
    on_result: Callable[[Any], None] | None = None,
    on_error: Callable[[Any], None] | None = None,
    pool: PriorityExecutor = BACKGROUND,
    group: str | None = None,
    request: int | None = None,
    priority: int = NORMAL,
) -> Reply:
    """Run ``fn(*args)`` on ``pool`` (a job of ``group``, a step of ``request``: see
    :meth:`~explorer.jobs.PriorityExecutor.submit`); its reply arrives on the GUI thread."""
    job = pool.submit(fn, *args, priority=priority, group=group, request=request)
    return reply_to(job, on_result, on_error)
