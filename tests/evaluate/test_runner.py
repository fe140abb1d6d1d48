"""``eval``: a tiny BEIR folder and a vault with judgments, indexed with the fake embedder."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.corpus import open_beir_index
from explorer.evaluate.datasets import load_beir
from explorer.evaluate.report import format_report
from explorer.evaluate.runner import collect_candidates, evaluate_beir, evaluate_vault
from explorer.evaluate.settings import EVAL_OPTIONS, EvalSettings
from explorer.search.fusion.cached import with_floor
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import FUSION_METHODS
from tests.evaluate.helpers import CORPUS, QUERIES, write_beir


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
