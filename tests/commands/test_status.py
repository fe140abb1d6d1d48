"""``vault-explorer status``: the health as text and JSON, the integrity check and the rebuild."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.entry import main
from explorer.index.db import IndexDB


def test_status_json_and_text(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", str(notes), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["indexed"] is False
    assert main(["index", str(notes), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["status", str(notes), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["notes"] == 2 and data["chunks"] == 2 and data["pendingEmbeddings"] == 2
    assert data["skipped"] == [{"path": "bad.md", "reason": "binary file (contains NUL bytes)"}]
    assert data["ftsIntegrity"] == "ok" and data["model"] == "all-MiniLM-L6-v2"
    assert main(["status", str(notes)]) == 0
    text = capsys.readouterr().out
    assert "notes       2" in text and "bad.md: binary" in text


def test_status_runs_a_real_integrity_check_and_offers_the_rebuild(
    vault: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Random bytes 80 % into the file: ``status`` said "fts ok"; now SQLite's own check runs,
    and a failed check says how to rebuild."""
    import random

    from explorer.index.db import index_path

    for i in range(60):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\n" + f"words of note {i}. " * 400)
    common = ["--data-dir", str(data_dir)]
    assert main(["index", str(vault), "--no-embed", *common]) == 0
    assert main(["status", str(vault), *common]) == 0
    assert "integrity   ok" in capsys.readouterr().out
    db = IndexDB.open_existing(vault, data_dir)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    path = index_path(vault, data_dir)
    data = bytearray(path.read_bytes())
    at = (len(data) * 8 // 10) // 4096 * 4096
    data[at : at + 4096] = random.Random(8).randbytes(4096)
    path.write_bytes(bytes(data))
    code = main(["status", str(vault), *common])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "integrity   ok" not in out
    assert f"vault-explorer status {vault} --rebuild all" in out
