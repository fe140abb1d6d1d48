"""The vault watcher on a real watchdog observer over a real temporary folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.vault.watch import Batch, Coalescer, VaultWatcher
from tests.waiting import wait_until


class Collector:
    """Drains a watcher's batches (as the live index's writer does)."""

    def __init__(self, watcher: VaultWatcher) -> None:
        self.watcher = watcher
        self.batches: list[Batch] = []

    def drain(self) -> bool:
        batch = self.watcher.next_batch(0.05)
        if batch is not None:
            self.batches.append(batch)
            self.watcher.task_done()
        return batch is not None

    @property
    def paths(self) -> set[str]:
        return {p for b in self.batches for p in b.paths}

    def until(self, condition: Callable[[Collector], bool], timeout: float = 20.0) -> None:
        def check() -> bool:
            self.drain()
            return condition(self)

        wait_until(check, timeout)


@pytest.fixture
def watched(vault: Path) -> Iterator[Collector]:
    watcher = VaultWatcher(vault, quiet=0.1, max_wait=1.0)
    watcher.start()
    yield Collector(watcher)
    watcher.stop()


def test_create_and_edit_coalesce_into_one_batch(vault: Path, watched: Collector) -> None:
    note = vault / "a.md"
    note.write_text("one")
    with note.open("a") as f:
        f.write(" two")
    watched.until(lambda c: "a.md" in c.paths)
    assert watched.batches[0].paths == {"a.md"}
    assert watched.batches[0].events >= 2  # created, modified, closed… became one path


def test_ignored_paths_never_reach_a_batch(vault: Path, watched: Collector) -> None:
    (vault / ".explorerignore").write_text("drafts/\n")
    watched.until(lambda c: any(b.reconcile for b in c.batches))  # the rules changed
    for folder in (".obsidian", "node_modules", "drafts"):
        (vault / folder).mkdir()
        (vault / folder / "x.md").write_text("hidden")
    (vault / "picture.png").write_bytes(b"\x89PNG")
    (vault / "notes.txt").write_text("not a note")
    (vault / "sentinel.md").write_text("seen")
    watched.until(lambda c: "sentinel.md" in c.paths)
    assert watched.paths == {"sentinel.md"}


def test_atomic_save_yields_the_note_and_never_the_temp_file(
    vault: Path, watched: Collector
) -> None:
    (vault / "note.md").write_text("old")
    watched.until(lambda c: "note.md" in c.paths)
    watched.batches.clear()
    temp = vault / "note.md.tmp"
    temp.write_text("new")
    os.replace(temp, vault / "note.md")
    watched.until(lambda c: "note.md" in c.paths)
    assert watched.paths == {"note.md"}


def test_a_note_renamed_to_a_non_note_name_is_a_deletion(vault: Path, watched: Collector) -> None:
    (vault / "note.md").write_text("text")
    watched.until(lambda c: "note.md" in c.paths)
    watched.batches.clear()
    os.rename(vault / "note.md", vault / "note.md.bak")
    watched.until(lambda c: "note.md" in c.paths)
    assert watched.paths == {"note.md"}


def test_moves_carry_both_sides(vault: Path, watched: Collector) -> None:
    (vault / "a").mkdir()
    (vault / "a" / "n.md").write_text("text")
    (vault / "m.md").write_text("text")
    watched.until(lambda c: {"a/n.md", "m.md"} <= c.paths)
    watched.batches.clear()
    os.rename(vault / "m.md", vault / "a" / "m2.md")
    os.rename(vault / "a", vault / "b")
    watched.until(lambda c: {"m.md", "a", "b"} <= c.paths)
    assert {"a", "b", "m.md"} <= watched.paths


def test_a_burst_is_a_few_batches(vault: Path) -> None:
    watcher = VaultWatcher(vault)  # the default quiet period and cap
    watcher.start()
    try:
        collected = Collector(watcher)
        for i in range(300):
            (vault / f"n{i:03}.md").write_text(f"note {i}")
        collected.until(lambda c: len(c.paths) == 300)
        assert len(collected.batches) <= 3
    finally:
        watcher.stop()


def test_a_deleted_vault_folder_is_reported_as_a_failure(tmp_path: Path) -> None:
    root = tmp_path / "gone"
    root.mkdir()
    watcher = VaultWatcher(root, quiet=0.05, max_wait=0.5)
    watcher.start()
    try:
        assert watcher.failure() is None
        shutil.rmtree(root)
        wait_until(lambda: watcher.failure() is not None)
        assert "gone" in (watcher.failure() or "")
        batch = watcher.next_batch(5.0)
        assert batch is not None and batch.reconcile
    finally:
        watcher.stop()


def test_a_vault_folder_replaced_by_a_link_is_said_once_and_then_watched(tmp_path: Path) -> None:
    """The folder's path now names another folder: the watch on the old one sees nothing, and
    the index would follow the path without a word."""
    root = tmp_path / "vault"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    watcher = VaultWatcher(root, quiet=0.05, max_wait=0.5)
    watcher.start()
    try:
        assert watcher.failure() is None
        root.rename(tmp_path / "old-vault")
        root.symlink_to(elsewhere, target_is_directory=True)
        wait_until(lambda: watcher.failure() is not None)
        failure = watcher.failure() or ""
        assert "replaced by a link to" in failure and str(elsewhere.resolve()) in failure
        watcher.stop()
        watcher.start()  # as the live index restarts a failed watcher
        assert watcher.failure() is None
        collector = Collector(watcher)
        (elsewhere / "new.md").write_text("# New\n", encoding="utf-8")
        collector.until(lambda c: "new.md" in c.paths)
    finally:
        watcher.stop()


def test_coalescer_waits_for_quiet_but_not_longer_than_max_wait() -> None:
    now = [0.0]
    c = Coalescer(quiet=0.3, max_wait=2.0, clock=lambda: now[0])
    assert c.ready_in(0.0) is None and c.idle
    c.add(["a.md"])
    assert c.ready_in(0.0) == pytest.approx(0.3)
    for t in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8):  # a steady trickle of events
        now[0] = t
        c.add([f"{t}.md"])
    assert c.ready_in(1.8) == pytest.approx(0.2)  # capped: 2 s after the first event
    now[0] = 2.0
    batch = c.next_batch(0)
    assert batch is not None and len(batch.paths) == 10 and batch.events == 10
    assert not c.idle  # handed out, not yet applied
    c.task_done()
    assert c.idle


def test_coalescer_kick_wakes_a_waiting_reader() -> None:
    c = Coalescer(quiet=0.3, max_wait=2.0)
    c.kick()
    assert c.next_batch(10.0) is None
    c.add((), reconcile=True)
    batch = c.next_batch(10.0)
    assert batch is not None and batch.reconcile and not batch.paths
