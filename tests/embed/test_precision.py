"""The model's precision: forced by the setting, fp32 without native bf16, else measured."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from explorer.embed.base import EmbedderUnavailable, FakeEmbedder
from explorer.embed.precision import (
    BF16,
    ENV_PRECISION,
    FP32,
    MIN_TIMED_BATCH,
    MIN_TIMED_WORK,
    TIMED_BATCHES,
    Precision,
    PrecisionPicker,
    native_bf16,
    precision_of,
    requested_precision,
)

BATCH = ["a chunk of text"] * MIN_TIMED_BATCH


class Clock:
    """A clock that moves only when a batch runs: each precision's batch takes a set time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def embed_batches(
    picker: PrecisionPicker, clock: Clock, seconds: dict[str, float], batches: int
) -> list[str]:
    """Run ``batches`` batches through ``picker``; the precision each ran in."""
    ran = []
    for _ in range(batches):
        with picker.run(BATCH) as name:
            clock.now += seconds[name]
            ran.append(name)
    return ran


def test_the_setting_is_read_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_PRECISION, raising=False)
    assert requested_precision() == "auto"
    monkeypatch.setenv(ENV_PRECISION, " FP32 ")
    assert requested_precision() == FP32
    assert requested_precision("bf16") == BF16  # an explicit choice wins over the setting
    monkeypatch.setenv(ENV_PRECISION, "int8")
    with pytest.raises(EmbedderUnavailable, match="VAULT_EXPLORER_PRECISION must be one of"):
        requested_precision()


@pytest.mark.parametrize("forced", [FP32, BF16])
def test_a_forced_precision_is_used_from_the_first_batch(forced: str) -> None:
    clock = Clock()
    picker = PrecisionPicker(forced, native=forced == FP32, clock=clock)
    assert embed_batches(picker, clock, {FP32: 1.0, BF16: 2.0}, 10) == [forced] * 10
    assert picker.current == Precision(forced, "set by VAULT_EXPLORER_PRECISION")


def test_without_native_bf16_auto_is_fp32_and_measures_nothing() -> None:
    clock = Clock()
    picker = PrecisionPicker("auto", native=False, clock=clock)
    assert embed_batches(picker, clock, {FP32: 1.0, BF16: 0.1}, 10) == [FP32] * 10
    assert picker.current == Precision(FP32, "this CPU has no native bfloat16")


def test_auto_alternates_then_keeps_bf16_when_it_is_faster() -> None:
    clock = Clock()
    picker = PrecisionPicker("auto", native=True, clock=clock)
    with picker.run(["one query"]) as name:  # too small to time: bf16 meanwhile
        assert name == BF16
    measuring = 2 * (TIMED_BATCHES + 1)  # the first batch of each only warms up
    ran = embed_batches(picker, clock, {FP32: 1.0, BF16: 0.5}, measuring)
    assert ran == [FP32, BF16] * (TIMED_BATCHES + 1)
    assert picker.chosen == Precision(BF16, "bf16 measured 2.0x the speed of fp32", 2.0)
    assert embed_batches(picker, clock, {FP32: 1.0, BF16: 0.5}, 5) == [BF16] * 5


def test_auto_falls_back_to_fp32_when_bf16_is_slower() -> None:
    clock = Clock()
    picker = PrecisionPicker("auto", native=True, clock=clock)
    # The warm-up batches would say otherwise: they are not counted.
    with picker.run(BATCH):
        clock.now += 9.0
    with picker.run(BATCH):
        clock.now += 0.1
    embed_batches(picker, clock, {FP32: 1.0, BF16: 1.25}, 2 * TIMED_BATCHES)
    assert picker.chosen == Precision(FP32, "bf16 measured 0.8x the speed of fp32", 0.8)


def test_auto_keeps_bf16_when_the_measurement_is_a_draw() -> None:
    """bf16's first batches of each shape are slow: a draw early on is a win later."""
    clock = Clock()
    picker = PrecisionPicker("auto", native=True, clock=clock)
    embed_batches(picker, clock, {FP32: 1.0, BF16: 1.05}, 2 * (TIMED_BATCHES + 1))
    assert picker.chosen == Precision(BF16, "bf16 measured 0.95x the speed of fp32", 0.95)


def test_a_failed_batch_is_not_timed() -> None:
    clock = Clock()
    picker = PrecisionPicker("auto", native=True, clock=clock)
    for _ in range(20):
        with pytest.raises(RuntimeError), picker.run(BATCH):
            raise RuntimeError("model failed")
    assert picker.chosen is None


def test_precision_of_an_embedder_that_has_none() -> None:
    assert precision_of(FakeEmbedder()) is None


@pytest.mark.skipif(
    platform.machine() != "x86_64" or not Path("/proc/cpuinfo").exists(),
    reason="reads the x86 CPU flags of Linux",
)
def test_native_bf16_agrees_with_the_cpu_flags() -> None:
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[1].split())
    assert native_bf16() == bool(flags & {"avx512_bf16", "amx_bf16"})


def test_speed_is_work_per_second_not_texts_per_second() -> None:
    """The bf16 batches here are far longer in characters, but the model truncates them: counted
    in its work (padded word pieces), bf16 did less per second."""
    clock = Clock()
    picker = PrecisionPicker("auto", native=True, work=lambda texts: 256 * len(texts), clock=clock)
    for i in range(2 * (TIMED_BATCHES + 1)):
        batch = ["long " * 400 if i % 2 else "short"] * MIN_TIMED_BATCH
        with picker.run(batch) as name:
            clock.now += 1.0 if name == FP32 else 1.25
    assert picker.chosen == Precision(FP32, "bf16 measured 0.8x the speed of fp32", 0.8)


def test_the_work_a_caller_counted_is_used_as_given() -> None:
    """The embedder has tokenised its batches already: it passes their work in."""
    clock = Clock()
    picker = PrecisionPicker("auto", native=True, work=lambda texts: 1, clock=clock)
    for i in range(2 * (TIMED_BATCHES + 1)):
        with picker.run(BATCH, work=1200 if i % 2 else 600) as name:  # bf16: twice the work
            clock.now += 1.0 if name == FP32 else 1.5
    assert picker.chosen == Precision(BF16, "bf16 measured 1.33x the speed of fp32", 1.33)


def test_a_batch_of_few_word_pieces_is_not_timed_however_many_texts() -> None:
    """Work counted by the caller decides what is timed: a batch of short texts says as little
    about the model's speed as a question does."""
    picker = PrecisionPicker("auto", native=True, clock=Clock())
    used = {picker.current.name}
    for _ in range(4 * (TIMED_BATCHES + 1)):
        with picker.run(BATCH, work=MIN_TIMED_WORK - 1) as name:
            used.add(name)
    assert picker.chosen is None
    assert used == {BF16}  # never a float32 batch timed against it
