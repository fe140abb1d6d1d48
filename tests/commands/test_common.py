"""What the commands share: the index they read, as it is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.entry import main
from explorer.index.db import index_path


@pytest.mark.parametrize(
    "command",
    [
        ["explain", "{vault}", "cache", "a.md", "--mode", "fts"],
        ["compare", "{vault}", "cache", "--a", "mode=fts", "--b", "mode=fts,k=10"],
    ],
    ids=["explain", "compare"],
)
def test_read_only_commands_leave_a_damaged_index_as_it_is(
    vault: Path, write: Callable[[str, str | bytes], Path], command: list[str]
) -> None:
    """``explain`` and ``compare`` read the index as it is: one that cannot be read is reported,
    not moved aside and rebuilt (only a writer does that)."""
    write("a.md", "# A\n\nThe cache.\n")
    path = index_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database" * 100)
    before = sorted(p.name for p in path.parent.iterdir())
    assert main([part.format(vault=vault) for part in command]) != 0
    assert path.read_bytes() == b"not a database" * 100
    assert sorted(p.name for p in path.parent.iterdir()) == before
