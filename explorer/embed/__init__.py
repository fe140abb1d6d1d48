"""Embeddings: the :class:`Embedder` seam and its backends."""

from explorer.embed.base import Embedder, EmbedderUnavailable, FakeEmbedder

__all__ = ["Embedder", "EmbedderUnavailable", "FakeEmbedder"]
