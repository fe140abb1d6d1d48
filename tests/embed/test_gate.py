"""The model gate: one batch at a time, a waiting question before any passage batch."""

from __future__ import annotations

import threading

import pytest

from explorer.embed.gate import ModelGate


def _until(condition: threading.Condition, check: object) -> None:
    with condition:
        condition.wait_for(check)  # type: ignore[arg-type]


def test_a_waiting_question_goes_before_a_passage_batch_asked_for_earlier() -> None:
    gate = ModelGate()
    order: list[str] = []
    changed = threading.Condition()
    holding, release = threading.Event(), threading.Event()

    def passages(name: str, hold: bool = False) -> None:
        with gate.turn(query=False):
            if hold:
                holding.set()
                release.wait()
            with changed:
                order.append(name)
                changed.notify_all()

    def question() -> None:
        with gate.turn(query=True), changed:
            order.append("question")
            changed.notify_all()

    first = threading.Thread(target=passages, args=("batch 1", True))
    first.start()
    holding.wait()
    second = threading.Thread(target=passages, args=("batch 2",))
    second.start()  # waits behind batch 1, before the question is asked
    asked = threading.Thread(target=question)
    asked.start()
    _until(gate._changed, lambda: gate._questions == 1)
    release.set()
    for thread in (first, second, asked):
        thread.join()
    assert order == ["batch 1", "question", "batch 2"]
    assert gate.questions_waiting == 0


def test_questions_take_turns_too_and_a_failure_gives_the_turn_back() -> None:
    gate = ModelGate()
    with pytest.raises(RuntimeError, match="the model failed"), gate.turn(query=True):
        raise RuntimeError("the model failed")
    done = threading.Event()

    def passage() -> None:
        with gate.turn(query=False):
            done.set()

    thread = threading.Thread(target=passage)
    thread.start()
    thread.join()
    assert done.is_set()
