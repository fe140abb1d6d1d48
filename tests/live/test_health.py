"""The index health as ``vault-explorer status --json`` prints it: its shape is an interface
(scripts read it), whatever types carry it inside."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import index_path
from explorer.live import EmbeddingState, Health, LastBatch, LiveEvent, LiveIndex, WatcherState

STATUS_KEYS = [
    "indexed",
    "vault",
    "database",
    "databaseBytes",
    "schemaVersion",
    "tokenizer",
    "notes",
    "chunks",
    "model",
    "vectors",
    "pendingEmbeddings",
    "searchableNotes",
    "restylingNotes",
    "otherModels",
    "skipped",
    "warnings",
    "lastSync",
    "lastSyncAge",
    "lastSyncSummary",
    "integrity",
    "ftsIntegrity",
    "damagedVectors",
    "notices",
    "languages",
    "languageLine",
    "lastBatch",
    "watcher",
]
LAST_BATCH_KEYS = [
    "kind",
    "time",
    "seconds",
    "paths",
    "events",
    "latency",
    "added",
    "changed",
    "moved",
    "deleted",
    "skipped",
    "summary",
]


def status_json(vault: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(["status", str(vault), "--data-dir", str(data_dir), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_status_json_keeps_its_shape(
    vault: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert status_json(vault, data_dir, capsys) == {
        "vault": str(vault.resolve()),
        "database": str(index_path(vault, data_dir)),
        "indexed": False,
    }
    (vault / "a.md").write_text("# A\n\nalpha\n")
    (vault / "bin.md").write_bytes(b"\x00\x00binary")
    (vault / "odd.md").write_bytes(b"# Odd\n\ninvalid \xff byte\n")
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.disabled(), quiet=0.1)
    batch = threading.Event()
    live.subscribe(lambda e: batch.set() if _added_c(e) else None)
    live.start()
    try:
        assert live.wait_idle(30)
        (vault / "c.md").write_text("# C\n\ngamma\n")
        assert batch.wait(30)
    finally:
        live.stop()

    data = status_json(vault, data_dir, capsys)
    assert list(data) == STATUS_KEYS
    assert data["indexed"] is True and data["notes"] == 3 and data["chunks"] == 3
    assert (data["vectors"], data["pendingEmbeddings"], data["otherModels"]) == (0, 3, {})
    assert data["skipped"] == [{"path": "bin.md", "reason": "binary file (contains NUL bytes)"}]
    assert [w["path"] for w in data["warnings"]] == ["odd.md"]
    assert list(data["warnings"][0]) == ["path", "warning"]
    assert (data["integrity"], data["ftsIntegrity"], data["damagedVectors"]) == ("ok", "ok", 0)
    assert data["notices"] == [] and data["lastSyncSummary"].startswith("1 added")
    assert isinstance(data["lastSync"], float) and isinstance(data["databaseBytes"], int)
    assert list(data["lastBatch"]) == LAST_BATCH_KEYS
    assert data["lastBatch"]["kind"] == "batch" and data["lastBatch"]["added"] == 1
    watcher = data["watcher"]
    assert list(watcher) == ["state", "reason", "pid", "role", "embeddingPaused"]
    assert (watcher["state"], watcher["reason"], watcher["role"]) == ("stopped", None, None)
    assert isinstance(watcher["pid"], int)


def _added_c(event: LiveEvent) -> bool:
    return event.kind == "sync" and "c.md" in event.touched


def test_a_live_index_publishes_each_change_of_its_health(vault: Path, data_dir: Path) -> None:
    """The window was told nothing: it read the database every second to find out."""
    (vault / "a.md").write_text("# A\n\nalpha\n")
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.of(FakeEmbedder()), quiet=0.1)
    published: list[Health] = []
    arrived = threading.Condition()

    def record(health: Health) -> None:
        with arrived:
            published.append(health)
            arrived.notify_all()

    live.subscribe_health(record)
    live.start()
    try:
        assert live.wait_idle(30)
        (vault / "b.md").write_text("# B\n\nbravo\n")

        def embedded() -> bool:
            last = published[-1] if published else None
            return last is not None and last.vectors == 2 and last.pending_embeddings == 0

        with arrived:
            assert arrived.wait_for(embedded, timeout=30)
        assert live.wait_idle(30)
        assert published[-1] == live.health()
    finally:
        live.stop()
    states = [h.watcher.state for h in published if h.watcher is not None]
    assert states[0] is WatcherState.STARTING and WatcherState.RUNNING in states
    assert states[-1] is WatcherState.STOPPED
    notes = [h.notes for h in published if h.indexed]
    assert notes == sorted(notes) and notes[-1] == 2  # counted as it went, never backwards
    embedding = [h.embedding.state for h in published if h.embedding is not None]
    assert EmbeddingState.EMBEDDING in embedding
    batches = [h.last_batch for h in published if h.last_batch is not None]
    assert batches[-1].kind == "batch" and batches[-1].added == 1


def test_the_health_of_a_live_index_as_json(vault: Path, data_dir: Path) -> None:
    (vault / "a.md").write_text("# A\n\nalpha\n")
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.disabled("--no-embed"))
    assert live.health().to_json() == {
        "vault": str(vault.resolve()),
        "database": str(index_path(vault, data_dir)),
        "indexed": False,
        "lastBatch": None,
        "watcher": {
            "state": "stopped",
            "reason": None,
            "pid": os.getpid(),
            "role": live.role,
            "embeddingPaused": False,
        },
        "embedding": {
            "state": "idle",
            "reason": None,
            "model": "none",
            "done": 0,
            "total": 0,
            "rate": 0.0,
            "remainingSeconds": None,
            "note": "",
        },
    }
    live.start()
    try:
        assert live.wait_idle(30)
        data = live.health().to_json()
    finally:
        live.stop()
    assert list(data) == [*STATUS_KEYS, "embedding"]
    assert data["notes"] == 1 and data["integrity"] is None  # the whole-file checks: status only
    assert data["embedding"]["state"] == "off" and data["embedding"]["reason"] == "--no-embed"
    assert data["lastBatch"]["kind"] == "reconcile" and data["lastBatch"]["paths"] is None
    assert json.loads(json.dumps(data)) == data


def test_a_last_batch_reads_back_as_it_was_written() -> None:
    written = {
        "kind": "batch",
        "time": 1796242882.0650024,
        "seconds": 0.0018,
        "paths": 1,
        "events": 3,
        "latency": 0.1024,
        "added": 1,
        "changed": 0,
        "moved": 0,
        "deleted": 0,
        "skipped": 0,
        "summary": "1 added, 0 changed, 0 moved, 0 deleted, 0 unchanged in 0.00s",
    }
    assert LastBatch.from_json(json.loads(json.dumps(written))).to_json() == written
    assert list(LastBatch.from_json({}).to_json()) == LAST_BATCH_KEYS
