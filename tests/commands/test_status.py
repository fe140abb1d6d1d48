"""``vault-explorer status``: the health as text and JSON, the integrity check and the rebuild."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.entry import main
from explorer.index.db import IndexDB

Write = Callable[[str, str | bytes], Path]


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


def test_status_and_search_say_the_languages_the_model_does_not_read(
    write: Write, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(3):
        write(
            f"de-{i}.md",
            f"# Notiz {i}\n\nDas ist eine Notiz, die ich über den Dunkelmodus schrieb.\n",
        )
    write("en.md", "# Note\n\nThis is a note about the dark mode of the app.\n")
    assert main(["index", str(vault), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["status", str(vault)]) == 0
    line = "75 % German, 25 % English; all-MiniLM-L6-v2 reads English: meaning search is weak here"
    assert f"languages   {line}" in capsys.readouterr().out
    assert main(["status", str(vault), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["languages"] == {"de": 3, "en": 1} and data["languageLine"] == line
    query = "Wie kann ich den Dunkelmodus einschalten?"
    assert main(["search", str(vault), query, "--mode", "fts", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["semantic"]["queryLanguage"] == "de"
    assert data["semantic"]["modelReadsQuery"] is False
    assert [h["path"] for h in data["hits"]] == ["de-0.md", "de-1.md", "de-2.md"]
