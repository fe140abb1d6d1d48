"""The index health as ``vault-explorer status --json`` prints it: its shape is an interface
(scripts read it), whatever types carry it inside."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import index_path
from explorer.live import LiveEvent, LiveIndex

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
    assert list(watcher) == ["state", "reason", "pid", "role"]
    assert (watcher["state"], watcher["reason"], watcher["role"]) == ("stopped", None, None)
    assert isinstance(watcher["pid"], int)


def _added_c(event: LiveEvent) -> bool:
    return event.kind == "sync" and "c.md" in event.touched
