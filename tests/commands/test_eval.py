"""``vault-explorer eval``: the report as JSON and text, the per-query file, a vault's judgments,
one line for each bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.entry import main


def test_cli_eval_beir_json_and_per_query(
    beir: Path, tmp_path: Path, fake_model: FakeEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    per_query = tmp_path / "pq.tsv"
    code = main(
        [
            "eval",
            str(beir),
            "--json",
            "--per-query",
            str(per_query),
            "--fusion",
            "convex",
            "--w-fts",
            "0.5",
            "--w-vec",
            "0.5",
            "--limit-queries",
            "3",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["fusion"] == "convex" and data["settings"]["depth"] == 100
    assert data["settings"]["weights"] == {"fts": 0.5, "vector": 0.5}
    assert data["evaluatedQueries"] == 3 and data["model"] == "fake-bow-64"
    header, *rows = per_query.read_text("utf-8").splitlines()
    assert header.split("\t")[:4] == ["query_id", "query", "relevant", "rank_fts"]
    assert "vs_semantic" in header and len(rows) == 3
    assert main(["eval", str(beir), "--modes", "fts,hybrid"]) == 0
    table = capsys.readouterr().out
    assert "fts " in table and "semantic " not in table and "vs fts" in table


def test_cli_eval_vault_judgments(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "deploy.md").write_text("# Deploy\n\nrollback the deploy\n")
    (vault / "pasta.md").write_text("# Pasta\n\nboil water\n")
    judgments = tmp_path / "judgments.tsv"
    judgments.write_text(
        "query\tpath\tgrade\ndeploy rollback\tdeploy.md\t3\n"
        "boil water\tpasta.md\t2\nboil water\tmissing.md\t1\n"
    )
    assert main(["eval", str(vault), "--judgments", str(judgments), "--modes", "fts"]) == 0
    out = capsys.readouterr()
    assert "2 queries, 2 notes" in out.out
    assert "'missing.md'" in out.err  # a judged note the vault does not have is reported
    # recall@1 of "boil water": pasta.md found, missing.md cannot be -> 0.5; deploy: 1.0.
    assert (
        main(["eval", str(vault), "--judgments", str(judgments), "--modes", "fts", "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["metrics"]["fts"]["recall@1"] == pytest.approx(0.75)


def test_cli_eval_errors(
    beir: Path, vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["eval", str(vault)]) == 2
    assert "--judgments" in capsys.readouterr().err
    assert main(["eval", str(beir), "--split", "dev", "--modes", "fts"]) == 2
    assert "no split 'dev' (available splits: test)" in capsys.readouterr().err
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\n")
    assert main(["eval", str(beir), "--modes", "fts"]) == 2
    err = capsys.readouterr().err
    assert "test.tsv:2: expected 3 tab-separated columns" in err and "Traceback" not in err
    bad = tmp_path / "j.tsv"
    bad.write_text("deploy\tdeploy.md\t7\n")
    assert main(["eval", str(vault), "--judgments", str(bad), "--modes", "fts"]) == 2
    assert "j.tsv:1: grade 7 is out of range 0-3" in capsys.readouterr().err
    assert main(["eval", str(vault), "--judgments", str(bad), "--k", "0", "--modes", "fts"]) == 2
    assert "k must be positive" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", str(beir), "--modes", "fts,vectors"])
    assert exit_info.value.code == 2


def test_cli_eval_vault_uses_its_own_judgments_file(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from explorer.evaluate.judgments import JudgmentFile, judgments_path

    (vault / "deploy.md").write_text("# Deploy\n\nrollback the deploy\n")
    (vault / "pasta.md").write_text("# Pasta\n\nboil water\n")
    assert main(["eval", str(vault), "--modes", "fts"]) == 2
    assert str(judgments_path(vault)) in capsys.readouterr().err  # it names where grades go
    grades = JudgmentFile(judgments_path(vault))
    grades.set_grade("deploy rollback", "deploy.md", 3)
    grades.set_grade("boil water", "pasta.md", 2)
    assert main(["eval", str(vault), "--modes", "fts", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["evaluatedQueries"] == 2 and data["metrics"]["fts"]["recall@1"] == 1.0
