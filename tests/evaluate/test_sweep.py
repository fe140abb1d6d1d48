"""``eval --sweep``: a grid of fusion settings scored from one run's cached lists."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.evaluate.datasets import load_beir
from explorer.evaluate.runner import evaluate_beir
from explorer.evaluate.settings import EVAL_OPTIONS, EvalSettings
from explorer.evaluate.sweep import (
    DEFAULT_GRID,
    describe,
    format_sweep,
    grid,
    parse_grid,
    sweep,
)
from explorer.search.query.options import SearchOptions, parse
from explorer.search.query.query import QueryError
from tests.evaluate.helpers import write_beir


def test_a_grid_is_every_combination_and_convex_ignores_k() -> None:
    axes = parse_grid("fusion=rrf,convex; k=30,60; weight=0:1:0.5")
    assert [a.name for a in axes] == ["fusion", "k", "weight"]
    assert axes[2].values == (0.0, 0.5, 1.0)
    points = grid(SearchOptions(), axes)
    # rrf: 2 k x 3 weights; convex: k is the base's, so 3 weights.
    assert len(points) == 6 + 3
    assert {p.k for p in points if p.fusion == "convex"} == {SearchOptions().k}
    assert all(p.w_fts + p.w_vec == pytest.approx(1) for p in points)
    assert len(grid(SearchOptions(), parse_grid(DEFAULT_GRID))) == 4 * 11 + 11


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("k", "name=values"),
        ("colour=red", "unknown sweep axis 'colour'"),
        ("mode=fts", "unknown sweep axis 'mode'"),
        ("k=0", "k must be positive"),
        ("weight=0:1:0", "step > 0"),
        ("weight=0:2:1", "between 0 and 1"),
        ("k=a", "k must be a number"),
        ("k=1:100000:1", "at most"),
        ("weight=0.5;w_fts=0.3", "not both"),
        ("k=1;k=2", "twice"),
    ],
)
def test_a_bad_grid_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(QueryError, match=says):
        grid(SearchOptions(), parse_grid(text))


def test_describe_reads_back_as_the_same_settings() -> None:
    options = SearchOptions(fusion="convex", w_fts=0.25, w_vec=0.75, min_rel=0.5, depth=80)
    assert parse(describe(options)) == options


def test_each_point_scores_what_a_full_evaluation_at_it_scores(
    tmp_path: Path, data_dir: Path
) -> None:
    """A sweep re-fuses cached lists; every point must equal a fresh evaluation of the
    same settings (floors included: the lists were fetched without one)."""
    folder = write_beir(tmp_path / "tiny")
    dataset = load_beir(folder, "test")
    provider = EmbedderProvider.of(FakeEmbedder())
    base = replace(EVAL_OPTIONS, depth=5)
    report = evaluate_beir(dataset, folder, "test", EvalSettings(base), provider, str(data_dir))
    axes = parse_grid("fusion=rrf,convex;k=1,60;weight=0.2,0.8;min_sim=0,0.5")
    result = sweep(report.run.candidates, report.qrels, base, axes, to_doc=report.to_doc)
    assert len(result.points) == 2 * 2 * 2 + 2 * 2
    assert result.queries == 4  # q5 has no judgments
    for point in result.points:
        fresh = evaluate_beir(
            dataset,
            folder,
            "test",
            EvalSettings(point.options, ("hybrid",)),
            provider,
            str(data_dir),
        )
        assert point.metrics == fresh.metrics["hybrid"], describe(point.options)
    assert result.singles["fts"] == report.metrics["fts"]
    assert result.singles["semantic"] == report.metrics["semantic"]
    assert result.best.metrics["ndcg@10"] == max(p.metrics["ndcg@10"] for p in result.points)
    series = result.series()
    assert any(label.startswith("RRF k=1 ") for label in series)  # floors vary: named
    text = format_sweep(result)
    assert text.splitlines()[0].startswith("sweep: 12 settings over 4 queries")
    assert "best: fusion=" in text


def test_cli_eval_sweep_prints_the_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_model: FakeEmbedder
) -> None:
    folder = write_beir(tmp_path / "tiny")
    given = ["--depth", "5", "--fusion", "rrf", "--w-fts", "0.7", "--w-vec", "0.3"]
    assert main(["eval", str(folder), *given, "--sweep", "weight=0:1:0.25"]) == 0
    out = capsys.readouterr().out
    assert "sweep: 5 settings over 4 queries" in out
    assert "← the settings given" not in out  # 0.7/0.3 is not on this grid
    assert main(["eval", str(folder), *given, "--sweep", "weight=0.7,0.2"]) == 0
    out = capsys.readouterr().out
    assert out.count("← the settings given") == 1 and "w_fts=0.7,w_vec=0.3" in out
    assert main(["eval", str(folder), "--sweep", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["sweep"]["points"]) == 55
    assert data["sweep"]["best"]["metrics"]["ndcg@10"] == max(
        p["metrics"]["ndcg@10"] for p in data["sweep"]["points"]
    )
    assert set(data["sweep"]["singles"]) == {"fts", "semantic"}


def test_cli_eval_sweep_refuses_a_bad_grid_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_beir(tmp_path / "tiny")
    assert main(["eval", str(folder), "--modes", "fts", "--sweep", "k=-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "k must be positive" in err[0]
