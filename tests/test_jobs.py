"""The executor of jobs: the most urgent first (the window's query goes ahead of the queued
questions), and within a group the newest request only."""

from __future__ import annotations

import threading
import weakref

import pytest

from explorer.jobs import NORMAL, URGENT, PriorityExecutor, Superseded
from tests.waiting import wait_until

SAFETY_S = 60.0


def test_an_urgent_query_goes_ahead_of_the_queued_ones() -> None:
    executor = PriorityExecutor("test-embed")
    order: list[str] = []
    started, release = threading.Event(), threading.Event()

    def running() -> None:
        started.set()
        assert release.wait(SAFETY_S)
        order.append("running")

    first = executor.submit(running)
    assert started.wait(SAFETY_S)  # the thread is busy: what follows queues
    queued = [executor.submit(order.append, f"question {i}", priority=NORMAL) for i in range(3)]
    urgent = executor.submit(order.append, "window", priority=URGENT)
    release.set()
    for future in (first, *queued, urgent):
        future.result(SAFETY_S)
    assert order == ["running", "window", "question 0", "question 1", "question 2"]


def test_an_exception_reaches_whoever_waits() -> None:
    executor = PriorityExecutor("test-embed")

    def fail() -> None:
        raise ValueError("no model")

    error = executor.submit(fail).exception(SAFETY_S)
    assert isinstance(error, ValueError) and str(error) == "no model"
    assert executor.submit(lambda: 42).result(SAFETY_S) == 42  # the thread lives on


def test_a_newer_request_drops_the_queued_and_stops_the_running_at_a_checkpoint() -> None:
    executor = PriorityExecutor("test-jobs")
    started, go = threading.Event(), threading.Event()

    def running() -> str:
        started.set()
        assert go.wait(SAFETY_S)
        executor.checkpoint()  # superseded meanwhile: it stops here
        return "finished"

    first = executor.submit(running, group="around")
    assert started.wait(SAFETY_S)
    queued = executor.submit(lambda: "queued", group="around")
    other = executor.submit(lambda: "other", group="links")
    newest = executor.submit(lambda: "newest", group="around")
    assert queued.cancelled() and not first.wanted() and newest.wanted()
    go.set()
    with pytest.raises(Superseded):
        first.result(SAFETY_S)
    assert newest.result(SAFETY_S) == "newest" and other.result(SAFETY_S) == "other"
    assert executor.cancelled == 1 and executor.ran == {"around": 1, "links": 1}


def test_a_request_made_before_its_job_supersedes_the_older_ones_and_has_steps() -> None:
    executor = PriorityExecutor("test-jobs")
    started, go = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        assert go.wait(SAFETY_S)

    holding = executor.submit(hold)  # no group: never superseded
    assert started.wait(SAFETY_S)
    job = executor.submit(lambda: "old", group="render")
    request = executor.supersede("render")
    assert job.cancelled() and executor.is_latest("render", request)
    assert not executor.is_latest("render", job.seq) and holding.wanted()
    step = executor.submit(lambda: "step", group="render", request=request)  # a step of it
    assert step.seq == request and step.wanted()
    go.set()
    holding.result(SAFETY_S)
    assert step.result(SAFETY_S) == "step"
    assert executor.submit(lambda: "new", group="render").result(SAFETY_S) == "new"
    assert not executor.is_latest("render", request)
    assert executor.submit(lambda: "late step", group="render", request=request).cancelled()


def test_workers_run_side_by_side_up_to_their_number() -> None:
    executor = PriorityExecutor("test-jobs", workers=2)
    both = threading.Barrier(2, timeout=SAFETY_S)
    jobs = [executor.submit(both.wait) for _ in range(2)]  # one thread alone would never pass
    assert sorted(job.result(SAFETY_S) for job in jobs) == [0, 1]
    assert {thread.name for thread in executor._threads} == {"test-jobs"}
    assert len(executor._threads) == 2


def test_closing_cancels_what_is_queued_and_what_is_asked_later() -> None:
    ended = threading.Event()
    executor = PriorityExecutor("test-jobs", on_exit=ended.set)
    started, go = threading.Event(), threading.Event()

    def running() -> str:
        started.set()
        assert go.wait(SAFETY_S)
        return "done"

    first = executor.submit(running)
    assert started.wait(SAFETY_S)
    queued = executor.submit(lambda: "queued")
    executor.close()
    assert queued.cancelled() and executor.submit(lambda: "late").cancelled()
    assert not first.wanted()  # closing made it pointless: whoever delivers it drops it
    go.set()
    assert first.result(SAFETY_S) == "done"
    executor.join(SAFETY_S)
    assert ended.is_set() and not executor.alive


def test_an_idle_worker_keeps_nothing_of_the_job_it_ran() -> None:
    """What a job's call holds (a window's object) dies on the thread whose owner lets go of
    it, not on a worker thread whenever that takes its next job: an idle worker keeps none."""
    executor = PriorityExecutor("test-jobs")

    class Call:
        def __call__(self) -> str:
            return "done"

    call = Call()
    freed = weakref.ref(call)
    job = executor.submit(call)
    assert job.result(SAFETY_S) == "done"
    del call, job
    wait_until(lambda: freed() is None, timeout=10)  # the worker lets go as the job ends
    assert executor.alive  # … and waits for the next one
