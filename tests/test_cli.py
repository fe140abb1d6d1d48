"""The command line, run as a user runs it: exit codes, messages, JSON, table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.cli import main

Write = Callable[[str, str | bytes], Path]


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


@pytest.fixture
def notes(vault: Path, write: Write) -> Path:
    write(
        "ops/cdn.md",
        "---\ntags: [ops]\n---\n# CDN purge\n\nThe cache was never purged on deploy.\n",
    )
    write("dev/err.md", "# Parsing\n\nValueError: invalid literal for int() with base 10: '5XX'\n")
    write("bad.md", b"\x00\x00binary")
    return vault


def test_index_then_search_json_in_spec_shape(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(notes), "--no-embed"]) == 0
    out = capsys.readouterr()
    assert "2 added" in out.out
    assert "bad.md" in out.err and "binary" in out.err
    assert (
        main(["search", str(notes), "purged deploy", "--mode", "fts", "--json", "--no-sync"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "fts"
    (hit,) = data["hits"]
    assert hit["noteId"] == "ops/cdn.md" and hit["ftsRank"] == 1 and hit["vectorRank"] is None
    assert "<mark>purged</mark>" in hit["snippet"]
    assert sum(hit["contributions"].values()) == pytest.approx(hit["fusedScore"])


def test_table_shows_five_decimals_and_dashes(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(notes), "cache", "--mode", "fts"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "ops/cdn.md" in line)
    assert "0.01148" in row and "0.00000" in row and "—" in row and "CDN purge" in row


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "{vault}", "x", "--limit", "0"], "limit must be between 1 and 100"),
        (["search", "{vault}", "x", "--limit", "101"], "limit must be between 1 and 100"),
        (["search", "{vault}", "x", "--k", "0"], "k must be positive"),
        (["search", "{vault}", "y" * 1001], "limit is 1,000"),
        (["search", "/no/such/vault", "x"], "vault folder not found"),
        (["index", "/no/such/vault"], "vault folder not found"),
        (
            ["search", "{vault}", "x", "--mode", "semantic", "--model", "/no/such/model"],
            "semantic search is unavailable",
        ),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(notes: Path, args: list[str], message: str) -> None:
    proc = _run(*[a.replace("{vault}", str(notes)) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_no_sync_without_an_index_is_a_clear_error(notes: Path) -> None:
    proc = _run("search", str(notes), "x", "--no-sync")
    assert proc.returncode == 2 and "no index" in proc.stderr


def test_hybrid_without_a_model_says_so_and_returns_lexical(notes: Path) -> None:
    proc = _run("search", str(notes), "cache purged", "--json", "--model", "/no/such/model")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["semantic"]["available"] is False
    assert "/no/such/model" in data["semantic"]["reason"] or "model" in data["semantic"]["reason"]
    assert [h["source"] for h in data["hits"]] == ["fts"]


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


def test_data_dir_option_moves_the_index(notes: Path, tmp_path: Path) -> None:
    target = tmp_path / "custom-data"
    assert main(["index", str(notes), "--no-embed", "--data-dir", str(target)]) == 0
    assert list((target / "indexes").glob("*.sqlite"))


def test_corrupt_index_is_rebuilt_and_user_told(notes: Path, data_dir: Path) -> None:
    assert _run("index", str(notes), "--no-embed").returncode == 0
    (db,) = (data_dir / "indexes").glob("*.sqlite")
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    proc = _run("search", str(notes), "cache", "--mode", "fts", "--json")
    assert proc.returncode == 0
    assert "rebuilding" in proc.stderr
    assert json.loads(proc.stdout)["hits"][0]["noteId"] == "ops/cdn.md"


def test_python_dash_m_and_version() -> None:
    proc = _run("--version")
    assert proc.returncode == 0 and "vault-explorer" in proc.stdout
