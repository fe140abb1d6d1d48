"""``vault-explorer index``: where the index goes, and a damaged one rebuilt."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.entry import main
from tests.commands.helpers import run_program


def test_data_dir_option_moves_the_index(notes: Path, tmp_path: Path) -> None:
    target = tmp_path / "custom-data"
    assert main(["index", str(notes), "--no-embed", "--data-dir", str(target)]) == 0
    assert list((target / "indexes").glob("*.sqlite"))


def test_corrupt_index_is_rebuilt_and_user_told(notes: Path, data_dir: Path) -> None:
    assert run_program("index", str(notes), "--no-embed").returncode == 0
    (db,) = (data_dir / "indexes").glob("*.sqlite")
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    proc = run_program("search", str(notes), "cache", "--mode", "fts", "--json")
    assert proc.returncode == 0
    assert "rebuilding" in proc.stderr
    assert json.loads(proc.stdout)["hits"][0]["noteId"] == "ops/cdn.md"
