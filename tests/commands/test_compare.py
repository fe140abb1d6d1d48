"""`vault-explorer compare`: one query under two settings, as JSON and as a table; one line and
exit status 2 for a bad SETTINGS string or a vault without an index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.entry import main
from explorer.search.query.options import SearchOptions

Write = Callable[[str, str | bytes], Path]


@pytest.fixture
def notes(vault: Path, write: Write) -> Path:
    write("ops/cdn.md", "# CDN purge\n\nThe cache was never purged on deploy.\n")
    write("ops/runbook.md", "# Deploy runbook\n\nRoll back the deploy, then purge the cache.\n")
    write("dev/pasta.md", "# Pasta\n\nBoil water, add salt, cache the sauce.\n")
    assert main(["index", str(vault), "--no-embed"]) == 0
    return vault


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert main(["compare", *args, "--json"]) == 0
    data: dict = json.loads(capsys.readouterr().out)
    return data


def test_json_has_both_settings_the_overlap_and_a_row_per_note(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _json(capsys, str(notes), "cache deploy", "--a", "mode=fts", "--b", "mode=fts,depth=1")
    assert data["query"] == "cache deploy"
    assert data["a"] == SearchOptions(mode="fts").in_effect().to_json()  # what ranked
    assert data["b"]["depth"] == 1 and data["b"]["mode"] == "fts"
    assert data["overlap"]["jaccard10"] == pytest.approx(1 / 3, abs=1e-4)
    assert 0 <= data["overlap"]["rbo"] <= 1 and data["rboP"] == 0.9
    rows = data["rows"]
    assert [(r["rankA"], r["rankB"], r["delta"]) for r in rows] == [
        (1, 1, 0),
        (2, None, None),
        (3, None, None),
    ]
    assert rows[0]["path"] == "ops/runbook.md"  # both words, and the title
    assert {r["path"] for r in rows} == {"ops/runbook.md", "ops/cdn.md", "dev/pasta.md"}
    assert [r["move"] for r in rows] == ["same", "gone", "gone"]


def test_limit_cuts_both_tops(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, str(notes), "cache", "--a", "mode=fts", "--b", "mode=fts", "--limit", "1")
    assert data["a"]["limit"] == data["b"]["limit"] == 1
    assert len(data["rows"]) == 1 and data["overlap"]["jaccard10"] == 1.0


def test_table_has_the_overlap_on_top_and_the_moves(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    args = ["compare", str(notes), "cache deploy", "--a", "mode=fts", "--b", "mode=fts,depth=1"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("A  fts") and lines[1].startswith("B  fts depth 1")
    assert lines[2].startswith("Jaccard@10 0.33 · RBO(p=0.9)")
    assert lines[4].split() == ["A", "B", "move", "title", "path"]
    body = [line.split() for line in lines[5:]]
    assert body[0][:3] == ["1", "1", "="] and body[0][-1] == "ops/runbook.md"
    assert [row[:3] for row in body[1:]] == [["2", "—", "gone"], ["3", "—", "gone"]]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=300,
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (["--a", "k=-1"], "--a 'k=-1': k must be positive"),
        (["--b", "colour=red"], "--b 'colour=red': unknown setting 'colour'"),
        (["--b", "mode=fts,depth"], "is not key=value"),
        (["--a", "preset=nope"], "unknown preset 'nope'"),
        (["--a", "depth=1" + "0" * 400], "depth must be between 1 and 1000, got '10000000'…"),
        (["--b", "w_fts=1" + "0" * 400], "w_fts must be between 0 and 1000"),
    ],
)
@pytest.mark.slow
def test_a_bad_settings_string_exits_2_with_one_line(
    notes: Path, settings: list[str], message: str
) -> None:
    proc = _run("compare", str(notes), "cache", *settings)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
    assert proc.stdout == ""


@pytest.mark.slow
def test_a_vault_without_an_index_exits_2_with_one_line(vault: Path, write: Write) -> None:
    write("a.md", "# A\n\ncache\n")
    proc = _run("compare", str(vault), "cache", "--a", "mode=fts", "--b", "mode=fts")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no index for" in lines[0]


@pytest.mark.model
def test_seed_rrf_against_the_default_on_the_sample_vault(
    sample_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(sample_copy)]) == 0
    query = "how do we roll back a bad deploy"
    data = _json(capsys, str(sample_copy), query, "--a", "preset=seed", "--b", "mode=semantic")
    assert data["a"]["min_sim"] == 0 and data["b"]["mode"] == "semantic"
    lists = data["lists"]
    assert lists["a"]["lexical"] > 0 and lists["a"]["vector"] > 0
    assert lists["b"]["lexical"] == 0 and lists["b"]["vector"] > 0
    ranks_b = [r["rankB"] for r in data["rows"] if r["rankB"] is not None]
    assert ranks_b == list(range(1, len(ranks_b) + 1))
    for row in data["rows"]:
        if row["rankA"] is not None and row["rankB"] is not None:
            assert row["delta"] == row["rankA"] - row["rankB"]
