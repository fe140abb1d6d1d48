"""The embedding queue reads each batch's texts as it goes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.embed.base import FakeEmbedder, Matrix
from explorer.index.db import IndexDB
from explorer.index.embedding import NO_VECTOR, embed_pending, pending_count
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


def test_pending_chunks_are_told_by_the_vector_keys_not_the_vectors(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """Whether a chunk has a vector is looked up in the keys' index (each row of the table
    carries its vector: at 50,000 notes the count took 580 ms, 50 ms by the keys)."""
    for name in "abcd":
        write(f"{name}.md", f"# {name.upper()}\n\n{name} words\n")
    db = open_db(vault)
    sync_vault(db)
    embedder = FakeEmbedder()
    assert pending_count(db, embedder.name) == 4
    plan = " ".join(
        str(row[3])
        for row in db.conn.execute(
            f"EXPLAIN QUERY PLAN SELECT count(*) FROM chunks c WHERE {NO_VECTOR}",
            (embedder.name,),
        )
    )
    assert "vectors_model_hash" in plan
    embed_pending(db, embedder, batch_size=3)
    assert pending_count(db, embedder.name) == 0
    assert pending_count(db, "another model") == 4
