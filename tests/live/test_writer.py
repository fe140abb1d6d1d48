"""The live index on a real watchdog observer over a real temporary vault, with the fake
embedder: what a user editing notes sees in search, and what the index holds afterwards."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder, Matrix
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.embedding import pending_count
from explorer.live import (
    EmbeddingHealth,
    EmbeddingState,
    LiveEvent,
    LiveIndex,
    WatcherHealth,
    WatcherState,
    persisted_watcher,
)
from explorer.live import writer as writer_module
from explorer.live.state import persisted_batch
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import SemanticUnavailable
from explorer.search.query.options import SearchOptions
from tests.waiting import wait_until

Start = Callable[..., LiveIndex]


@pytest.fixture
def start(vault: Path, data_dir: Path) -> Iterator[Start]:
    """Start a live index on the test vault (stopped at the end of the test)."""
    started: list[LiveIndex] = []

    def _start(provider: EmbedderProvider, **options: object) -> LiveIndex:
        options.setdefault("quiet", 0.1)
        options.setdefault("max_wait", 1.0)
        live = LiveIndex(vault, str(data_dir), provider, **options)  # type: ignore[arg-type]
        started.append(live)
        live.start()
        assert live.wait_idle(30), live.health()
        return live

    yield _start
    for live in started:
        live.stop()


class Reader:
    """Another connection, as the window or `search --no-sync` reads the index."""

    def __init__(self, vault: Path, data_dir: Path) -> None:
        self.db = IndexDB.open_existing(vault, data_dir)
        # A separate embedder for queries, so the live index's call count stays its own.
        self.searcher = Searcher(self.db, EmbedderProvider.of(FakeEmbedder()))

    def find(self, query: str, mode: str = "fts") -> list[str]:
        try:
            response = self.searcher.search(query, SearchOptions(mode=mode))
        except SemanticUnavailable:  # no vector at all yet
            return []
        return [h.path for h in response.hits]

    def notes(self) -> dict[str, str]:
        return dict(self.db.conn.execute("SELECT path, hash FROM notes"))


@pytest.fixture
def reader(vault: Path, data_dir: Path) -> Iterator[Callable[[], Reader]]:
    opened: list[Reader] = []

    def _open() -> Reader:
        opened.append(Reader(vault, data_dir))
        return opened[-1]

    yield _open
    for r in opened:
        r.db.close()


def _embedding(live: LiveIndex) -> EmbeddingHealth:
    embedding = live.health().embedding
    assert embedding is not None
    return embedding


def _watcher(live: LiveIndex) -> WatcherHealth:
    watcher = live.health().watcher
    assert watcher is not None
    return watcher


def files(vault: Path) -> dict[str, str]:
    """Every note of the folder with the sha256 of its bytes (what the index must hold)."""
    return {
        p.relative_to(vault).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in vault.rglob("*.md")
    }


def test_create_edit_rename_move_delete_reach_search(
    vault: Path, start: Start, reader: Callable[[], Reader]
) -> None:
    fake = FakeEmbedder()
    live = start(EmbedderProvider.of(fake))
    r = reader()

    (vault / "birds.md").write_text("# Birds\n\nThe kingfisher dives.\n")
    wait_until(lambda: r.find("kingfisher") == ["birds.md"])
    wait_until(lambda: r.find("kingfisher", "semantic")[:1] == ["birds.md"])  # its vectors

    (vault / "birds.md").write_text("# Birds\n\nThe heron waits.\n")
    wait_until(lambda: r.find("heron") == ["birds.md"])
    assert r.find("kingfisher") == []
    wait_until(lambda: r.find("heron", "semantic")[:1] == ["birds.md"])
    assert live.wait_idle(20)
    calls = fake.calls

    os.rename(vault / "birds.md", vault / "waders.md")
    wait_until(lambda: r.find("heron") == ["waders.md"])
    (vault / "nature").mkdir()
    os.rename(vault / "waders.md", vault / "nature" / "waders.md")
    wait_until(lambda: r.find("heron") == ["nature/waders.md"])
    os.rename(vault / "nature", vault / "wildlife")
    wait_until(lambda: r.find("heron") == ["wildlife/waders.md"])
    assert live.wait_idle(20)
    assert r.find("heron", "semantic")[:1] == ["wildlife/waders.md"]
    assert fake.calls == calls, "a rename or a move must not embed anything"

    (vault / "wildlife" / "waders.md").unlink()
    wait_until(lambda: r.find("heron") == [])
    assert r.notes() == {}
    assert r.db.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0


@pytest.mark.parametrize("style", ["temp-then-replace", "backup-rename", "delete-then-create"])
def test_an_atomic_save_leaves_one_note_with_the_new_content(
    vault: Path, start: Start, reader: Callable[[], Reader], style: str
) -> None:
    note = vault / "journal.md"
    note.write_text("# Journal\n\nfirstdraft\n")
    start(EmbedderProvider.of(FakeEmbedder()))
    r = reader()
    wait_until(lambda: r.find("firstdraft") == ["journal.md"])
    new = "# Journal\n\nseconddraft\n"
    if style == "temp-then-replace":  # most editors
        temp = vault / ".journal.md.swp.tmp"
        temp.write_text(new)
        os.replace(temp, note)
    elif style == "backup-rename":  # vim's default: move the note aside, write anew, drop backup
        os.rename(note, vault / "journal.md~")
        note.write_text(new)
        (vault / "journal.md~").unlink()
    else:
        note.unlink()
        note.write_text(new)
    wait_until(lambda: r.find("seconddraft") == ["journal.md"])
    wait_until(lambda: r.notes() == files(vault))
    assert r.find("firstdraft") == []
    assert list(r.notes()) == ["journal.md"]


@pytest.mark.slow
def test_a_burst_of_creates_renames_and_deletes_converges_exactly(
    vault: Path, start: Start, reader: Callable[[], Reader]
) -> None:
    errors: list[LiveEvent] = []
    live = start(EmbedderProvider.of(FakeEmbedder()), quiet=0.3, max_wait=2.0)
    live.subscribe(lambda e: errors.append(e) if e.kind == "error" else None)
    r = reader()
    for folder in range(20):
        (vault / f"f{folder:02}").mkdir()
    for i in range(2000):
        (vault / f"f{i % 20:02}" / f"note {i:04}.md").write_text(
            f"# Note {i}\n\nword{i} shared text of the burst, line {i % 7}.\n"
        )
    wait_until(lambda: len(r.notes()) == 2000, timeout=60)
    for i in range(500):  # renames, half of them across folders
        src = vault / f"f{i % 20:02}" / f"note {i:04}.md"
        dest = vault / f"f{(i + i % 2) % 20:02}" / f"renamed {i:04}.md"
        os.rename(src, dest)
    for i in range(1000, 1500):
        (vault / f"f{i % 20:02}" / f"note {i:04}.md").unlink()
    wait_until(lambda: r.notes() == files(vault), timeout=60)
    assert len(r.notes()) == 1500
    assert live.wait_idle(30)
    assert pending_count(r.db, "fake-bow-64") == 0
    assert errors == []
    assert r.db.fts_integrity() is None


def test_changes_made_while_stopped_are_caught_up_at_the_next_start(
    vault: Path, start: Start, reader: Callable[[], Reader]
) -> None:
    for name in ("keep", "edit", "drop"):
        (vault / f"{name}.md").write_text(f"# {name}\n\noriginal {name}\n")
    first = start(EmbedderProvider.of(FakeEmbedder()))
    first.stop()
    assert first.state is WatcherState.STOPPED
    (vault / "edit.md").write_text("# edit\n\nchanged while nobody watched\n")
    (vault / "drop.md").unlink()
    (vault / "sub").mkdir()
    (vault / "sub" / "new.md").write_text("# new\n\nborn offline\n")
    start(EmbedderProvider.of(FakeEmbedder()))
    r = reader()
    assert r.notes() == files(vault)  # start() + wait_idle: the start-up reconcile is done
    assert r.find("offline") == ["sub/new.md"] and r.find("nobody") == ["edit.md"]


def test_without_events_the_periodic_reconcile_converges(
    vault: Path, start: Start, reader: Callable[[], Reader]
) -> None:
    live = start(EmbedderProvider.of(FakeEmbedder()), watch=False, reconcile_interval=0.2)
    assert live.state is WatcherState.STOPPED and "reconciling" in (live.state_reason or "")
    r = reader()
    (vault / "late.md").write_text("# Late\n\nunwatched arrival\n")
    wait_until(lambda: r.find("unwatched") == ["late.md"])


class GatedEmbedder(FakeEmbedder):
    """Blocks every embed call until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.entered = threading.Event()

    def embed(self, texts: list[str]) -> Matrix:
        self.entered.set()
        self.gate.wait(30)
        return super().embed(texts)


