"""Pausing the embedding queue: by the user (the window's Pause Embedding, ``watch``'s SIGUSR1)
and on battery.  A real temporary vault and SQLite index, the fake embedder; every wait is on a
health change or an event, never on time."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.embed.base import Embedder, FakeEmbedder, Matrix
from explorer.embed.provider import EmbedderProvider
from explorer.embed.threads import BACKGROUND_NICENESS
from explorer.index.db import IndexDB
from explorer.index.embedding import pending_count
from explorer.live import EmbeddingState, Health, LiveIndex
from explorer.live.power import BATTERY_EVERY, ON_BATTERY
from explorer.live.state import stored_health
from tests.waiting import wait_until

NOTES = 12


class GatedEmbedder(FakeEmbedder):
    """Its first call waits until the test opens the gate; the others go straight through."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.entered = threading.Event()

    def embed(self, texts: list[str]) -> Matrix:
        self.entered.set()
        self.gate.wait(30)
        return super().embed(texts)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class HealthWatch:
    """Every health the live index publishes, and a wait for one that satisfies a test."""

    def __init__(self, live: LiveIndex) -> None:
        self.seen: list[Health] = []
        self._changed = threading.Condition()
        live.subscribe_health(self._on)
        self._on(live.health())

    def _on(self, health: Health) -> None:
        with self._changed:
            self.seen.append(health)
            self._changed.notify_all()

    def wait(self, test: Callable[[Health], bool], timeout: float = 30.0) -> Health:
        with self._changed:
            assert self._changed.wait_for(lambda: test(self.seen[-1]), timeout), self.seen[-1]
            return self.seen[-1]


def _state(health: Health) -> EmbeddingState | None:
    return health.embedding.state if health.embedding is not None else None


@pytest.fixture
def notes(vault: Path) -> Path:
    for i in range(NOTES):
        (vault / f"note{i:02}.md").write_text(f"# Note {i}\n\nwords of note {i}, topic {i % 3}\n")
    return vault


MakeLive = Callable[..., LiveIndex]


@pytest.fixture
def make_live(data_dir: Path) -> Iterator[MakeLive]:
    """A live index of a vault with an embedder (0.1 s of quiet; other settings as given),
    not started yet, stopped after the test."""
    made: list[LiveIndex] = []

    def make(vault: Path, embedder: Embedder, **settings: Any) -> LiveIndex:
        live = LiveIndex(
            vault, str(data_dir), EmbedderProvider.of(embedder), **{"quiet": 0.1, **settings}
        )
        made.append(live)
        return live

    yield make
    for live in made:
        live.stop()


def _pending(vault: Path, data_dir: Path, model: str) -> int:
    db = IndexDB.open_existing(vault, data_dir)
    try:
        return pending_count(db, model)
    finally:
        db.close()


def _stored_pause(notes: Path, data_dir: Path, model: str) -> bool:
    """Whether the index says, to another process's ``status``, that embedding is paused."""
    db = IndexDB.open_existing(notes, data_dir)
    try:
        watcher = stored_health(db, model, check_fts=False).watcher
    finally:
        db.close()
    return watcher is not None and watcher.embedding_paused


def test_a_paused_queue_takes_no_batch_until_it_is_resumed(
    notes: Path, data_dir: Path, make_live: MakeLive
) -> None:
    embedder = GatedEmbedder()
    live = make_live(notes, embedder, embed_batch=2)
    watch = HealthWatch(live)
    said: list[str] = []
    live.subscribe(lambda event: said.append(event.message))
    live.start()
    assert embedder.entered.wait(20)  # the first batch is under way
    live.pause_embedding()
    assert live.embedding_paused
    embedder.gate.set()  # the batch under way finishes; no other starts
    paused = watch.wait(lambda h: _state(h) is EmbeddingState.PAUSED)
    assert embedder.batches == [2]
    assert paused.embedding is not None and paused.embedding.reason is None
    assert paused.embedding.done == 2 and paused.embedding.total > 2
    waiting = paused.embedding.total - 2
    assert paused.embedding.progress == (
        f"embedding paused · {waiting} chunks waiting (2 of {paused.embedding.total} done)"
    )
    assert "embedding paused" in said
    # …and another process's ``status`` reads that it is paused (a state, not a toggle).
    wait_until(lambda: _stored_pause(notes, data_dir, embedder.name))

    # The writer goes on while the embedder holds: a new note is indexed, not embedded.
    (notes / "fresh.md").write_text("# Fresh\n\njust saved\n")
    watch.wait(lambda h: h.notes == NOTES + 1)
    assert embedder.batches == [2]
    assert _pending(notes, data_dir, embedder.name) > 0
    assert not live.wait_idle(0)  # work is left: not idle while paused

    live.pause_embedding(False)
    assert not live.embedding_paused
    assert live.wait_idle(30)
    assert _pending(notes, data_dir, embedder.name) == 0
    assert "embedding resumed" in said
    wait_until(lambda: not _stored_pause(notes, data_dir, embedder.name))
    states = [_state(h) for h in watch.seen]
    first_pause = states.index(EmbeddingState.PAUSED)
    assert EmbeddingState.EMBEDDING in states[first_pause:]


