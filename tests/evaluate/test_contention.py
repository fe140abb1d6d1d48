"""bench --while-embedding: question embeddings timed idle and while chunks embed."""

from __future__ import annotations

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.evaluate.contention import format_contention, query_while_embedding


class Batched(FakeEmbedder):
    """A fake with the passage batch the real model has, to show both are measured."""

    def __init__(self) -> None:
        super().__init__()
        self.passage_tokens = 1024
        self.token_budget = 8192
        self.seen: set[int] = set()

    def embed(self, texts: list[str]) -> object:  # type: ignore[override]
        self.seen.add(self.passage_tokens)
        return super().embed(texts)


def test_both_passage_batches_are_measured_and_the_setting_is_given_back() -> None:
    embedder = Batched()
    figures = query_while_embedding(embedder, ["a note about deploys"] * 40, ["deploy", "cdn"])
    assert set(figures["busy"]) == {"1024 word pieces a turn", "8192 word pieces a turn"}
    assert embedder.seen == {1024, 8192}
    assert embedder.passage_tokens == 1024
    for busy in figures["busy"].values():
        assert busy["backgroundChunksPerSecond"] > 0
        assert busy["questionMs"]["p50"] <= busy["questionMs"]["max"]
    lines = format_contention(figures)
    assert lines[1].lstrip().startswith("idle")
    assert any("1024 word pieces a turn" in line for line in lines)


def test_a_model_without_a_passage_batch_is_measured_once() -> None:
    figures = query_while_embedding(FakeEmbedder(), ["text"] * 20, ["question"])
    assert list(figures["busy"]) == ["model"]


def test_nothing_to_measure_with_is_said() -> None:
    with pytest.raises(ValueError, match="no chunks or no questions"):
        query_while_embedding(FakeEmbedder(), [], ["question"])


class Failing(FakeEmbedder):
    """Questions (one text) embed; the background's passages (16 a call) fail."""

    def embed(self, texts: list[str]) -> object:  # type: ignore[override]
        if len(texts) > 1:
            raise RuntimeError("the model fell over")
        return super().embed(texts)


def test_a_background_embedding_that_fails_is_said_not_waited_for() -> None:
    with pytest.raises(RuntimeError, match="the model fell over"):
        query_while_embedding(Failing(), ["text"] * 20, ["question"])
