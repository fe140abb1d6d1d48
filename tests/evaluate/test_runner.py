"""``eval``: a tiny BEIR folder and a vault with judgments, indexed with the fake embedder."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.evaluate.datasets import Doc, load_beir
from explorer.evaluate.runner import (
    EVAL_OPTIONS,
    EvalSettings,
    collect_candidates,
    comparison,
    evaluate_beir,
    evaluate_vault,
    format_report,
    note_names,
    note_text,
    open_beir_index,
    per_query_rows,
    write_per_query,
)
from explorer.search.cached import with_floor
from explorer.search.hybrid import FUSION_METHODS, Searcher, SearchOptions, fuse
from tests.evaluate.helpers import CORPUS, QUERIES, write_beir


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    return write_beir(tmp_path / "tiny")


def test_note_text_and_names() -> None:
    assert note_text(Doc("Cats  and\ndogs", "Body.")) == "# Cats and dogs\n\nBody.\n"
    assert note_text(Doc("", "Only text.")) == "Only text.\n"
    names = note_names(["4983", "d6", "D6", "a/b", ".hidden", "x y"])
    assert names["4983"] == "4983.md" and names["d6"] == "d6.md"
    assert names["D6"] == "D6~2.md"  # same file as d6 on a case-insensitive file system
    assert names["a/b"] == "a%2Fb.md"
    assert names[".hidden"] == "%2Ehidden.md"  # a dot file would be ignored as hidden
    assert names["x y"] == "x%20y.md"
    assert len({n.lower() for n in names.values()}) == len(names)


def test_beir_eval_reports_every_mode(beir: Path, data_dir: Path) -> None:
    dataset = load_beir(beir, "test")
    fake = FakeEmbedder()
    report = evaluate_beir(
        dataset, beir, "test", EvalSettings(), EmbedderProvider.of(fake), str(data_dir)
    )
    assert set(report.metrics) == {"fts", "semantic", "hybrid"}
    for values in report.metrics.values():
        assert set(values) == {
            "ndcg@10",
            "mrr@10",
            "recall@1",
            "recall@3",
            "recall@10",
            "recall@100",
        }
        assert all(0.0 <= v <= 1.0 for v in values.values())
    # Every judged document shares words with its query: lexical search finds all of them.
    assert report.metrics["fts"]["recall@10"] == 1.0
    assert report.metrics["fts"]["mrr@10"] == 1.0
    assert report.evaluated == 4 and report.documents == len(CORPUS)
    assert report.index.notes == len(CORPUS) and report.index.vectors == report.index.chunks
    out = report.to_json()
    assert out["metrics"]["fts"]["recall@10"] == 1.0
    assert out["index"]["cached"] is False
    assert set(out["hybridVersus"]) == {"fts", "semantic"}
    text = format_report(report)
    assert "nDCG@10" in text and "hybrid" in text and "vs semantic" in text


def test_corpus_index_is_cached(beir: Path, data_dir: Path) -> None:
    dataset = load_beir(beir, "test")
    fake = FakeEmbedder()
    first = evaluate_beir(
        dataset, beir, "test", EvalSettings(), EmbedderProvider.of(fake), str(data_dir)
    )
    embedded = fake.calls
    second = evaluate_beir(
        dataset, beir, "test", EvalSettings(), EmbedderProvider.of(fake), str(data_dir)
    )
    assert second.index.to_json()["cached"] is True
    assert second.index.database == first.index.database
    assert fake.calls - embedded == second.evaluated  # only the queries were embedded again
    assert second.metrics == first.metrics
    # Another model gets its own index; the notes folder is shared.
    other = evaluate_beir(
        dataset,
        beir,
        "test",
        EvalSettings(),
        EmbedderProvider.of(FakeEmbedder(name="fake-other")),
        str(data_dir),
    )
    assert other.index.database != first.index.database
    assert other.index.written_notes == 0
    # A lexical-only run needs no model and has its own (vector-free) index.
    lexical = evaluate_beir(
        dataset, beir, "test", EvalSettings(modes=("fts",)), None, str(data_dir)
    )
    assert set(lexical.metrics) == {"fts"} and lexical.model is None
    assert lexical.metrics["fts"] == first.metrics["fts"]


@pytest.mark.parametrize("method", FUSION_METHODS)
def test_one_candidate_run_equals_three_searches(beir: Path, data_dir: Path, method: str) -> None:
    """The runner derives all three modes from one hybrid candidate run; that must be exactly
    what three separate searches return."""
    dataset = load_beir(beir, "test")
    provider = EmbedderProvider.of(FakeEmbedder())
    db, _, _ = open_beir_index(dataset, beir, str(data_dir), provider)
    try:
        searcher = Searcher(db, provider)
        settings = EvalSettings(replace(EVAL_OPTIONS, fusion=method, depth=5))
        run = collect_candidates(searcher, {q["_id"]: q["text"] for q in QUERIES}, settings)
        assert set(run.candidates) == {q["_id"] for q in QUERIES}
        for query in QUERIES:
            found = run.candidates[query["_id"]]
            for mode in ("fts", "semantic", "hybrid"):
                options = settings.options(mode)
                derived = fuse(with_floor(found, options), options).to_json()
                direct = searcher.search(query["text"], options).to_json()
                if mode == "fts":  # a lexical search reports that it did not ask for vectors
                    assert direct["semantic"]["reason"] == "lexical mode"
                    derived.pop("semantic"), direct.pop("semantic")
                assert derived == direct, (query["text"], mode)
    finally:
        db.close()


def test_per_query_rows_and_helped_hurt() -> None:
    qrels = {"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 1}, "d": {"w": 0}}
    ranked = {
        "fts": {"a": ["x"], "b": ["p", "q", "y"], "c": []},
        "semantic": {"a": ["p", "x"], "b": ["y"], "c": ["z"]},
        "hybrid": {"a": ["x"], "b": ["p", "y"], "c": ["p", "z"]},
    }
    rows = per_query_rows(ranked, qrels, {"a": "query a"})
    assert [r["query_id"] for r in rows] == ["a", "b", "c"]  # d has no relevant document
    a, b, c = rows
    assert a["query"] == "query a" and b["query"] == "b"
    assert (a["rank_fts"], a["rank_semantic"], a["rank_hybrid"]) == (1, 2, 1)
    assert (a["vs_fts"], a["vs_semantic"]) == ("same", "helped")
    assert (b["rank_fts"], b["rank_semantic"], b["rank_hybrid"]) == (3, 1, 2)
    assert (b["vs_fts"], b["vs_semantic"]) == ("helped", "hurt")
    assert c["rank_fts"] is None and (c["vs_fts"], c["vs_semantic"]) == ("helped", "hurt")
    # nDCG@10 of one relevant document at rank r is 1 / log2(r + 1): rank 2 -> 0.63093.
    assert b["ndcg_hybrid"] == pytest.approx(0.63093, abs=1e-5)
    tally = comparison(rows)
    assert tally["fts"]["firstRelevantRank"] == {"helped": 2, "hurt": 0, "same": 1}
    assert tally["semantic"]["firstRelevantRank"] == {"helped": 1, "hurt": 2, "same": 0}
    assert tally["semantic"]["ndcg@10"] == {"helped": 1, "hurt": 2, "same": 0}


def test_per_query_files(tmp_path: Path) -> None:
    rows = [
        {"query_id": "q1", "query": "tab\there", "rank_fts": 1, "rank_hybrid": None},
        {"query_id": "q2", "query": "plain", "rank_fts": None, "rank_hybrid": 3},
    ]
    write_per_query(tmp_path / "out.tsv", rows)
    lines = (tmp_path / "out.tsv").read_text("utf-8").splitlines()
    assert lines == [
        "query_id\tquery\trank_fts\trank_hybrid",
        "q1\ttab here\t1\t",
        "q2\tplain\t\t3",
    ]
    write_per_query(tmp_path / "out.json", rows)
    assert json.loads((tmp_path / "out.json").read_text("utf-8")) == rows


def test_vault_with_judgments(vault: Path, data_dir: Path) -> None:
    (vault / "ops").mkdir()
    (vault / "ops" / "deploy.md").write_text("# Deploy\n\nrollback the deploy with care\n")
    (vault / "pasta.md").write_text("# Pasta\n\nboil water, add salt\n")
    (vault / "api.md").write_text("# API\n\nthe deploy pipeline calls the api\n")
    judgments = {
        "deploy rollback": {"ops/deploy.md": 3, "api.md": 1},
        "boil pasta": {"pasta.md": 2},
    }
    report = evaluate_vault(
        vault, judgments, EvalSettings(), EmbedderProvider.of(FakeEmbedder()), str(data_dir)
    )
    assert report.kind == "judgments" and report.evaluated == 2
    assert report.metrics["fts"]["ndcg@10"] == pytest.approx(1.0)
    assert report.rows[0]["query"] == "deploy rollback"


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


def test_overlong_query_is_scored_zero_not_fatal(tmp_path: Path, data_dir: Path) -> None:
    folder = write_beir(tmp_path / "long")
    queries = [*QUERIES[:4], {"_id": "q5", "text": "purr " * 300}]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), "utf-8")
    with (folder / "qrels" / "test.tsv").open("a") as handle:
        handle.write("q5\td1\t1\n")
    report = evaluate_beir(
        load_beir(folder, "test"), folder, "test", EvalSettings(modes=("fts",)), None, str(data_dir)
    )
    assert set(report.run.rejected) == {"q5"}
    assert report.evaluated == 5
    assert report.metrics["fts"]["recall@100"] == pytest.approx(4 / 5)


def test_search_options_of_settings() -> None:
    search = SearchOptions(k=10, w_fts=0.4, w_vec=0.6, depth=80, fusion="convex", limit=7)
    assert EvalSettings(search).options("fts") == replace(search, mode="fts", limit=100)
    assert EvalSettings().options("hybrid") == SearchOptions(depth=100, limit=100)
    assert EvalSettings(modes=("fts",)).candidate_mode == "fts"
    assert EvalSettings(modes=("semantic",)).candidate_mode == "semantic"
    assert EvalSettings(modes=("fts", "semantic")).candidate_mode == "hybrid"


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
