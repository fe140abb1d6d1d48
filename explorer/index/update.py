"""Bringing an index up to date at once: the vault synced into it, then the chunks that have no
vector of the model embedded.

Every one-off update is this function: ``index``, a search that syncs first (``search``, and
the MCP server with ``--sync``) and ``eval``'s indexes.  What differs is only how many chunks
may wait to be embedded (a search embeds a small backlog, or none), and what each says about
it.  The live index does the same two steps on two threads of its own (:mod:`explorer.live`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from explorer.embed.base import EmbedderUnavailable
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.embedding import EmbedProgress, EmbedReport, embed_pending, pending_count
from explorer.index.sync import SyncReport, sync_vault

#: ``progress(phase, done, total, note)``: the sync's phases, then ``"embed"``.
Progress = Callable[..., None]


@dataclass(frozen=True, slots=True)
class Update:
    """What :func:`bring_up_to_date` did."""

    synced: SyncReport
    #: The chunks embedded; ``None`` when no embedding was asked for or none was due.
    embedded: EmbedReport | None = None
    #: Why the model could not be had: the chunks are left waiting.
    unavailable: EmbedderUnavailable | None = None


def bring_up_to_date(
    db: IndexDB,
    provider: EmbedderProvider | None,
    progress: Progress | None = None,
    *,
    synced: Callable[[SyncReport], None] | None = None,
    embed_progress: EmbedProgress | None = None,
    at_most: int | None = None,
) -> Update:
    """Sync ``db`` with its vault (``synced`` is then told how that went, before any
    embedding); then, with ``provider``, embed the chunks that have no vector of its model —
    with ``at_most``, only when some do and no more than that many (the model is not even asked
    for otherwise).  A model that cannot be had leaves them waiting (:attr:`Update.unavailable`).
    ``progress`` follows the sync and, as phase ``"embed"``, the embedding, unless
    ``embed_progress`` follows that.  The caller holds the writer lease."""
    report = sync_vault(db, progress)
    if synced is not None:
        synced(report)
    if provider is None:
        return Update(report)
    if at_most is not None and not 0 < pending_count(db, provider.name) <= at_most:
        return Update(report)
    try:
        embedder = provider.get()
    except EmbedderUnavailable as exc:
        return Update(report, unavailable=exc)
    if embed_progress is None and progress is not None:
        embed_progress = functools.partial(progress, "embed")
    return Update(report, embed_pending(db, embedder, embed_progress))
