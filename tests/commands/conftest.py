"""The command tests' vault: two notes and a binary file the index skips."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Write = Callable[[str, str | bytes], Path]


@pytest.fixture
def notes(vault: Path, write: Write) -> Path:
    write(
        "ops/cdn.md",
        "---\ntags: [ops]\n---\n# CDN purge\n\nThe cache was never purged on deploy.\n",
    )
    write("dev/err.md", "# Parsing\n\nValueError: invalid literal for int() with base 10: '5XX'\n")
    write("bad.md", b"\x00\x00binary")
    return vault
