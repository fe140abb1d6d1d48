"""Related notes: the nearest notes in meaning from the stored chunk vectors, no model call."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import Embedder, FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending
from explorer.index.sync import sync_vault
from explorer.index.vectors import VectorIndex
from explorer.search.answers.related import related
from explorer.search.explain.explain import NoteNotIndexed

Write = Callable[[str, str | bytes], Path]

NOTES = {
    "cooking/sourdough.md": (
        "# Sourdough\n\nFeed the starter the night before, knead the loaf, let it rise and bake "
        "it in a very hot oven until the crust crackles.\n"
    ),
    "cooking/focaccia.md": (
        "# Focaccia\n\nA flat Italian bread: proof the yeasted dough in an oiled tray, dimple "
        "it with your fingers and olive oil, then bake until golden.\n"
    ),
    "ops/rollout.md": (
        "# Cluster rollout\n\nDrain the nodes one at a time, apply the Kubernetes manifests "
        "and watch the pods restart behind the load balancer.\n"
    ),
    "ops/containers.md": (
        "# Containers\n\nBuild the Docker image, push it to the registry and run the "
        "container on the staging host.\n"
    ),
    "garden/tomatoes.md": (
        "# Tomatoes\n\nWater the seedlings every morning, pinch out the side shoots and tie "
        "the vines to stakes before they flower.\n"
    ),
}

#: A note of several topics: the garden section is its only tie to the tomatoes note.
WEEK = (
    "# Week 12\n\n## The outage\n\n"
    + "On Tuesday the deploy pipeline stalled, the release was rolled back by hand and the "
    "on-call engineer wrote the incident report for the service owners. "
    * 2
    + "\n\n## Meetings\n\n"
    + "Planning with the finance team about the budget for next quarter, the hiring plan and "
    "the travel policy, then a long review of the invoices. "
    * 2
    + "\n\n## Allotment\n\n"
    + "Planted out the young tomato plants, watered them and put in canes to support the vines "
    "as they climb; the seedlings look strong. " * 2
)


@pytest.fixture
def notes(vault: Path, write: Write) -> Path:
    for rel, text in NOTES.items():
        write(rel, text)
    write("journal/week 12.md", WEEK)
    return vault


def _index(db: IndexDB, embedder: Embedder) -> VectorIndex:
    sync_vault(db)
    embed_pending(db, embedder)
    return VectorIndex(embedder.name)


@pytest.mark.model
def test_semantic_neighbours_rank_first_and_the_note_is_left_out(
    notes: Path, open_db: Callable[[Path], IndexDB], real_provider: EmbedderProvider
) -> None:
    db = open_db(notes)
    vectors = _index(db, real_provider.get())
    bread = related(db, vectors, "cooking/sourdough.md", limit=5)
    paths = [r.path for r in bread.notes]
    assert bread.reason is None
    assert "cooking/sourdough.md" not in paths
    assert paths[0] == "cooking/focaccia.md"  # no word of the query note's text is shared
    assert len(paths) == 5
    cosines = [r.cosine for r in bread.notes]
    assert cosines == sorted(cosines, reverse=True) and all(-1.0 <= c <= 1.0 for c in cosines)
    deploy = related(db, vectors, "ops/rollout.md", limit=2)
    # the other ops note, and the journal whose outage section is about a deploy
    assert {r.path for r in deploy.notes} == {"ops/containers.md", "journal/week 12.md"}


@pytest.mark.model
def test_a_note_of_several_topics_is_near_each_of_them(
    notes: Path, open_db: Callable[[Path], IndexDB], real_provider: EmbedderProvider
) -> None:
    """The best pair of chunks counts, so one shared section is enough (a mean over the
    journal's sections would drown its garden section in the outage and the budget)."""
    db = open_db(notes)
    vectors = _index(db, real_provider.get())
    chunks = db.conn.execute(
        "SELECT count(*) FROM chunks c JOIN notes n ON n.id = c.note_id WHERE n.path = ?",
        ("journal/week 12.md",),
    ).fetchone()[0]
    assert chunks >= 3
    tomatoes = related(db, vectors, "garden/tomatoes.md", limit=1)
    assert [r.path for r in tomatoes.notes] == ["journal/week 12.md"]


def test_no_model_call_and_the_matrix_is_read_once(
    notes: Path, open_db: Callable[[Path], IndexDB], fake: FakeEmbedder
) -> None:
    db = open_db(notes)
    vectors = _index(db, fake)
    calls = fake.calls
    first = related(db, vectors, "cooking/sourdough.md")
    generation = vectors.generation
    second = related(db, vectors, "ops/rollout.md")
    assert fake.calls == calls  # the stored vectors are the query
    assert vectors.generation == generation  # not reloaded while the index did not change
    assert first.notes and second.notes
    assert len(first.notes) == len(NOTES)  # every other note, the note itself left out


def test_a_note_without_vectors_says_why(
    notes: Path, write: Write, open_db: Callable[[Path], IndexDB], fake: FakeEmbedder
) -> None:
    db = open_db(notes)
    vectors = _index(db, fake)
    write("inbox/new.md", "# New\n\nJust written, not embedded yet.\n")
    sync_vault(db)
    result = related(db, vectors, "inbox/new.md")
    assert result.notes == [] and result.reason is not None and "pending" in result.reason
    assert [r.path for r in related(db, vectors, "ops/rollout.md").notes].count("inbox/new.md") == 0


def test_an_index_without_any_vector_says_why(
    notes: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    db = open_db(notes)
    sync_vault(db)
    result = related(db, VectorIndex("all-MiniLM-L6-v2"), "ops/rollout.md")
    assert result.notes == [] and result.reason == "no note has a vector yet (embedding pending)"


def test_a_path_not_in_the_index_is_an_error(
    notes: Path, open_db: Callable[[Path], IndexDB], fake: FakeEmbedder
) -> None:
    db = open_db(notes)
    vectors = _index(db, fake)
    with pytest.raises(NoteNotIndexed, match=r"no/such\.md"):
        related(db, vectors, "no/such.md")
    with pytest.raises(ValueError, match="limit"):
        related(db, vectors, "ops/rollout.md", limit=0)


def test_an_edited_note_is_compared_by_its_new_text(
    notes: Path, write: Write, open_db: Callable[[Path], IndexDB], fake: FakeEmbedder
) -> None:
    db = open_db(notes)
    vectors = _index(db, fake)
    assert related(db, vectors, "garden/tomatoes.md", limit=1).notes[0].path != "ops/rollout.md"
    write("garden/tomatoes.md", NOTES["ops/rollout.md"].replace("Cluster rollout", "Tomatoes"))
    sync_vault(db)
    embed_pending(db, fake)
    top = related(db, vectors, "garden/tomatoes.md", limit=1).notes[0]
    assert top.path == "ops/rollout.md" and top.cosine > 0.9


def test_linked_and_direction_come_from_the_link_lookup(
    notes: Path, open_db: Callable[[Path], IndexDB], fake: FakeEmbedder
) -> None:
    db = open_db(notes)
    vectors = _index(db, fake)

    def lookup(conn: sqlite3.Connection, path: str) -> tuple[set[str], set[str]]:
        assert path == "ops/rollout.md"
        return {"ops/containers.md", "cooking/focaccia.md"}, {"ops/containers.md", "garden/x.md"}

    result = related(db, vectors, "ops/rollout.md", limit=10, links=lookup)
    by_path = {r.path: r for r in result.notes}
    assert result.links_known
    assert (by_path["ops/containers.md"].linked, by_path["ops/containers.md"].direction) == (
        True,
        "both",
    )
    assert by_path["cooking/focaccia.md"].direction == "outgoing"
    assert by_path["garden/tomatoes.md"].linked is False
    assert by_path["garden/tomatoes.md"].direction is None
    assert {r.path for r in result.unlinked} == set(by_path) - {
        "ops/containers.md",
        "cooking/focaccia.md",
    }
    unknown = related(db, vectors, "ops/rollout.md", links=lambda conn, path: None)
    assert not unknown.links_known and not any(r.linked for r in unknown.notes)


def test_linked_and_direction_come_from_the_links_table(
    tmp_path: Path, open_db: Callable[[Path], IndexDB], fake: FakeEmbedder
) -> None:
    """The fixture Obsidian vault: Home links to four notes (one by an embed, one by a
    markdown link that links back), and is linked from two more."""
    from tests.obsidian_vault import build_obsidian_vault

    db = open_db(build_obsidian_vault(tmp_path))
    vectors = _index(db, fake)
    result = related(db, vectors, "Home.md", limit=20)
    assert result.links_known
    directions = {r.path: r.direction for r in result.notes}
    assert directions == {
        "Properties.md": "both",
        "Accepted file formats.md": "outgoing",
        "Guides/Setup.md": "both",
        "Embedded note.md": "outgoing",
        "Archive/Old/Properties.md": "incoming",
        "Callouts.md": None,
        "Cycle A.md": None,
        "Cycle B.md": None,
    }
    assert all(r.linked == (r.direction is not None) for r in result.notes)
    assert {r.path for r in result.unlinked} == {"Callouts.md", "Cycle A.md", "Cycle B.md"}


def test_a_note_with_nothing_in_common_is_not_listed(
    notes: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    """Cosine 0 (no word shared, for the fake embedder: wide enough that words do not collide)
    is unrelated, not a related note."""
    write("misc/xyzzy.md", "Xyzzy plugh.\n")
    db = open_db(notes)
    vectors = _index(db, FakeEmbedder(dimension=8192, name="fake-bow-8192"))
    assert "misc/xyzzy.md" not in [r.path for r in related(db, vectors, "ops/rollout.md").notes]
    alone = related(db, vectors, "misc/xyzzy.md")
    assert alone.notes == [] and alone.reason is None