def test_lexical_updates_never_wait_for_embedding(
    vault: Path, data_dir: Path, reader: Callable[[], Reader]
) -> None:
    embedder = GatedEmbedder()
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.of(embedder), quiet=0.1)
    (vault / "first.md").write_text("# First\n\nwaiting for its vectors\n")
    live.start()
    try:
        assert embedder.entered.wait(20)  # the embedder is now stuck on first.md
        r = reader()
        for i in range(3):
            (vault / f"edit{i}.md").write_text(f"# Edit {i}\n\nquickword{i}\n")
            wait_until(lambda i=i: r.find(f"quickword{i}") == [f"edit{i}.md"])  # type: ignore[misc]
        assert r.db.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
        embedder.gate.set()
        assert live.wait_idle(20)
        assert pending_count(r.db, embedder.name) == 0
    finally:
        embedder.gate.set()
        live.stop()


class SlowEmbedder(FakeEmbedder):
    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def embed(self, texts: list[str]) -> Matrix:
        threading.Event().wait(self.delay)
        return super().embed(texts)


def test_a_new_note_is_embedded_before_the_backlog(
    vault: Path, data_dir: Path, reader: Callable[[], Reader]
) -> None:
    for i in range(200):
        (vault / f"old{i:03}.md").write_text(f"# Old {i}\n\nbacklog {i}\n")
    embedder = SlowEmbedder(0.05)
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.of(embedder), quiet=0.1, embed_batch=4)
    live.start()
    try:
        wait_until(lambda: _embedding(live).done >= 4)
        r = reader()
        (vault / "fresh.md").write_text("# Fresh\n\njust saved\n")
        wait_until(lambda: r.find("saved") == ["fresh.md"])

        def fresh_embedded() -> bool:
            return not r.db.conn.execute(
                "SELECT 1 FROM chunks c JOIN notes n ON n.id = c.note_id WHERE n.path = "
                "'fresh.md' AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash)"
            ).fetchone()

        wait_until(fresh_embedded)
        assert pending_count(r.db, embedder.name) > 100  # the backlog is still far from done
    finally:
        live.stop()


