"""The embedding's threads: all cores but one by default, torch's setting for the process,
and the background's lower priority."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator

import pytest

from explorer.embed import threads


@pytest.fixture
def restored() -> Iterator[None]:
    before, torch_before = threads.chosen_threads(), threads.torch_threads()
    yield
    threads._chosen = before
    if torch_before is not None:
        import torch

        torch.set_num_threads(torch_before)


def test_the_default_leaves_one_core_free() -> None:
    assert [threads.default_threads(n) for n in (1, 2, 4, 16)] == [1, 1, 3, 15]
    assert threads.default_threads() >= 1


def test_torch_takes_the_setting_at_once_once_loaded(restored: None) -> None:
    torch = pytest.importorskip("torch")
    assert threads.use_threads(1) is True
    assert torch.get_num_threads() == 1 == threads.torch_threads() == threads.chosen_threads()
    torch.set_num_threads(2)
    assert threads.apply_to_torch() and torch.get_num_threads() == 1  # as the model load does


def test_a_count_below_one_is_refused(restored: None) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        threads.use_threads(0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice: Linux")
def test_lowering_a_thread_leaves_the_others_alone() -> None:
    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    here = nice()
    seen: dict[str, object] = {}

    def background() -> None:
        seen["lowered"] = threads.lower_this_thread(3)
        seen["nice"] = nice()
        inner = threading.Thread(target=lambda: seen.setdefault("started by it", nice()))
        inner.start()
        inner.join()

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    lower = min(19, here + 3)
    assert seen == {"lowered": True, "nice": lower, "started by it": lower}
    assert nice() == here
