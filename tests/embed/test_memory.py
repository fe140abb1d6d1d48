"""Memory a batch freed goes back to the system (glibc keeps it otherwise)."""

from __future__ import annotations

import numpy as np
import psutil
import pytest

from explorer.embed.memory import release_freed_memory


def test_freed_memory_inside_the_heap_goes_back_to_the_system() -> None:
    # ~160 MB of blocks small enough for the heap, then one block after them that stays: the
    # freed ones are below it, where malloc does not give memory back by itself.
    blocks = [np.ones(1024) for _ in range(20_000)]
    pinned = np.ones(1024)
    del blocks
    before = psutil.Process().memory_info().rss
    if not release_freed_memory():
        pytest.skip("this C library cannot give freed memory back (not glibc)")
    after = psutil.Process().memory_info().rss
    assert before - after > 100 * 2**20, (before, after)
    assert pinned.sum() == 1024
