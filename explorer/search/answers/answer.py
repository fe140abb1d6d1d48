"""One search of an index as the commands answer it: ``search --json`` and the MCP server's
``search`` tool give the same hits in the same shape because both come from here.

:func:`search_index` searches the index as it is, and says how many chunks are still waiting for a
vector: a hybrid search whose index has no vector at all answers lexically at once, without
loading a model it could not use.  A search that syncs first brings the index up to date with
:func:`explorer.index.update.bring_up_to_date`, embedding a backlog of at most
:data:`EMBED_BEFORE_SEARCH` chunks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.embed.base import Embedder, EmbedderUnavailable
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.embedding import pending_count
from explorer.index.vectors import VectorIndex
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import Mode, SearchOptions

#: A search that syncs embeds the chunks waiting for a vector first only when there are at most
#: this many (an edited note or a few: about a second on a laptop's CPU); above it, it answers
#: with the vectors that exist and says how many are waiting.
EMBED_BEFORE_SEARCH = 64


@dataclass(frozen=True, slots=True)
class Answer:
    """A search's response, and the chunks of the index still waiting for a vector."""

    response: SearchResponse
    #: Chunks without a vector of the model (0 in lexical mode, which does not ask).
    waiting: int
    #: Whether the index has any vector of the model (always true in lexical mode).
    any_vectors: bool

    def to_json(self) -> dict[str, Any]:
        """What ``vault-explorer search --json`` prints: the response, and (unless the mode is
        lexical) the chunks waiting under ``semantic.pending``."""
        data = self.response.to_json()
        if self.response.options.mode != Mode.FTS:
            data["semantic"]["pending"] = self.waiting
        return data


def search_index(
    db: IndexDB,
    provider: EmbedderProvider,
    raw: str,
    options: SearchOptions,
    *,
    vectors: VectorIndex | None = None,
) -> Answer:
    """Search ``db`` as it is (no sync).  The model of ``provider`` is asked for only when the
    index has a vector of it to compare with; ``vectors`` is the caller's matrix, kept between
    searches (default: one read for this search)."""
    # Counting them reads every chunk (~70 ms at 50,000 notes): a long-lived reader's
    # connection counts once per generation of the index.
    model = provider.name
    waiting = (
        db.kept(("waiting", model), lambda: pending_count(db, model))
        if options.mode != Mode.FTS
        else 0
    )
    any_vectors = waiting == 0 or has_vectors(db, provider.name)
    searching = provider
    if not any_vectors and provider.error is None:
        # Nothing to search by meaning: answer now, without loading a model for nothing
        # (a model that failed to load while embedding is reported as such).
        searching = unavailable(
            provider.name,
            f"no note has a vector yet ({waiting_text(waiting)}; "
            f"run `{db.index_command()}` to embed them)",
        )
    response = Searcher(db, searching, vectors=vectors).search(raw, options)
    return Answer(response, waiting, any_vectors)


def waiting_text(count: int) -> str:
    """``3 chunks are waiting for embeddings``."""
    return f"{count} chunk{'s are' if count != 1 else ' is'} waiting for embeddings"


def has_vectors(db: IndexDB, model: str) -> bool:
    """Whether any chunk of the index has a vector of ``model``."""
    row = db.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM vectors v JOIN chunks c ON c.hash = v.hash "
        "WHERE v.model = ?)",
        (model,),
    ).fetchone()
    return bool(row[0])


def unavailable(name: str, reason: str) -> EmbedderProvider:
    """A provider of model ``name`` that has no embedder, for ``reason``."""

    def load() -> Embedder:
        raise EmbedderUnavailable(reason)

    return EmbedderProvider(name, load)
