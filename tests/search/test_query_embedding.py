"""Query embeddings in order of urgency: the window's query goes ahead of queued questions."""

from __future__ import annotations

import threading

from explorer.search.query_embedding import NORMAL, URGENT, PriorityExecutor

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
