"""Writing notes and chunks: every write of chunk or vector rows is logged in
``vector_changes``, once per write, so that a loaded vector matrix catches up from it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import explorer
from explorer.embed.base import FakeEmbedder
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending, store_vectors
from explorer.index.store import delete_note, log_vector_changes
from explorer.index.sync import sync_vault


def _log(db: IndexDB) -> dict[int, int]:
    return {int(n): int(s) for n, s in db.conn.execute("SELECT note_id, seq FROM vector_changes")}


def _ids(db: IndexDB) -> dict[str, int]:
    return {str(p): int(i) for i, p in db.conn.execute("SELECT id, path FROM notes")}


def test_a_sync_logs_the_notes_it_wrote_once_per_transaction(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    for i in range(7):
        (vault / f"n{i}.md").write_text(f"# N{i}\n\nwords of note {i}\n")
    db = open_db(vault)
    sync_vault(db, batch_size=3)  # three transactions: 3, 3 and 1 notes
    ids = _ids(db)
    log = _log(db)
    assert set(log) == set(ids.values())
    assert sorted(log.values()) == [1, 1, 1, 2, 2, 2, 3]  # one number per write, not per row
    (vault / "n1.md").write_text("# N1\n\nother words now\n")
    (vault / "n2.md").unlink()
    sync_vault(db)
    log = _log(db)
    assert log[ids["n2.md"]] == 4  # a deletion is logged too (its own transaction) …
    assert log[ids["n1.md"]] == 5  # … before the changed notes'
    assert max(v for k, v in log.items() if k not in (ids["n1.md"], ids["n2.md"])) == 3


def test_a_tag_change_logs_nothing(vault: Path, open_db: Callable[[Path], IndexDB]) -> None:
    (vault / "t.md").write_text("---\ntags: [red]\n---\n# T\n\nsome words\n")
    db = open_db(vault)
    sync_vault(db)
    before = _log(db)
    (vault / "t.md").write_text("---\ntags: [tan]\n---\n# T\n\nsome words\n")
    assert sync_vault(db).changed == ["t.md"]
    assert _log(db) == before


def test_stored_vectors_log_every_note_with_their_text(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """Two notes with the same paragraph share its vector: storing it changes both."""
    (vault / "a.md").write_text("# Shared\n\nshared paragraph\n")
    (vault / "b.md").write_text("# Shared\n\nshared paragraph\n")
    (vault / "c.md").write_text("a paragraph of its own\n")
    db = open_db(vault)
    sync_vault(db)
    ids = _ids(db)
    seq = max(_log(db).values())
    fake = FakeEmbedder()
    (shared,) = db.conn.execute(
        "SELECT DISTINCT hash FROM chunks WHERE note_id = ?", (ids["a.md"],)
    ).fetchone()
    with db.transaction() as conn:
        assert store_vectors(conn, fake.name, [shared, "no-such-text"], fake.embed(["x", "y"]))
    log = _log(db)
    assert log[ids["a.md"]] == log[ids["b.md"]] == seq + 1
    assert log[ids["c.md"]] <= seq
    embed_pending(db, fake)  # the queue stores the rest through the same function
    assert _log(db)[ids["c.md"]] == seq + 2


def test_a_note_deleted_outside_a_sync_is_logged_at_once(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    (vault / "a.md").write_text("# A\n\nalpha\n")
    db = open_db(vault)
    sync_vault(db)
    (note_id,) = _ids(db).values()
    with db.transaction() as conn:
        assert delete_note(conn, "a.md")
        assert not delete_note(conn, "a.md")
        log_vector_changes(conn, [])  # nothing to log: no write
    assert _log(db) == {note_id: 2}


#: SQL that writes rows of ``chunks`` or ``vectors``.
_WRITES = re.compile(
    r"(INSERT(?: OR \w+)? INTO|DELETE FROM|UPDATE|REPLACE INTO)\s+(chunks|vectors)\b", re.I
)


def test_chunks_and_vectors_are_written_only_where_the_change_log_is_kept() -> None:
    """No trigger keeps ``vector_changes`` any more: a new writer of chunks or vectors outside
    ``store.py`` and ``embedding.py`` (which log every write) would leave loaded matrices
    behind."""
    package = Path(explorer.__file__).parent
    writers = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if _WRITES.search(path.read_text(encoding="utf-8"))
    }
    assert writers == {"index/store.py", "index/embedding.py"}


def test_a_notes_properties_are_written_and_replaced_at_each_sync(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    note = vault / "a.md"
    note.write_text("---\ntags: [book, read]\ndue: 2024-03-14\n---\nbody\n")
    db = open_db(vault)
    sync_vault(db)
    rows = db.conn.execute("SELECT key, seq, kind, text FROM note_props ORDER BY key, seq")
    assert rows.fetchall() == [
        ("due", 0, "date", "2024-03-14"),
        ("tags", 0, "list", "book"),
        ("tags", 1, "list", "read"),
    ]
    note.write_text("---\nDone: yes\n---\nbody\n")
    sync_vault(db)
    rows = db.conn.execute("SELECT key, name, kind, text, num FROM note_props")
    assert rows.fetchall() == [("done", "Done", "checkbox", "true", 1.0)]
    note.unlink()
    sync_vault(db)
    assert db.conn.execute("SELECT count(*) FROM note_props").fetchone()[0] == 0
