"""``bench``: a smoke run on a small generated vault (no model), the budget gate, freshness."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.precision import Precision
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.evaluate import bench as bench_module
from explorer.evaluate.bench import (
    BenchError,
    BenchSettings,
    PrecomputedEmbedder,
    RandomEmbedder,
    format_bench,
    run_bench,
)
from explorer.evaluate.stats import percentiles

SMALL = ["bench", "--notes", "60", "--queries", "5", "--no-embed"]


def test_percentiles() -> None:
    p = percentiles([float(v) for v in range(1, 101)])
    # numpy's linear interpolation: p50 of 1..100 is 50.5, p95 is 95.05.
    assert (p["p50"], p["p95"], p["max"], p["n"]) == (50.5, 95.05, 100.0, 100)
    assert percentiles([])["n"] == 0


def test_random_embedder_gives_unit_vectors() -> None:
    matrix = RandomEmbedder("m", 16, seed=1).embed(["a", "b", "c"])
    assert matrix.shape == (3, 16) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0)


def test_precomputed_query_vectors_are_the_models_and_cost_no_call() -> None:
    model = FakeEmbedder(dimension=32)
    ready = PrecomputedEmbedder(model, ["alpha beta", "gamma"])
    assert (ready.name, ready.dimension) == (model.name, model.dimension)
    calls = model.calls
    got = ready.embed_query(["gamma", "alpha beta", "gamma"])
    assert model.calls == calls  # every vector was there
    assert np.array_equal(got, model.embed(["gamma", "alpha beta", "gamma"]))
    # A text not given beforehand is embedded as it comes.
    assert np.array_equal(ready.embed_query(["delta"]), model.embed(["delta"]))


@pytest.mark.slow
def test_bench_smoke(tmp_path: Path) -> None:
    result = run_bench(BenchSettings(notes=60, queries=5, embed=False), str(tmp_path / "data"))
    ix = result["indexing"]
    assert ix["notes"] == 60 and ix["chunks"] >= 60
    assert ix["lexicalNotesPerSecond"] > 0 and ix["randomVectors"] == ix["chunks"]
    assert "random unit vectors" in ix["note"]
    for mode in ("fts", "semantic", "semanticEmbed", "hybrid", "hybridTotal"):
        stats = result["latencyMs"][mode]
        assert stats["n"] == 5 and 0 <= stats["p50"] <= stats["p95"] <= stats["max"]
    assert result["refusionMs"]["n"] == 5 * 4
    for mode in ("fts", "hybrid"):  # each filter timed over the same queries, with its verdict
        cost = result["filterCostMs"][mode]
        assert cost["unfiltered"]["n"] == cost["property"]["n"] == cost["date"]["n"] == 5
        assert isinstance(cost["date"]["withinBudget"], bool)
    assert "filters, ms over the same query unfiltered (budget 5 at p95)" in format_bench(result)
    assert "+-" not in format_bench(result)  # a filter that costs less is "-1.65", not "+-1.65"
    questions = result["questionLatencyMs"]
    assert questions["short"]["n"] == questions["long"]["n"] == 5
    assert 12 <= questions["longWords"][0] <= questions["longWords"][1] <= 16
    assert "questions (" in format_bench(result)
    topk = result["vectorTopK"]
    assert topk["chunks"] == ix["chunks"] and topk["dimension"] == 384
    assert topk["ratioToBareNumpy"] > 0 and topk["blobReadOverEngine"] > 0
    assert result["indexBytes"] > 0 and result["peakRssBytes"] > 0
    assert set(result["peakRssByPhase"]) == {"start", "lexicalIndex", "embedding", "queries"}
    assert "hybrid (excl. query embedding)" in format_bench(result)
    # The scratch vault and index are gone.
    assert not list((tmp_path / "data" / "bench").iterdir())


@pytest.mark.slow
def test_embed_sample_fills_the_rest_through_the_same_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeEmbedder(dimension=32)
    provider = EmbedderProvider.of(fake)
    monkeypatch.setattr("explorer.embed.provider.shared_provider", lambda choice: provider)
    result = run_bench(BenchSettings(notes=40, queries=3, embed_sample=10), str(tmp_path))
    ix = result["indexing"]
    assert ix["model"] == "fake-bow-64"
    assert 10 <= ix["embeddedChunks"] < ix["chunks"]
    assert ix["embeddedChunks"] + ix["randomVectors"] == ix["chunks"]
    assert "--embed-sample 10" in ix["note"]
    assert result["vectorTopK"]["chunks"] == ix["chunks"]  # every chunk has a vector of the model


class Bf16Fake(FakeEmbedder):
    """A fake that says, as the real model does, which precision it ran in."""

    precision = Precision("bf16", "bf16 measured 1.9x the speed of fp32", 1.9)


def test_the_precision_embedded_in_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = EmbedderProvider.of(Bf16Fake(dimension=32))
    monkeypatch.setattr("explorer.embed.provider.shared_provider", lambda choice: provider)
    result = run_bench(BenchSettings(notes=20, queries=3), str(tmp_path))
    ix = result["indexing"]
    assert ix["precision"] == "bf16"
    assert ix["precisionReason"] == "bf16 measured 1.9x the speed of fp32"
    assert "in bf16: bf16 measured 1.9x the speed of fp32" in format_bench(result)
    assert ix["embedCpuSeconds"] > 0 and ix["embedChunksPerCpuSecond"] > 0
    assert "chunks per CPU second" in format_bench(result)


@pytest.mark.slow
def test_cli_bench_json_and_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SMALL, "--json", "--budget-p95-ms", "100000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["notes"] == 60 and "latencyMs" in data
    assert main([*SMALL, "--budget-p95-ms", "0.000001"]) == 3
    out = capsys.readouterr()
    assert "exceeds the budget" in out.err and "latency (ms)" in out.out


def test_cli_bench_on_a_given_vault(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(12):
        (vault / f"note {i}.md").write_text(f"# Note {i}\n\nalpha beta gamma {i} delta\n")
    assert main(["bench", str(vault), "--queries", "3", "--no-embed", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["vault"] == str(vault) and data["indexing"]["notes"] == 12
    assert "questionLatencyMs" not in data  # notes too short for 12-word questions
    assert main(["bench", str(vault / "missing"), "--no-embed"]) == 2


def test_freshness_result_is_reported(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = []

    def run_freshness(
        vault: Path, data_dir: Path, samples: int, provider: object, start_from: Path
    ) -> dict:
        calls.append((vault, samples, start_from.is_file()))
        return {"p50Ms": 12.5, "samples": samples}

    monkeypatch.setattr(bench_module, "run_freshness", run_freshness)
    assert main([*SMALL, "--freshness", "--freshness-samples", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["freshness"] == {"p50Ms": 12.5, "samples": 3}
    assert calls and calls[0][1:] == (3, True)  # started from the index the bench measured


def test_the_thread_sweep_needs_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*SMALL, "--embed-threads-sweep"]) == 2
    assert "--embed-threads-sweep times the model" in capsys.readouterr().err
    # A model whose threads torch does not set is said, not timed at one setting for all.
    provider = EmbedderProvider.of(FakeEmbedder(dimension=32))
    monkeypatch.setattr("explorer.embed.provider.shared_provider", lambda choice: provider)
    with pytest.raises(BenchError, match="takes its threads when it loads"):
        run_bench(BenchSettings(notes=20, queries=3, embed_threads_sweep=True), str(tmp_path))
