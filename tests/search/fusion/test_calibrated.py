"""Scores you can trust, proved on the bundled sample vault with the real model: gibberish and
off-topic questions have no close match, exact pastes stay first, a paraphrase that stands far
above the vault's bulk keeps its place and its close match."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.explain.explain import explain
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests import sample_vault_facts as facts
from tests.conftest import build_index

pytestmark = pytest.mark.model

CALIBRATED = SearchOptions(fusion="calibrated", w_fts=1.0, w_vec=1.0, min_rel=0.0)


@pytest.mark.parametrize(
    "query",
    [
        "asdfgh qwerty",
        "zxcvbn poiuyt lkjhg",
        "zebra",
        "how tall is mount kilimanjaro",
        "who painted the girl with a pearl earring",
        "symptoms of vitamin d deficiency",
    ],
)
def test_gibberish_and_off_topic_queries_have_no_close_match(
    sample_searcher: Searcher, query: str
) -> None:
    for fusion in ("calibrated", "convex", "rrf"):
        response = sample_searcher.search(query, SearchOptions(fusion=fusion))
        assert response.close_match is False, (fusion, query)
        assert response.to_json()["closeMatch"] is False
        assert all(h.fused_score > 0 for h in response.hits)
    top = sample_searcher.search(query, CALIBRATED).hits
    assert not top or top[0].fused_score < 0.5  # weak stays weak, in absolute terms


@pytest.mark.parametrize(
    ("query", "target"),
    [
        (facts.ERROR_PASTE_QUERY, facts.ERROR_PASTE_TARGET),
        (facts.IDENTIFIER_QUERY, facts.IDENTIFIER_TARGET),
        (facts.TAR_QUERY, facts.TAR_TARGET),
    ],
)
def test_exact_pastes_and_identifiers_stay_first_and_close(
    sample_searcher: Searcher, query: str, target: str
) -> None:
    for mode in ("fts", "hybrid"):
        response = sample_searcher.search(query, SearchOptions(mode=mode, fusion="calibrated"))
        assert response.hits[0].path == target, mode
        assert response.close_match is True
        assert response.hits[0].evidence["fts"] == pytest.approx(1.0, abs=0.31)


@pytest.mark.parametrize(
    ("query", "target"),
    [
        (facts.PARAPHRASE_QUERY_2, facts.PARAPHRASE_TARGET_2),
        ("Portugal city break in winter", "travel/lisbon-weekend.md"),
    ],
)
def test_a_paraphrase_far_above_the_bulk_keeps_rank_1_and_a_close_match(
    sample_searcher: Searcher, query: str, target: str
) -> None:
    response = sample_searcher.search(query, CALIBRATED)
    top = response.hits[0]
    assert top.path == target and top.source == "vector"
    assert top.vector_score is not None and top.vector_score < 0.7  # a modest cosine
    assert top.vector_sigmas is not None and top.vector_sigmas > 3  # far above the bulk
    assert response.close_match is True


def test_evidence_and_contributions_in_json(sample_searcher: Searcher) -> None:
    response = sample_searcher.search("how do I roll back a bad deploy", CALIBRATED)
    out = response.to_json()
    assert out["fusion"]["method"] == "calibrated"
    spread = out["vectorSpread"]
    assert spread["notes"] == facts.NOTE_COUNT and 0 < spread["std"] < 1
    for hit in out["hits"]:
        parts = hit["contributions"]
        assert sum(parts.values()) == pytest.approx(hit["fusedScore"], abs=1e-12)
        assert 0 < hit["fusedScore"] <= 1
        a, b = hit["evidence"].get("fts", 0.0), hit["evidence"].get("vector", 0.0)
        # noisy-OR of the evidence (weights 1), split by Shapley shares
        assert hit["fusedScore"] == pytest.approx(1 - (1 - a) * (1 - b), abs=1e-4)
        assert parts["fts"] == pytest.approx(a - a * b / 2, abs=1e-4)
        if hit["vectorRank"] is not None:
            assert hit["vectorSigmas"] == pytest.approx(
                (hit["vectorScore"] - spread["mean"]) / spread["std"], abs=1e-2
            )


def test_explain_states_the_evidence_with_its_numbers(sample_searcher: Searcher) -> None:
    e = explain(sample_searcher, facts.PARAPHRASE_QUERY_2, facts.PARAPHRASE_TARGET_2, CALIBRATED)
    ev = e.evidence
    assert ev is not None and ev.lexical is None and ev.vector is not None
    assert ev.sigmas is not None and ev.mean is not None and ev.sigmas > 3
    assert ev.close_match and ev.calibrated == pytest.approx(e.fused.score, abs=1e-9)
    line = next(x for x in e.lines() if x.startswith("evidence:"))
    assert f"{ev.sigmas:.1f} σ above this query's vault mean {ev.mean:.3f}" in line
    assert e.to_json()["evidence"]["close_match"] is True
    gibberish = explain(sample_searcher, "asdfgh qwerty", facts.PARAPHRASE_TARGET_2, CALIBRATED)
    assert gibberish.evidence is not None and not gibberish.evidence.close_match
    assert any("no close match" in x for x in gibberish.lines())


def test_identical_notes_get_identical_vector_evidence(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """Five notes whose vectors are the same: the rounding of their cosines decides neither their
    evidence nor a close match, and explain says the cosines do not spread."""
    for i in range(5):
        (vault / f"copy{i}.md").write_text("# Copy\n\nThe harbour ferry timetable for winter.\n")
    searcher = build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))
    options = SearchOptions(mode="semantic", min_rel=0.0)
    response = searcher.search("ferry timetable", options)
    assert len(response.hits) == 5
    assert response.spread is not None and response.spread.flat
    assert len({hit.vector_sigmas for hit in response.hits}) == 1
    assert len({hit.contributions["vector"] for hit in response.hits}) == 1
    lines = explain(searcher, "ferry timetable", "copy3.md", options).lines()
    assert any("no spread" in line for line in lines), lines
