"""The embedding queue reads each batch's texts as it goes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.embed.base import FakeEmbedder, Matrix
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.store import delete_note
from explorer.index.sync import sync_vault

Write = Callable[[str, str | bytes], Path]


class DeletingEmbedder(FakeEmbedder):
    """Deletes a note after its first batch, as a sync between two batches would."""

    def __init__(self, db: IndexDB, path: str) -> None:
        super().__init__()
        self.db = db
        self.path = path
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> Matrix:
        if not self.texts:
            with self.db.transaction() as conn:
                delete_note(conn, self.path)
        self.texts.extend(texts)
        return super().embed(texts)


def test_a_chunk_deleted_while_embedding_is_not_embedded(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nalpha words\n")
    write("b.md", "# B\n\nbeta words\n")
    write("c.md", "# C\n\ngamma words\n")
    db = open_db(vault)
    sync_vault(db)
    embedder = DeletingEmbedder(db, "c.md")
    report = embed_pending(db, embedder, batch_size=1)
    assert report.chunks == 2
    assert not any("gamma" in text for text in embedder.texts)
    assert pending_count(db, embedder.name) == 0