class NiceWatcher(FakeEmbedder):
    """Notes the nice value of the thread each batch of passages is embedded on."""

    def __init__(self) -> None:
        super().__init__()
        self.nice: list[int] = []

    def embed(self, texts: list[str]) -> Matrix:
        self.nice.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return super().embed(texts)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice: Linux")
def test_the_background_embedding_runs_below_the_rest_of_the_process(
    notes: Path, make_live: MakeLive
) -> None:
    embedder = NiceWatcher()
    live = make_live(notes, embedder)
    live.start()
    assert live.wait_idle(30)
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert embedder.nice and set(embedder.nice) == {min(19, here + BACKGROUND_NICENESS)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == here  # only that thread


def test_a_queue_paused_while_idle_holds_the_next_run(vault: Path, make_live: MakeLive) -> None:
    embedder = FakeEmbedder()
    live = make_live(vault, embedder)
    watch = HealthWatch(live)
    live.start()
    assert live.wait_idle(30)
    live.pause_embedding()
    assert live.wait_idle(0)  # nothing to embed: paused or not, it is idle
    (vault / "later.md").write_text("# Later\n\nwritten while paused\n")
    paused = watch.wait(lambda h: _state(h) is EmbeddingState.PAUSED)
    assert paused.embedding is not None and paused.embedding.total == 1
    assert embedder.calls == 0
    live.pause_embedding(False)
    watch.wait(lambda h: h.vectors == 1)
    assert embedder.calls == 1


def test_on_battery_embedding_waits_for_the_charger(
    notes: Path, data_dir: Path, make_live: MakeLive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VAULT_EXPLORER_EMBED_ON_BATTERY", raising=False)
    embedder = FakeEmbedder()
    plugged = threading.Event()
    asked = []

    def battery() -> bool:
        asked.append(True)
        return not plugged.is_set()

    clock = FakeClock()
    live = make_live(notes, embedder, battery=battery, clock=clock)
    watch = HealthWatch(live)
    messages: list[str] = []
    live.subscribe(lambda event: messages.append(event.message))
    live.start()
    held = watch.wait(lambda h: _state(h) is EmbeddingState.PAUSED)
    assert held.embedding is not None and held.embedding.reason == ON_BATTERY
    assert held.embedding.progress.startswith("embedding paused: on battery · ")
    assert held.embedding.progress.endswith(f"chunks waiting (0 of {held.embedding.total} done)")
    assert embedder.calls == 0
    assert "embedding paused: on battery" in messages
    # The charger is back; the queue asks again once BATTERY_EVERY has passed on its clock
    # (woken here, rather than waiting for its own next look).
    plugged.set()
    clock.now += BATTERY_EVERY
    live.pause_embedding(False)
    assert live.wait_idle(30)
    assert embedder.calls > 0 and _pending(notes, data_dir, embedder.name) == 0
    assert "embedding resumed" in messages
    asked_before = len(asked)
    # Within BATTERY_EVERY of the clock the battery is not asked again, batch after batch.
    (notes / "more.md").write_text("# More\n\nanother note\n")
    watch.wait(lambda h: h.notes == NOTES + 1 and h.pending_embeddings == 0)
    assert len(asked) == asked_before


def test_embedding_on_battery_when_the_user_says_so(
    notes: Path, data_dir: Path, make_live: MakeLive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULT_EXPLORER_EMBED_ON_BATTERY", "1")
    embedder = FakeEmbedder()
    live = make_live(notes, embedder, battery=lambda: True)
    watch = HealthWatch(live)
    live.start()
    assert live.wait_idle(30)
    assert _pending(notes, data_dir, embedder.name) == 0
    assert EmbeddingState.PAUSED not in [_state(h) for h in watch.seen]


def test_a_battery_that_cannot_be_read_does_not_hold_embedding(
    notes: Path, make_live: MakeLive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VAULT_EXPLORER_EMBED_ON_BATTERY", raising=False)

    def broken() -> bool:
        raise OSError("no power supply class")

    live = make_live(notes, FakeEmbedder(), battery=broken)
    live.start()
    assert live.wait_idle(30)
    assert live.health().pending_embeddings == 0


def test_a_paused_queue_stops_at_once(notes: Path, data_dir: Path) -> None:
    embedder = FakeEmbedder()
    live = LiveIndex(notes, str(data_dir), EmbedderProvider.of(embedder), quiet=0.1)
    live.pause_embedding()
    watch = HealthWatch(live)
    live.start()
    watch.wait(lambda h: _state(h) is EmbeddingState.PAUSED)
    live.stop(timeout=20)
    assert not live.running
    assert _state(live.health()) is EmbeddingState.STOPPED
    assert embedder.calls == 0  # STOPPED: the thread left its loop, without a batch
