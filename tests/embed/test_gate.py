"""The model gate: one passage batch at a time and none while a question runs; a question
runs beside the batch under way, which waits at its next pause point."""

from __future__ import annotations

import threading

import pytest

from explorer.embed.gate import ModelGate
from tests.waiting import wait_until


def test_no_passage_batch_starts_while_a_question_runs() -> None:
    gate = ModelGate()
    order: list[str] = []

    def passages() -> None:
        with gate.turn():
            order.append("batch")

    with gate.question():
        thread = threading.Thread(target=passages)
        thread.start()
        wait_until(lambda: len(gate._changed._waiters) == 1)  # type: ignore[attr-defined]
        order.append("question")
    thread.join()
    assert order == ["question", "batch"]


def test_passage_batches_take_turns_and_a_failure_gives_the_turn_back() -> None:
    gate = ModelGate()
    with pytest.raises(RuntimeError, match="the model failed"), gate.turn():
        raise RuntimeError("the model failed")
    with pytest.raises(RuntimeError, match="the question failed"), gate.question():
        raise RuntimeError("the question failed")
    holding, release = threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        with gate.turn():
            holding.set()
            release.wait()
            order.append("batch 1")

    def second() -> None:
        with gate.turn():
            order.append("batch 2")

    one = threading.Thread(target=first)
    one.start()
    holding.wait()
    two = threading.Thread(target=second)
    two.start()
    wait_until(lambda: len(gate._changed._waiters) == 1)  # type: ignore[attr-defined]
    release.set()
    one.join()
    two.join()
    assert order == ["batch 1", "batch 2"]
    assert gate.questions_waiting == 0


def test_a_question_runs_beside_a_passage_batch_under_way() -> None:
    gate = ModelGate()
    holding, release = threading.Event(), threading.Event()

    def passages() -> None:
        with gate.turn():
            holding.set()
            release.wait()

    thread = threading.Thread(target=passages)
    thread.start()
    holding.wait()
    with gate.question():  # the batch still holds its turn: the question does not wait for it
        assert gate.questions_waiting == 1
    release.set()
    thread.join()
    assert gate.questions_waiting == 0


def test_a_passage_batch_stops_at_its_pause_point_until_the_question_is_done() -> None:
    gate = ModelGate()
    order: list[str] = []
    holding, go = threading.Event(), threading.Event()

    def passages() -> None:
        with gate.turn():
            holding.set()
            go.wait()
            gate.pause_point()
            order.append("passage batch resumed")

    thread = threading.Thread(target=passages)
    thread.start()
    holding.wait()
    with gate.question():
        go.set()
        wait_until(lambda: len(gate._changed._waiters) == 1)  # type: ignore[attr-defined]
        order.append("question done")
    thread.join()
    assert order == ["question done", "passage batch resumed"]
    gate.pause_point()  # no question: it does not wait
