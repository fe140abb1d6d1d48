"""Fixtures of the eval and bench tests."""

from __future__ import annotations

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    """The command line's model is the fake embedder (no real model in these tests)."""
    fake = FakeEmbedder()
    provider = EmbedderProvider.of(fake)
    monkeypatch.setattr("explorer.embed.provider.shared_provider", lambda choice: provider)
    return fake