class FlakyEmbedder(FakeEmbedder):
    """Fails its first ``failures`` calls, as a model that runs out of memory might."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    def embed(self, texts: list[str]) -> Matrix:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("out of memory")
        return super().embed(texts)


def test_a_failing_model_is_retried_with_back_off(vault: Path, data_dir: Path) -> None:
    (vault / "a.md").write_text("# A\n\nalpha\n")
    events: list[LiveEvent] = []
    embedder = FlakyEmbedder(failures=3)
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.of(embedder), retry_delay=0.05)
    live.subscribe(events.append)
    live.start()
    try:
        assert live.wait_idle(20)
        errors = [e.message for e in events if e.kind == "error"]
        assert len(errors) == 3 and "out of memory" in errors[0]
        assert [m.rsplit("retry in ", 1)[1] for m in errors] == ["0.05 s", "0.1 s", "0.2 s"]
        assert any(e.kind == "embed-done" and e.done == 1 for e in events)
        assert _embedding(live).state is EmbeddingState.IDLE
    finally:
        live.stop()


def test_without_a_model_the_lexical_index_still_follows_the_files(
    vault: Path, start: Start, reader: Callable[[], Reader]
) -> None:
    live = start(EmbedderProvider.disabled("--no-embed"))
    r = reader()
    (vault / "plain.md").write_text("# Plain\n\nlexicalonly\n")
    wait_until(lambda: r.find("lexicalonly") == ["plain.md"])
    assert live.wait_idle(10)
    embedding = _embedding(live)
    assert embedding.state is EmbeddingState.OFF and embedding.reason == "--no-embed"


def test_health_events_and_the_persisted_state(
    vault: Path, start: Start, reader: Callable[[], Reader]
) -> None:
    (vault / "one.md").write_text("# One\n\nfirst\n")
    live = start(EmbedderProvider.of(FakeEmbedder()))
    seen: list[LiveEvent] = []
    unsubscribe = live.subscribe(seen.append)
    r = reader()
    (vault / "two.md").write_text("# Two\n\nsecond\n")
    wait_until(lambda: any(e.kind == "sync" and "two.md" in e.touched for e in seen))
    assert live.wait_idle(10)
    wait_until(lambda: any(e.kind == "embed-done" for e in seen))

    health = live.health()  # wait_idle: its counts include what was just done
    assert health.notes == 2 and health.vectors == 2 and health.pending_embeddings == 0
    assert health.watcher == WatcherHealth(
        WatcherState.RUNNING, None, os.getpid(), "the vault-explorer window"
    )
    assert health.last_batch is not None
    assert health.last_batch.kind == "batch" and health.last_batch.added == 1
    assert health.embedding is not None and health.embedding.state is EmbeddingState.IDLE
    assert health.embedding.model == "fake-bow-64"
    assert any(e.kind == "sync" and e.message.startswith("start-up") for e in live.events())

    persisted = persisted_watcher(r.db)
    assert persisted.state is WatcherState.RUNNING and persisted.pid == os.getpid()
    last = persisted_batch(r.db)
    assert last is not None and last.summary.startswith("1 added")

    unsubscribe()
    count = len(seen)
    live.request_reconcile()
    wait_until(
        lambda: live.events()[-1].kind == "sync" and "reconcile" in live.events()[-1].message
    )
    assert len(seen) == count

    live.stop()
    assert persisted_watcher(r.db).state is WatcherState.STOPPED
    assert r.db.fts_integrity() is None


@pytest.mark.slow
def test_a_watcher_that_dies_degrades_and_recovers(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "RESTART_DELAY", 0.2)
    root = tmp_path / "moving-vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nbefore\n")
    live = LiveIndex(root, str(data_dir), EmbedderProvider.disabled(), quiet=0.1)
    live.start()
    try:
        assert live.wait_idle(20)
        shutil.move(root, tmp_path / "elsewhere")
        wait_until(lambda: live.state is WatcherState.DEGRADED)
        assert "reconciling every" in (live.state_reason or "")
        assert _watcher(live).state is WatcherState.DEGRADED
        shutil.move(tmp_path / "elsewhere", root)
        (root / "b.md").write_text("# B\n\nafter the gap\n")
        wait_until(lambda: live.state is WatcherState.RUNNING)
        wait_until(lambda: live.health().notes == 2)
    finally:
        live.stop()


# ----------------------------------------------------------------------------- one writer


@pytest.mark.slow
def test_a_second_live_index_reads_and_takes_over_when_the_first_stops(
    vault: Path, data_dir: Path, start: Start, reader: Callable[[], Reader]
) -> None:
    """Two windows on one vault: one writes, the other follows what it writes, and becomes the
    writer when the first closes (before, both wrote and embedded everything)."""
    (vault / "a.md").write_text("# A\n\nalpha\n")
    first_embedder, second_embedder = FakeEmbedder(), FakeEmbedder()
    first = start(EmbedderProvider.of(first_embedder))
    second = LiveIndex(vault, str(data_dir), EmbedderProvider.of(second_embedder), quiet=0.1)
    seen: list[LiveEvent] = []
    second.subscribe(seen.append)
    second.start()
    try:
        wait_until(lambda: second.state is WatcherState.READER)
        assert second.wait_idle(5), "a reader has nothing of its own to wait for"
        assert "keeps this index current" in (second.state_reason or "")
        wait_until(lambda: second.health().notes == 1)

        (vault / "b.md").write_text("# B\n\nbravo\n")
        wait_until(lambda: any(e.kind == "sync" and "b.md" in e.touched for e in seen))
        assert first.wait_idle(30)
        assert second_embedder.calls == 0, "a reader embeds nothing"
        state = persisted_watcher(reader().db)
        assert (state.state, state.pid) == (WatcherState.RUNNING, os.getpid())

        first.stop()
        wait_until(lambda: second.state is WatcherState.RUNNING)
        (vault / "c.md").write_text("# C\n\ncharlie\n")
        r = reader()
        wait_until(lambda: r.find("charlie") == ["c.md"])
    finally:
        second.stop()


def test_a_live_index_that_must_write_says_who_holds_the_index(
    vault: Path, data_dir: Path, start: Start
) -> None:
    start(EmbedderProvider.of(FakeEmbedder()), role="watch")
    other = LiveIndex(vault, str(data_dir), EmbedderProvider.disabled(), share=False, role="x")
    other.start()
    try:
        wait_until(lambda: not other.running)
        assert other.state is WatcherState.STOPPED
        assert f"watch (pid {os.getpid()}" in (other.state_reason or "")
    finally:
        other.stop()


def test_a_failing_reconcile_shows_as_a_watcher_error(
    vault: Path, data_dir: Path, start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reconcile failed while the state still said "running"."""
    live = start(EmbedderProvider.disabled())
    assert live.state is WatcherState.RUNNING

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("the vault went away")

    monkeypatch.setattr(writer_module, "sync_vault", broken)
    live.request_reconcile()
    wait_until(lambda: live.state is WatcherState.DEGRADED)
    assert "the vault went away" in (live.state_reason or "")
    db = IndexDB.open_existing(vault, data_dir)
    try:
        assert persisted_watcher(db).state is WatcherState.DEGRADED
    finally:
        db.close()
    monkeypatch.undo()
    live.request_reconcile()
    wait_until(lambda: live.state is WatcherState.RUNNING)
