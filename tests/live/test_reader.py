"""The read side of a vault: one thread, one read-only connection, one matrix; the most urgent
job first, a newer job of a group superseding the older, and long jobs yielding at their
checkpoints.  Every wait here is for an event, with a timeout only as a safety net."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB, IndexNotReady, index_path
from explorer.index.sync import sync_vault
from explorer.live import LiveIndex
from explorer.live.reader import NORMAL, URGENT, IndexReader, ReadContext, Superseded

SAFETY_S = 60.0


@pytest.fixture
def provider() -> EmbedderProvider:
    return EmbedderProvider.of(FakeEmbedder())


@pytest.fixture
def indexed(write: Callable[[str, str], Path], vault: Path, data_dir: Path) -> Path:
    for i in range(3):
        write(f"n{i}.md", f"# Note {i}\n\nHow we deploy, part {i}.\n")
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    db.close()
    return vault


@pytest.fixture
def reader(indexed: Path, data_dir: Path, provider: EmbedderProvider) -> Iterator[IndexReader]:
    reader = IndexReader(lambda: IndexDB.open_reader(indexed, data_dir), provider)
    yield reader
    reader.close(SAFETY_S)


def test_an_urgent_job_runs_at_the_next_checkpoint_of_a_long_one(reader: IndexReader) -> None:
    order: list[str] = []
    started, asked = threading.Event(), threading.Event()

    def long(ctx: ReadContext) -> int:
        for step in range(3):
            order.append(f"long {step}")
            if step == 0:
                started.set()
                assert asked.wait(SAFETY_S)
            ctx.checkpoint()
        return 3

    def urgent(ctx: ReadContext) -> int:
        order.append("urgent")
        return int(ctx.db.conn.execute("SELECT count(*) FROM notes").fetchone()[0])

    slow = reader.submit(long, group="quality", priority=NORMAL)
    assert started.wait(SAFETY_S)
    quick = reader.submit(urgent, group="search", priority=URGENT)
    asked.set()
    assert quick.result(SAFETY_S) == 3 and slow.result(SAFETY_S) == 3
    assert order == ["long 0", "urgent", "long 1", "long 2"]  # in between, on one connection
    assert reader.opened == 1


def test_a_newer_job_of_a_group_supersedes_the_queued_and_the_running(
    reader: IndexReader,
) -> None:
    started, go = threading.Event(), threading.Event()

    def running(ctx: ReadContext) -> str:
        started.set()
        assert go.wait(SAFETY_S)
        ctx.checkpoint()  # a newer job of the group is waiting: this one stops here
        return "finished"

    first = reader.submit(running, group="around")
    assert started.wait(SAFETY_S)
    queued = reader.submit(lambda ctx: "queued", group="around")
    newest = reader.submit(lambda ctx: "newest", group="around")
    assert queued.cancelled()  # dropped before it ran
    go.set()
    with pytest.raises(Superseded):
        first.result(SAFETY_S)
    assert newest.result(SAFETY_S) == "newest"
    with pytest.raises(CancelledError):
        queued.result(0)


def test_every_job_shares_one_matrix(reader: IndexReader) -> None:
    model = FakeEmbedder().name
    one = reader.submit(lambda ctx: ctx.vectors(model), group="a").result(SAFETY_S)
    two = reader.submit(lambda ctx: ctx.searcher().vector_index(), group="b").result(SAFETY_S)
    assert one is two


def test_without_an_index_the_reader_says_so_and_writes_nothing(
    vault: Path, data_dir: Path, provider: EmbedderProvider
) -> None:
    reader = IndexReader(lambda: IndexDB.open_reader(vault, data_dir), provider)
    try:
        with pytest.raises(IndexNotReady):
            reader.submit(lambda ctx: None, group="open").result(SAFETY_S)
    finally:
        reader.close(SAFETY_S)
    assert not (data_dir / "indexes").exists()


def test_the_reader_waits_for_the_live_index_to_create_the_index(
    write: Callable[[str, str], Path], vault: Path, data_dir: Path, provider: EmbedderProvider
) -> None:
    write("a.md", "# A\n\nDeploy it.\n")
    live = LiveIndex(vault, data_dir, provider, watch=False)
    reader = IndexReader(lambda: IndexDB.open_reader(vault, data_dir), provider, writer=live)
    try:
        asked = reader.submit(lambda ctx: ctx.db.path, group="open")  # before the writer runs
        live.start()
        assert asked.result(SAFETY_S).exists()
        assert live.wait_idle(SAFETY_S)
        count = reader.submit(
            lambda ctx: ctx.db.conn.execute("SELECT count(*) FROM notes").fetchone()[0],
            group="count",
        )
        assert count.result(SAFETY_S) == 1
    finally:
        reader.close(SAFETY_S)
        live.stop()


def test_a_reader_of_another_process_index_follows_it_when_it_is_deleted_or_rebuilt(
    indexed: Path, data_dir: Path, provider: EmbedderProvider
) -> None:
    reader = IndexReader(
        lambda: IndexDB.open_reader(indexed, data_dir), provider, reopen_if_replaced=True
    )

    def count(ctx: ReadContext) -> int:
        return int(ctx.db.conn.execute("SELECT count(*) FROM notes").fetchone()[0])

    try:
        assert reader.submit(count, group=None).result(SAFETY_S) == 3
        assert reader.submit(count, group=None).result(SAFETY_S) == 3
        assert reader.opened == 1  # the same file: the same connection
        path = index_path(indexed, data_dir)
        for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
            (path.parent / name).unlink(missing_ok=True)
        with pytest.raises(IndexNotReady):
            reader.submit(count, group=None).result(SAFETY_S)
        (indexed / "n3.md").write_text("# Note 3\n\nHow we deploy, part 3.\n")
        db = IndexDB.open(indexed, data_dir)  # rebuilt from scratch by another process
        sync_vault(db)
        db.close()
        assert reader.submit(count, group=None).result(SAFETY_S) == 4
        assert reader.opened == 2
    finally:
        reader.close(SAFETY_S)
