"""The MCP and warm-path tests' shared vault."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from tests.conftest import build_index


@pytest.fixture
def indexed(
    write: Callable[[str, str], Path],
    vault: Path,
    open_db: Callable[[Path], IndexDB],
    fake: FakeEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> EmbedderProvider:
    """The vault's notes indexed and embedded by the fake model; the warm path on."""
    monkeypatch.setenv("VAULT_EXPLORER_WARM", "1")
    for i in range(6):
        write(f"n{i}.md", f"# Note {i}\n\nHow we deploy the cache, part {i}.\n")
    provider = EmbedderProvider.of(fake)
    build_index(open_db(vault), provider)
    return provider
