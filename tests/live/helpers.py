"""What the tests of a reader share: the statements its connection runs, as SQLite ran them."""

from __future__ import annotations

from explorer.live.reader import IndexReader


def traced(reader: IndexReader) -> list[str]:
    """Every statement ``reader``'s connection runs from now on (it opens it if need be)."""
    statements: list[str] = []
    reader.submit(lambda ctx: ctx.db.conn.set_trace_callback(statements.append), group=None)
    reader.submit(lambda ctx: None, group=None).result()  # the callback is in place
    return statements


def matrix_reads(statements: list[str]) -> int:
    """How many of ``statements`` read every vector of the index: a load of the matrix
    (:meth:`explorer.index.vectors.VectorIndex.load`), the read a served request must not
    repeat."""
    return sum(1 for s in statements if s.startswith("SELECT c.note_id, c.start, c.end, v.vec"))
