"""`vault-explorer explain`: why a note is where it is, as text and JSON; one line for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.entry import main

Write = Callable[[str, str | bytes], Path]


@pytest.fixture
def notes(vault: Path, write: Write) -> Path:
    write("ops/cdn.md", "# CDN purge\n\nThe cache was never purged on deploy.\n")
    write("ops/runbook.md", "# Deploy runbook\n\nRoll back the deploy, then purge the cache.\n")
    write("dev/pasta.md", "# Pasta\n\nBoil water, add salt.\n")
    assert main(["index", str(vault), "--no-embed"]) == 0
    return vault


def test_explain_json_names_the_exclusion(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    args = ["explain", str(notes), "cache -runbook", "ops/runbook.md", "--mode", "fts", "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["path"] == "ops/runbook.md" and "excluded" in data["reasons"]
    assert [(e["word"], e["present"]) for e in data["exclusions"]] == [("runbook", True)]


def test_explain_text_says_which_words_are_missing(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["explain", str(notes), "cache purged", "dev/pasta.md", "--mode", "fts"]) == 0
    out = capsys.readouterr().out
    assert "cache" in out and "purged" in out and out.strip()


@pytest.mark.parametrize(
    ("note", "extra", "message"),
    [
        ("no/such.md", [], "is not a note of the index"),
        ("ops/cdn.md", ["--k", "0"], "k"),
    ],
)
@pytest.mark.slow
def test_bad_input_exits_2_with_one_line(
    notes: Path, note: str, extra: list[str], message: str
) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "explain",
            str(notes),
            "cache",
            note,
            "--mode=fts",
            *extra,
        ],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


@pytest.mark.parametrize("query", ["cache modified:<999999d", "cache created:>9999"])
def test_explain_of_a_date_filter_beyond_the_index(
    notes: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    capsys.readouterr()
    assert main(["explain", str(notes), query, "ops/cdn.md", "--mode", "fts"]) == 0
    out = capsys.readouterr().out
    passes = "<999999d" in query
    assert (f"filter `{query.split()[1]}`: the note passes it" in out) is passes
    assert (f"not listed: `{query.split()[1]}` excludes it" in out) is not passes
