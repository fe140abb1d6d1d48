"""Sync, then embed: the one way a command brings an index up to date at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import Embedder, EmbedderUnavailable, FakeEmbedder
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.index.db import IndexDB
from explorer.index.embedding import pending_count
from explorer.index.sync import SyncReport
from explorer.index.update import bring_up_to_date

Write = Callable[[str, str | bytes], Path]


def test_the_vault_is_synced_and_told_before_its_chunks_are_embedded(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nalpha words\n")
    write("b.md", "# B\n\nbeta words\n")
    db = open_db(vault)
    fake = FakeEmbedder()
    seen: list[tuple[str, ...]] = []

    def synced(report: SyncReport) -> None:
        seen.append(("synced", *sorted(report.added)))
        assert fake.calls == 0  # before any embedding

    def progress(phase: str, done: int, total: int, note: str = "") -> None:
        if phase == "embed":
            seen.append(("embed", str(done), str(total)))

    update = bring_up_to_date(db, EmbedderProvider.of(fake), progress, synced=synced)
    assert seen[0] == ("synced", "a.md", "b.md")
    assert seen[1] == ("embed", "0", "2") and seen[-1] == ("embed", "2", "2")
    assert update.embedded is not None and update.embedded.chunks == 2
    assert pending_count(db, fake.name) == 0 and update.unavailable is None


def test_without_a_provider_only_the_notes_are_synced(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nalpha words\n")
    db = open_db(vault)
    update = bring_up_to_date(db, None)
    assert update.synced.added == ["a.md"] and update.embedded is None
    assert pending_count(db, FakeEmbedder().name) == 1


@pytest.mark.parametrize("notes", [0, 3])
def test_a_backlog_outside_the_bound_never_asks_for_the_model(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB], notes: int
) -> None:
    for i in range(notes):
        write(f"n{i}.md", f"# N{i}\n\nwords {i}\n")
    db = open_db(vault)

    def load() -> Embedder:
        raise AssertionError("the model was asked for")

    provider = EmbedderProvider("fake-bow-64", load)
    update = bring_up_to_date(db, provider, at_most=2)
    assert update.embedded is None and provider.state is ModelState.IDLE


def test_a_model_that_cannot_be_had_leaves_the_chunks_waiting_and_says_why(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nalpha words\n")
    db = open_db(vault)

    def load() -> Embedder:
        raise EmbedderUnavailable("no model package")

    update = bring_up_to_date(db, EmbedderProvider("fake-bow-64", load), at_most=2)
    assert update.embedded is None and str(update.unavailable) == "no model package"
    assert pending_count(db, "fake-bow-64") == 1
