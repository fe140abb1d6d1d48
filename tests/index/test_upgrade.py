"""Chunks embedded with where they stand: an index made before upgrades itself in the
background, and a renamed note, with search answered on the vectors it had throughout."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from explorer.embed.base import FakeEmbedder
from explorer.index.db import IndexDB, index_path
from explorer.index.embedding import embed_pending, pending_count, restyling_count
from explorer.index.migrations import LATEST_VERSION
from explorer.index.status import read_status
from explorer.index.sync import sync_vault
from explorer.index.vectors import VectorIndex

RELEASE = Path(__file__).parent / "fixtures" / "index-2026-12-05"


def _found(db: IndexDB, query: str) -> str:
    """The first note of the vector list for ``query``, as a fresh reader sees it."""
    fake = FakeEmbedder()
    index = VectorIndex(fake.name)
    index.refresh(db)
    paths = dict(db.conn.execute("SELECT id, path FROM notes").fetchall())
    hits = index.top_notes(fake.embed([query])[0], 10)
    return str(paths[hits[0].note_id]) if hits else ""


def _vector_rows(db: IndexDB) -> int:
    return int(db.conn.execute("SELECT count(*) FROM vectors").fetchone()[0])


def _release_index(tmp_path: Path, data_dir: Path) -> Path:
    """A copy of the release's vault, with the release's index where today's code looks."""
    vault = tmp_path / "vault"
    shutil.copytree(RELEASE / "vault", vault)
    target = index_path(vault.resolve(), data_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(RELEASE / "index.sqlite", target)
    return vault


def test_an_index_of_the_release_before_upgrades_and_is_searched_throughout(
    tmp_path: Path, data_dir: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    vault = _release_index(tmp_path, data_dir)
    db = open_db(vault)
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert _found(db, "money back receipt") == "guides/Refund policy.md"

    sync_vault(db)
    # Two notes' chunks now read "Refund policy\n…", "Deploy checklist\n…" and wait for their
    # vectors; tar's chunk starts with its title and is as it was.
    assert restyling_count(db) == 2
    assert pending_count(db, FakeEmbedder().name) == 2
    report = read_status(db, FakeEmbedder().name, check_fts=False)
    assert report.to_json()["restylingNotes"] == 2
    assert report.searchable_notes == 3  # by their vectors of before, meanwhile
    assert report.restyling_line == (
        "2 notes still on their vectors of before, being embedded again with title and headings"
    )
    assert _found(db, "money back receipt") == "guides/Refund policy.md"
    assert _found(db, "revert release tag") == "Deploy checklist.md"

    fake = FakeEmbedder()
    embed_pending(db, fake)
    assert fake.calls == 2
    assert restyling_count(db) == 0
    assert pending_count(db, fake.name) == 0
    # The new vectors are the texts with their titles: the title alone now finds the note.
    assert _found(db, "refund policy") == "guides/Refund policy.md"
    sync_vault(db)  # the release's vectors, answering for nothing now, are gone
    assert _vector_rows(db) == 3


def test_a_sync_stopped_before_the_upgrade_ends_is_finished_by_the_next(
    tmp_path: Path, data_dir: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    vault = _release_index(tmp_path, data_dir)
    db = open_db(vault)
    sync_vault(db, paths=["tar.md"])  # a watcher's sync reads only what changed
    assert restyling_count(db) == 0
    sync_vault(db, batch_size=1)
    assert restyling_count(db) == 2


def test_a_renamed_note_keeps_its_vectors_until_the_new_title_is_embedded(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    (vault / "Deploy checklist.md").write_text("Run the migrations, then smoke tests.\n")
    (vault / "Other.md").write_text("Unrelated words about gardening.\n")
    db = open_db(vault)
    sync_vault(db)
    fake = FakeEmbedder()
    embed_pending(db, fake)
    (vault / "Deploy checklist.md").rename(vault / "Release checklist.md")
    report = sync_vault(db)
    assert report.renamed == [("Deploy checklist.md", "Release checklist.md")]
    assert restyling_count(db) == 1
    assert _found(db, "migrations smoke tests") == "Release checklist.md"
    fake.calls = 0
    embed_pending(db, fake)
    assert fake.calls == 1  # the renamed note's one chunk, nothing else
    assert _found(db, "release checklist") == "Release checklist.md"
    expected = fake.embed(["Release checklist\nRun the migrations, then smoke tests."])[0]
    (blob,) = db.conn.execute(
        "SELECT v.vec FROM vectors v JOIN chunks c ON c.hash = v.hash "
        "JOIN notes n ON n.id = c.note_id WHERE n.path = 'Release checklist.md'"
    ).fetchone()
    assert np.allclose(np.frombuffer(blob, dtype="<f4"), expected)


def test_new_notes_are_embedded_before_restyled_ones(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    for name in ("a", "b"):
        (vault / f"{name}.md").write_text(f"Note {name} text.\n")
    db = open_db(vault)
    sync_vault(db)
    embed_pending(db, FakeEmbedder())
    (vault / "a.md").rename(vault / "z renamed.md")
    (vault / "c.md").write_text("A new note.\n")
    sync_vault(db)
    order: list[str] = []
    embed_pending(db, FakeEmbedder(), lambda done, total, path: order.append(path), batch_size=1)
    assert [p for p in order if p] == ["c.md", "z renamed.md"]
