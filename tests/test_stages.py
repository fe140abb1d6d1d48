"""The stage recorder: nothing kept with no recorder open; a stage's own time, nested stages
taken out; the stages of work handed to another thread in a copy of the context kept apart."""

from __future__ import annotations

import contextvars
import threading

from explorer.stages import Stages, recording, stage


def _work() -> None:
    sum(range(10_000))


def test_with_no_recorder_open_a_stage_records_nothing_and_is_one_shared_context() -> None:
    assert stage("parse") is stage("fusion")
    with stage("parse"):
        pass
    with recording() as steps:
        pass
    assert steps.ms == {}


def test_a_nested_stage_is_taken_out_of_the_outer_one() -> None:
    with recording() as steps:
        with stage("outer"):
            _work()
            with stage("inner"):
                _work()
        with stage("outer"):
            _work()
    assert list(steps.ms) == ["inner", "outer"]  # in the order they ended
    assert steps.ms["inner"] > 0 and steps.ms["outer"] > 0
    # Their sum is what they covered, not more: the inner time is counted once.
    assert steps.own_ms <= steps.total_ms
    assert steps.other_ms == steps.total_ms - steps.own_ms


def test_work_on_another_thread_in_a_copy_of_the_context_is_recorded_beside() -> None:
    def ranking() -> None:
        with stage("vector top-k"):
            _work()

    with recording() as steps:
        worker = threading.Thread(target=contextvars.copy_context().run, args=(ranking,))
        worker.start()
        with stage("lexical"):
            _work()
        worker.join()
    assert set(steps.ms) == {"vector top-k", "lexical"}
    assert steps.beside == {"vector top-k"}
    assert steps.own_ms == steps.ms["lexical"]


def test_a_thread_not_given_the_context_records_nothing() -> None:
    def elsewhere() -> None:
        with stage("elsewhere"):
            pass

    with recording() as steps:
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
    assert steps.ms == {}
    assert isinstance(steps, Stages)
