"""bench --embed-threads-sweep: the same chunks embedded at each thread setting, one line each."""

from __future__ import annotations

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.evaluate import threads as threads_module
from explorer.evaluate.threads import (
    battery_check_us,
    format_sweep,
    sweep_threads,
    thread_settings,
)


def test_every_setting_embeds_the_same_chunks_twice_in_an_a_b_b_a_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(threads_module, "torch_threads", lambda: 4)  # torch's setting before
    embedder = FakeEmbedder()
    set_to: list[int] = []
    figures = sweep_threads(embedder, ["a chunk of a note"] * 40, [1, 2, 3], set_to.append)
    # The warm-up at the last setting, then 1 2 3 3 2 1, then the setting before given back.
    assert set_to == [3, 1, 2, 3, 3, 2, 1, 4]
    assert embedder.calls == 16 + 6 * 40
    assert max(embedder.batches) == 16  # as the live index embeds
    assert [row["threads"] for row in figures["settings"]] == [1, 2, 3]
    for row in figures["settings"]:
        assert row["chunksPerSecond"] > 0 and len(row["rounds"]) == 2
    assert figures["chunks"] == 40 and figures["batch"] == 16
    lines = format_sweep(figures)
    assert len([line for line in lines if " chunks/s " in line]) == 3
    assert lines[1].lstrip().startswith("1 thread ")
    assert "1.00x one thread" in lines[1]
    assert any(line.lstrip().startswith("a look at the battery") for line in lines)


def test_the_settings_go_up_to_the_cores() -> None:
    assert thread_settings(4) == [1, 2, 3, 4]
    assert thread_settings(1) == [1]


def test_a_look_at_the_battery_is_timed() -> None:
    looks: list[None] = []
    assert battery_check_us(lambda: looks.append(None), calls=10) >= 0
    assert len(looks) == 10


def test_nothing_to_embed_is_said() -> None:
    with pytest.raises(ValueError, match="no chunks"):  # before any setting changes
        sweep_threads(FakeEmbedder(), [], [1], lambda n: None)
