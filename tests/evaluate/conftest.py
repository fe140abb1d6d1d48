"""Fixtures of the eval and bench tests."""

from __future__ import annotations

import pytest

from explorer.embed import provider as provider_module
from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.embed.sbert import model_name


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    """The command line's model is the fake embedder (no real model in these tests)."""
    fake = FakeEmbedder()
    provider = EmbedderProvider.of(fake)
    monkeypatch.setitem(provider_module._SHARED, model_name(None), provider)
    return fake
