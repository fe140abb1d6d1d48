"""`vault-explorer related`: the nearest notes as text and JSON, read-only; one line and exit
status 2 for a note the index does not have."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.models import DEFAULT_MODEL
from explorer.entry import main
from explorer.index.db import IndexDB, index_path
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.sync import sync_vault
from tests.commands.helpers import index_written

Write = Callable[[str, str | bytes], Path]


@pytest.fixture
def notes(vault: Path, write: Write, data_dir: Path) -> Path:
    """Three notes with vectors tagged as the default model's (the fake embedder's words-only
    vectors: the command reads vectors, it never embeds)."""
    write("ops/cdn.md", "# CDN purge\n\nThe cache was never purged on deploy.\n")
    write("ops/runbook.md", "# Deploy runbook\n\nRoll back the deploy, then purge the cache.\n")
    write("dev/pasta.md", "# Pasta\n\nBoil water, add salt.\n")
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        embed_pending(db, FakeEmbedder(name=DEFAULT_MODEL))
    finally:
        db.close()
    return vault


def test_text_is_one_line_a_note_with_its_cosine(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["related", str(notes), "ops/cdn.md"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "related to ops/cdn.md — CDN purge"
    rows = [line.rsplit(" — ", 1)[0].split() for line in lines[2:]]
    assert [r[-1] for r in rows] == ["ops/runbook.md", "dev/pasta.md"]  # nearest first
    cosines = [r[1] for r in rows]
    assert all(len(c.split(".")[1]) == 4 for c in cosines)  # four decimals
    assert float(cosines[0]) > float(cosines[1])
    assert all("ops/cdn.md" not in line for line in lines[1:])


def test_json_is_the_list_with_cosines_and_links(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["related", str(notes), "ops/cdn.md", "--json", "--limit", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["path"] == "ops/cdn.md" and data["reason"] is None
    assert data["model"] == DEFAULT_MODEL
    (only,) = data["related"]
    assert only["path"] == "ops/runbook.md" and only["title"] == "Deploy runbook"
    assert 0 < only["cosine"] <= 1 and isinstance(only["linked"], bool)
    assert set(only) == {"path", "title", "cosine", "linked", "direction"}


def test_it_reads_the_index_and_never_writes_or_embeds_it(
    notes: Path, write: Write, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write("inbox/new.md", "# New\n\nNot embedded yet: deploy the cache.\n")
    db = IndexDB.open(notes, data_dir)
    try:
        sync_vault(db)
        waiting = pending_count(db, DEFAULT_MODEL)
    finally:
        db.close()
    assert waiting == 1
    before = index_written(notes)
    assert before[1] == 0
    capsys.readouterr()
    assert main(["related", str(notes), "inbox/new.md", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["related"] == [] and "pending" in data["reason"]
    assert main(["related", str(notes), "ops/cdn.md"]) == 0
    (notes / "ops" / "cdn.md").write_text("# CDN\n\nChanged, not synced.\n", encoding="utf-8")
    assert main(["related", str(notes), "ops/cdn.md"]) == 0
    assert index_written(notes) == before
    db = IndexDB.open(notes, data_dir)
    try:
        assert pending_count(db, DEFAULT_MODEL) == 1
    finally:
        db.close()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", "related", *args],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=300,
    )


def test_a_note_not_in_the_index_exits_2_naming_close_paths(notes: Path) -> None:
    proc = _run(str(notes), "ops/runbok.md")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert "ops/runbok.md is not a note of the index" in line
    assert "did you mean ops/runbook.md" in line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ops/cdn.md", "--limit", "0"], "--limit"),
        (["nothing-like-it-zzz.md"], "is not a note of the index"),
    ],
)
@pytest.mark.slow
def test_bad_input_exits_2_with_one_line(notes: Path, args: list[str], message: str) -> None:
    proc = _run(str(notes), *args)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert message in line


def test_a_vault_without_an_index_exits_2(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    proc = _run(str(other), "a.md")
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "no index" in line
    assert not index_path(other).exists()


def test_linked_neighbours_are_marked_with_the_direction(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.obsidian_vault import build_obsidian_vault

    vault = build_obsidian_vault(tmp_path)
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        embed_pending(db, FakeEmbedder(name=DEFAULT_MODEL))
    finally:
        db.close()
    capsys.readouterr()
    assert main(["related", str(vault), "Home.md", "--limit", "20"]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()[2:]

    def row(path: str) -> str:
        (line,) = [line for line in lines if f"  {path} — " in line]
        return line

    assert "↔ linked" in row("Properties.md")
    assert "→ linked" in row("Embedded note.md")
    assert "← linked" in row("Archive/Old/Properties.md")
    assert "linked" not in row("Callouts.md")
    assert out.err == ""  # the index stores links: no warning
    assert main(["related", str(vault), "Home.md", "--json", "--limit", "20"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_path = {r["path"]: r for r in data["related"]}
    assert data["linksKnown"] is True
    assert by_path["Archive/Old/Properties.md"]["direction"] == "incoming"
    assert by_path["Callouts.md"]["linked"] is False
