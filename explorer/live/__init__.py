"""The live index: one writer that keeps a vault's index current while its files change.

Three kinds of threads, no Qt:

- the **writer** owns the index: it reconciles the vault, applies the watcher's batches and
  supervises the watcher (:mod:`explorer.live.writer`, where :class:`LiveIndex` puts the parts
  together);
- the **embedder** has its own connection and embeds what the writer committed, recently saved
  notes first, with back-off when the model fails (:mod:`explorer.live.embedder`);
- the **watchdog observer** threads (see :mod:`explorer.vault.watch`).

Everything that happens is published as an event (one class per kind, :data:`LiveEvent`) to
subscribers (called on the background threads: a window hands them to its own thread) and kept
in a short log
(:mod:`explorer.live.events`).  The watcher's state and the last batch are also written to the
index's ``meta`` table, so that another process (``vault-explorer status``) can show them
(:mod:`explorer.live.state`).  How the index is doing is a typed :class:`Health`, published to
its own subscribers whenever it changes (:mod:`explorer.live.health`); what goes wrong is told
apart as the machine's or a bug (:mod:`explorer.live.problems`).
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.live.embedder import EMBED_BATCH
    from explorer.live.events import (
        EmbedDone,
        ErrorEvent,
        Event,
        LiveEvent,
        NoticeEvent,
        SyncEvent,
        VectorsStored,
        WatcherEvent,
    )
    from explorer.live.health import (
        EmbeddingHealth,
        EmbeddingState,
        Health,
        LastBatch,
        WatcherHealth,
        WatcherState,
    )
    from explorer.live.problems import Problem, ProblemKind
    from explorer.live.state import persisted_batch, persisted_watcher, stored_health
    from explorer.live.writer import LiveIndex

_WHERE = {
    "EMBED_BATCH": "explorer.live.embedder",
    "EmbedDone": "explorer.live.events",
    "EmbeddingHealth": "explorer.live.health",
    "EmbeddingState": "explorer.live.health",
    "ErrorEvent": "explorer.live.events",
    "Event": "explorer.live.events",
    "Health": "explorer.live.health",
    "LastBatch": "explorer.live.health",
    "LiveEvent": "explorer.live.events",
    "LiveIndex": "explorer.live.writer",
    "NoticeEvent": "explorer.live.events",
    "Problem": "explorer.live.problems",
    "ProblemKind": "explorer.live.problems",
    "SyncEvent": "explorer.live.events",
    "VectorsStored": "explorer.live.events",
    "WatcherEvent": "explorer.live.events",
    "WatcherHealth": "explorer.live.health",
    "WatcherState": "explorer.live.health",
    "persisted_batch": "explorer.live.state",
    "persisted_watcher": "explorer.live.state",
    "stored_health": "explorer.live.state",
}


__all__ = [
    "EMBED_BATCH",
    "EmbedDone",
    "EmbeddingHealth",
    "EmbeddingState",
    "ErrorEvent",
    "Event",
    "Health",
    "LastBatch",
    "LiveEvent",
    "LiveIndex",
    "NoticeEvent",
    "Problem",
    "ProblemKind",
    "SyncEvent",
    "VectorsStored",
    "WatcherEvent",
    "WatcherHealth",
    "WatcherState",
    "persisted_batch",
    "persisted_watcher",
    "stored_health",
]


def __getattr__(name: str) -> Any:
    """The names above, imported when first used: a process that needs only
    :mod:`explorer.live.serve` (the warm command line) does not load the model's libraries."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value
