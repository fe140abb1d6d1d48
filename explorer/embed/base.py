"""The embedding seam: anything with a name, a dimension and a batch ``embed`` is an embedder.

Vectors are L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

import hashlib
import re
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from explorer.embed.models import EmbedderUnavailable as EmbedderUnavailable

Matrix = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """Model name stored with every vector; vectors of another name are never mixed in."""
        ...

    @property
    def dimension(self) -> int:
        """Length of each vector."""
        ...

    def embed(self, texts: list[str]) -> Matrix:
        """One L2-normalised float32 row per text."""
        ...


def embed_queries(embedder: Embedder, texts: list[str]) -> Matrix:
    """Vectors of search questions.  A model trained with a question prefix (e5's ``query:``)
    has an ``embed_query`` for them; any other embeds a question as any text."""
    embed_query = getattr(embedder, "embed_query", None)
    return embed_query(texts) if callable(embed_query) else embedder.embed(texts)


def normalize_rows(matrix: npt.NDArray[np.floating]) -> Matrix:
    """Rows scaled to unit length (zero rows stay zero)."""
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(m / norms, dtype=np.float32)


_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """A deterministic bag-of-words embedder for fast tests (like llm's ``EmbedDemo``).

    Each lower-cased word is hashed to a few dimensions, so texts sharing words are similar and
    texts sharing none are orthogonal — enough to test ranking plumbing without a model.
    ``calls`` counts texts embedded, so tests can prove that nothing was re-embedded.
    """

    def __init__(self, dimension: int = 64, name: str = "fake-bow-64") -> None:
        self._dimension = dimension
        self._name = name
        self.calls = 0
        self.batches: list[int] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: list[str]) -> Matrix:
        self.calls += len(texts)
        self.batches.append(len(texts))
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                for i in range(0, 6, 2):
                    out[row, int.from_bytes(digest[i : i + 2], "little") % self._dimension] += 1.0
        return normalize_rows(out)
