"""The embedding's rate, estimate and words, and the battery rule: pure functions fed given
times (a fake clock), never the real one."""

from __future__ import annotations

import pytest

from explorer.live import EmbeddingHealth, EmbeddingState
from explorer.live.power import ON_BATTERY, battery_pause, embed_on_battery, on_battery
from explorer.live.progress import (
    RateMeter,
    duration_text,
    progress_text,
    rate_text,
    remaining_seconds,
    searchable_text,
    window_rate,
)


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def test_the_rate_is_the_chunks_done_over_the_last_window() -> None:
    assert window_rate([]) is None
    assert window_rate([(0.0, 0)]) is None  # one batch timed: no rate yet
    assert window_rate([(5.0, 0), (5.0, 16)]) is None  # no time between them
    assert window_rate([(0.0, 0), (10.0, 100)]) == 10.0
    # A slow start (the model warming up) falls out of the window: 10/s over the last 20 s.
    assert window_rate([(0.0, 0), (100.0, 10), (110.0, 110), (120.0, 210)], 30.0) == 10.0
    # Only the newest batch inside the window: the rate reaches back to the one before.
    assert window_rate([(0.0, 0), (100.0, 50)], 30.0) == 0.5
    assert window_rate([(0.0, 10), (1.0, 5)]) is None  # a count that went back is no rate


def test_a_rate_meter_smooths_over_batches_and_leaves_a_pause_out() -> None:
    clock = FakeClock()
    meter = RateMeter(window=30.0, clock=clock)
    meter.restart(0)
    assert meter.rate is None
    done = 0
    for _ in range(3):  # 16 chunks every 2 s: 8/s
        clock.advance(2.0)
        done += 16
        meter.add(done)
    assert meter.rate == pytest.approx(8.0)
    # One slow batch (a neighbour's load) moves the rate, it does not halve it.
    clock.advance(6.0)
    done += 16
    assert meter.add(done) == pytest.approx(64 / 12)
    # Much later only the last window counts: 4 s a batch from now on.
    for _ in range(20):
        clock.advance(4.0)
        done += 16
        meter.add(done)
    assert meter.rate == pytest.approx(4.0)
    # A pause of an hour, then a restart: the hour is not slowness.
    clock.advance(3600.0)
    meter.restart(done)
    assert meter.rate is None  # no estimate until a batch after the pause is timed
    clock.advance(2.0)
    assert meter.add(done + 16) == pytest.approx(8.0)


def test_the_estimate_is_said_only_once_there_is_a_rate() -> None:
    assert progress_text(1204, 9870, 14.0) == "1,204 of 9,870 · 14/s · about 10 min left"
    assert progress_text(1204, 9870) == "1,204 of 9,870"
    assert progress_text(1204, 9870, None, "chunks") == "1,204 of 9,870 chunks"
    assert progress_text(0, 16, 0.0) == "0 of 16"  # a rate of 0 is no rate
    assert remaining_seconds(1204, 9870, None) is None
    assert remaining_seconds(100, 100, 5.0) == 0.0
    assert remaining_seconds(50, 100, 5.0) == 10.0
    assert progress_text(96, 100, 2.5) == "96 of 100 · 2.5/s · less than a minute left"


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (0, "less than a minute"),
        (59, "less than a minute"),
        (60, "about 1 min"),
        (619, "about 10 min"),
        (59 * 60, "about 59 min"),
        (3600, "about 1 h"),
        (2 * 3600 + 8 * 60, "about 2 h 10 min"),
        (30 * 3600, "about 30 h"),
        (100 * 3600, "about 4 days"),
    ],
)
def test_the_time_left_in_words(seconds: float, said: str) -> None:
    assert duration_text(seconds) == said


def test_rates_and_searchable_notes_in_words() -> None:
    assert rate_text(14.2) == "14/s"
    assert rate_text(1234.0) == "1,234/s"
    assert rate_text(2.46) == "2.5/s"
    assert rate_text(0.04) == "0.04/s"
    assert searchable_text(312, 1140) == "312 of 1,140 notes searchable by meaning"


def test_the_embedding_health_says_its_progress_and_its_pause() -> None:
    health = EmbeddingHealth(EmbeddingState.EMBEDDING, "m", done=1204, total=9870, rate=14.0)
    assert health.progress == "1,204 of 9,870 · 14/s · about 10 min left"
    assert health.remaining == pytest.approx(8666 / 14)
    assert EmbeddingHealth(EmbeddingState.EMBEDDING, "m", done=0, total=9).remaining is None
    paused = EmbeddingHealth(EmbeddingState.PAUSED, "m", done=1204, total=9870)
    assert paused.paused and paused.remaining is None
    assert paused.progress == "embedding paused · 8,666 chunks waiting (1,204 of 9,870 done)"
    battery = EmbeddingHealth(EmbeddingState.PAUSED, "m", ON_BATTERY, done=3, total=9)
    assert battery.progress == "embedding paused: on battery · 6 chunks waiting (3 of 9 done)"
    assert battery.to_json()["state"] == "paused"


def test_the_battery_rule() -> None:
    assert battery_pause(True) == ON_BATTERY == "on battery"
    assert battery_pause(False) is None
    assert battery_pause(None) is None  # no battery, or the platform does not say
    assert battery_pause(True, allowed=True) is None
    assert embed_on_battery({"VAULT_EXPLORER_EMBED_ON_BATTERY": "1"})
    assert embed_on_battery({"VAULT_EXPLORER_EMBED_ON_BATTERY": " Yes "})
    assert not embed_on_battery({"VAULT_EXPLORER_EMBED_ON_BATTERY": "0"})
    assert not embed_on_battery({})


class _Battery:
    def __init__(self, percent: float, plugged: bool | None) -> None:
        self.percent = percent
        self.secsleft = 0
        self.power_plugged = plugged


def test_the_battery_as_the_platform_reports_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import psutil

    readings: list[object] = [
        None,  # no battery (a desktop, a container)
        _Battery(80, True),
        _Battery(80, False),
        _Battery(80, None),  # the platform cannot tell
    ]
    monkeypatch.setattr(psutil, "sensors_battery", lambda: readings.pop(0))
    assert [on_battery() for _ in range(4)] == [None, False, True, None]

    def broken() -> None:
        raise OSError("no /sys")

    monkeypatch.setattr(psutil, "sensors_battery", broken)
    assert on_battery() is None
