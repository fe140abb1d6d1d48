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
