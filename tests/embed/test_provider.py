"""The model loader: its state changes reach subscribers as they happen, on the thread that
makes them, so nobody needs to ask again and again."""

from __future__ import annotations

import threading

import pytest

from explorer.embed.base import Embedder, EmbedderUnavailable, FakeEmbedder
from explorer.embed.provider import EmbedderProvider, ModelState


class Recorder:
    """Every state a provider reports, with the name of the thread that reported it."""

    def __init__(self) -> None:
        self.seen: list[tuple[ModelState, str]] = []
        self.settled = threading.Event()

    def __call__(self, state: ModelState) -> None:
        self.seen.append((state, threading.current_thread().name))
        if state in (ModelState.READY, ModelState.FAILED):
            self.settled.set()


def test_loading_then_ready_are_reported_on_the_threads_that_make_them() -> None:
    gate = threading.Event()

    def load() -> Embedder:
        gate.wait(30)
        return FakeEmbedder()

    provider = EmbedderProvider("fake-bow-64", load)
    recorder = Recorder()
    provider.subscribe(recorder)
    assert provider.state is ModelState.IDLE and recorder.seen == []

    provider.start()
    assert recorder.seen == [(ModelState.LOADING, threading.current_thread().name)]
    provider.start()  # already loading: no second report
    gate.set()
    assert recorder.settled.wait(30)
    assert recorder.seen[1:] == [(ModelState.READY, "model-loader")]
    assert provider.state is ModelState.READY and provider.peek() is not None


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (EmbedderUnavailable("no model package"), "no model package"),
        (RuntimeError("bad weights"), "model failed to load: RuntimeError: bad weights"),
    ],
)
def test_a_model_that_fails_is_reported_failed_with_its_reason(
    error: Exception, reason: str
) -> None:
    def load() -> Embedder:
        raise error

    provider = EmbedderProvider("broken", load)
    recorder = Recorder()
    provider.subscribe(recorder)
    provider.start()
    assert recorder.settled.wait(30)
    assert [state for state, _ in recorder.seen] == [ModelState.LOADING, ModelState.FAILED]
    assert provider.error == reason


def test_a_failing_subscriber_neither_stops_the_load_nor_the_others() -> None:
    gate = threading.Event()

    def load() -> Embedder:
        gate.wait(30)
        return FakeEmbedder()

    def broken(state: ModelState) -> None:
        raise RuntimeError("a bug in a window")

    provider = EmbedderProvider("fake-bow-64", load)
    gone = Recorder()
    unsubscribe = provider.subscribe(gone)
    provider.subscribe(broken)
    kept = Recorder()
    provider.subscribe(kept)
    provider.start()
    unsubscribe()
    gate.set()
    assert kept.settled.wait(30)
    assert [state for state, _ in kept.seen] == [ModelState.LOADING, ModelState.READY]
    assert [state for state, _ in gone.seen] == [ModelState.LOADING]
    assert provider.get(timeout=0).name == "fake-bow-64"
