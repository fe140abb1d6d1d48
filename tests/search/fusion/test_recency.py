"""The recency prior: off by default (and then nothing changes), and when on a third, named
contribution that moves a newer note up, reported in the hits, ``--json``, ``explain`` and the
preview's explain block."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import IndexDB
from explorer.search.explain.explain import explain
from explorer.search.explain.scoring import explain_context
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions, ignored
from tests.conftest import build_index
from tests.preview.helpers import block

Write = Callable[[str, str | bytes], Path]

DAY = 86400
TEXT = "# Compost\n\nturn the compost heap every week, keep the compost damp\n"
#: Two notes of the same words: the older one first by path when nothing else tells them apart.
NOTES = {"a-old.md": 400, "b-new.md": 1}  # path: days since it was modified
METHODS = ("rrf", "convex", "calibrated")


@pytest.fixture
def searcher(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> Searcher:
    now = time.time()
    for rel, days in NOTES.items():
        path = write(rel, TEXT)
        os.utime(path, (now - days * DAY, now - days * DAY))
    write("other.md", "# Garden\n\nthe compost bin and the garden beds\n")
    return build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))


def _paths(searcher: Searcher, options: SearchOptions) -> list[str]:
    return [h.path for h in searcher.search("compost heap", options).hits]


@pytest.mark.parametrize("fusion", METHODS)
@pytest.mark.parametrize("mode", ("fts", "hybrid"))
def test_off_by_default_and_then_nothing_changes(
    searcher: Searcher, fusion: str, mode: str
) -> None:
    assert SearchOptions().recency == 0
    plain = searcher.search("compost heap", SearchOptions(mode=mode, fusion=fusion))
    off = searcher.search(
        "compost heap", SearchOptions(mode=mode, fusion=fusion, recency=0.0, half_life=1.0)
    )
    assert [(h.path, h.fused_score, h.contributions) for h in plain.hits] == [
        (h.path, h.fused_score, h.contributions) for h in off.hits
    ]
    assert [h.path for h in plain.hits][:2] == ["a-old.md", "b-new.md"]
    # "Compost" is a word from "compost heap": the title's near match adds its own share.
    lists = {"fts", "vector", "title"}
    assert all(set(h.contributions) <= lists and h.recency is None for h in plain.hits)
    assert "recency" not in plain.to_json()["fusion"]


@pytest.mark.parametrize("fusion", METHODS)
@pytest.mark.parametrize("mode", ("fts", "semantic", "hybrid"))
def test_on_a_newer_note_moves_up_by_a_named_contribution(
    searcher: Searcher, fusion: str, mode: str
) -> None:
    options = SearchOptions(mode=mode, fusion=fusion, recency=0.2, min_sim=-1.0)
    response = searcher.search("compost heap", options)
    hits = {h.path: h for h in response.hits}
    order = [h.path for h in response.hits]
    assert order.index("b-new.md") == 0 and order.index("b-new.md") < order.index("a-old.md")
    new, old = hits["b-new.md"], hits["a-old.md"]
    assert new.recency == pytest.approx(0.5 ** (1 / 30), rel=1e-3)
    assert old.recency == pytest.approx(0.5 ** (400 / 30), rel=1e-2)
    assert new.contributions["recency"] > old.contributions["recency"] > 0
    for hit in response.hits:
        assert sum(hit.contributions.values()) == pytest.approx(hit.fused_score)
    if fusion != "rrf" or mode == "fts":  # (RRF's contributions differ by the tie's ranks)
        # Only the prior tells them apart: the lists' contributions are the same.
        for name in ("fts", "vector"):
            assert new.contributions[name] == pytest.approx(old.contributions[name])
    assert response.to_json()["fusion"]["recency"] == {"weight": 0.2, "halfLifeDays": 30.0}


def test_the_prior_reorders_the_cached_lists_without_a_new_search(searcher: Searcher) -> None:
    candidates = searcher.candidates("compost heap", SearchOptions())
    before = [h.path for h in fuse(candidates, SearchOptions()).hits]
    after = [h.path for h in fuse(candidates, SearchOptions(recency=0.3)).hits]
    assert before[:2] == ["a-old.md", "b-new.md"] and after[:2] == ["b-new.md", "a-old.md"]
    assert set(before) == set(after)  # it finds no note of its own


def test_the_half_life_is_ignored_while_the_prior_is_off() -> None:
    assert ignored(SearchOptions(half_life=5.0), ["half_life"]) == [
        "--half-life is ignored: the recency prior is off (--recency 0)"
    ]
    assert ignored(SearchOptions(recency=0.1, half_life=5.0), ["half_life"]) == []


def test_json_on_the_command_line_carries_the_recency_contribution(
    searcher: Searcher, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["search", str(vault), "compost heap", "--mode", "fts", "--json", "--no-sync"]
    assert main([*args, "--recency", "0.2", "--half-life", "10"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = out["hits"][0]
    assert first["path"] == "b-new.md"
    assert set(first["contributions"]) == {"fts", "vector", "title", "recency"}
    assert first["contributions"]["recency"] > 0
    assert sum(first["contributions"].values()) == pytest.approx(first["fusedScore"])
    assert out["fusion"]["recency"] == {"weight": 0.2, "halfLifeDays": 10}
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert set(plain["hits"][0]["contributions"]) == {"fts", "vector", "title"}
    table = ["search", str(vault), "compost heap", "--mode", "fts", "--no-sync"]
    assert main([*table, "--recency", "0.2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if "fused" in line)
    assert header.split()[:6] == ["#", "fused", "fts", "vector", "title", "recency"]
    row = next(line for line in lines if "b-new.md" in line).split()
    assert float(row[1]) == pytest.approx(sum(map(float, row[2:6])), abs=2e-5)
    assert main(table) == 0
    assert "recency" not in capsys.readouterr().out


def test_explain_names_the_prior_and_its_share(searcher: Searcher) -> None:
    options = SearchOptions(mode="fts", recency=0.2)
    text = explain(searcher, "compost heap", "b-new.md", options).format()
    assert "recency prior (weight 0.2, half-life 30 days): recency 0.977" in text
    off = explain(searcher, "compost heap", "b-new.md", SearchOptions(mode="fts")).format()
    assert "recency" not in off


@pytest.mark.parametrize("fusion", METHODS)
def test_the_explain_block_shows_the_recency_row_and_adds_it_up(
    searcher: Searcher, fusion: str
) -> None:
    options = SearchOptions(fusion=fusion, recency=0.2)
    candidates = searcher.candidates("compost heap", options)
    response = fuse(candidates, options)
    hit = response.hits[0]
    said = block(hit, explain_context(hit, 1, response, candidates))
    assert "Recency" in said and f"{hit.contributions['recency']:.5f}" in said
    assert f"{hit.fused_score:.5f}" in said
    plain = fuse(candidates, SearchOptions(fusion=fusion))
    first = plain.hits[0]
    assert "Recency" not in block(first, explain_context(first, 1, plain, candidates))
