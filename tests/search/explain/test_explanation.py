"""One Explanation, three renderings: the command line's text, the window's HTML and the JSON
state the same numbers (each read back from what it prints)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.preview.explain import explain_html
from explorer.preview.style import Colours
from explorer.search.explain.explain import explain
from explorer.search.explain.explanation import Explanation, hit_explanation
from explorer.search.explain.scoring import explain_context
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index

QUERY = "deploy rollback server"


#: Notes of other words, so that the query's cosines spread and the notes of its words stand
#: out (the fake model embeds a bag of words); a third of them hold "deploy" once.
OTHER = ["banana bread oven", "garden tomato soil", "violin concert hall", "mountain trail snow"]


@pytest.fixture
def searcher(
    write: Callable[[str, str | bytes], Path],
    vault: Path,
    open_db: Callable[[Path], IndexDB],
    fake: FakeEmbedder,
) -> Searcher:
    for i in range(3):
        body = f"deploy {'rollback ' * (i + 1)}server\n\nThe second part: server logs."
        write(f"d{i}.md", f"# Deploy {i}\n\n{body}\n")
    for i, words in enumerate(OTHER * 2):
        more = f"\n\n{words} again, and deploy once." if i % 3 == 0 else ""
        write(f"o{i}.md", f"# Other {i}\n\n{words}{more}\n")
    return build_index(open_db(vault), EmbedderProvider.of(fake))


def _one(pattern: str, text: str) -> re.Match[str]:
    found = re.search(pattern, text)
    assert found is not None, (pattern, text)
    return found


def _read_text(e: Explanation) -> dict[str, Any]:
    text = e.format()
    fused = _one(r"fused \(.*\): rank (\d+) of (\d+), score ([0-9.]+)", text)
    lexical = _one(r"lexical list: rank (\d+) of", text)
    vector = _one(r"vector list: best chunk cosine ([0-9.]+), rank (\d+);", text)
    evidence = _one(r"evidence: lexical ([0-9.]+).*; vector ([0-9.]+)", text)
    passage = _one(r"chunks: the best is chunk \d+ of \d+ \(characters (\d+)–(\d+)\)", text)
    return {
        "rank": int(fused[1]),
        "total": int(fused[2]),
        "score": float(fused[3]),
        "lexical rank": int(lexical[1]),
        "vector rank": int(vector[2]),
        "cosine": float(vector[1]),
        "lexical evidence": float(evidence[1]),
        "vector evidence": float(evidence[2]),
        "passage": (int(passage[1]), int(passage[2])),
    }


def _read_html(e: Explanation) -> dict[str, Any]:
    shown = html.unescape(re.sub(r"<[^>]+>", " ", explain_html(e, Colours())))
    head = _one(r"Fused rank (\d+)\s+of (\d+)", shown)
    lexical = _one(r"Lexical\s+rank (\d+) of \d+\s+([0-9.]+)", shown)
    vector = _one(r"Vector\s+rank (\d+) of \d+\s+([0-9.]+)", shown)
    lexical_evidence = _one(r"→ lexical evidence ([0-9.]+)", shown)
    vector_evidence = _one(r"cosine ([0-9.]+).*?→ vector evidence ([0-9.]+)", shown)
    # The formula's result: the last number of the last line of it that ends in one.
    (score,) = [
        found
        for code in re.findall(r"<code>(.*?)</code>", explain_html(e, Colours()))
        if (found := re.search(r"= ([0-9.]+)$", html.unescape(code)))
    ][-1:]
    passage = _one(r"best passage at characters (\d+)–(\d+)", shown)
    score_alone = _one(r"fused ([0-9.]+) ·\s+show the arithmetic", _plain(e))
    assert float(score_alone[1]) == float(score[1])
    return {
        "rank": int(head[1]),
        "total": int(head[2]),
        "score": float(score[1]),
        "lexical rank": int(lexical[1]),
        "vector rank": int(vector[1]),
        "lexical contribution": float(lexical[2]),
        "vector contribution": float(vector[2]),
        "cosine": float(vector_evidence[1]),
        "lexical evidence": float(lexical_evidence[1]),
        "vector evidence": float(vector_evidence[2]),
        "passage": (int(passage[1]), int(passage[2])),
    }


def _plain(e: Explanation) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", explain_html(e, Colours(), arithmetic=False)))


def _read_json(e: Explanation) -> dict[str, Any]:
    data = json.loads(json.dumps(e.to_json()))
    a = data["arithmetic"]
    assert data["fused"]["rank"] == a["rank"] and data["fused"]["candidates"] == a["total"]
    assert round(data["fused"]["score"], 5) == a["score"]
    assert data["lexical"]["rank"] == a["lexical"]["rank"]
    assert data["vector"]["rank"] == a["vector"]["rank"]
    chunk = data["vector"]["best_chunk"]
    assert [chunk["start"], chunk["end"]] == a["passage"]
    return {
        "rank": a["rank"],
        "total": a["total"],
        "score": a["score"],
        "lexical rank": a["lexical"]["rank"],
        "vector rank": a["vector"]["rank"],
        "lexical contribution": a["lexical"]["contribution"],
        "vector contribution": a["vector"]["contribution"],
        "cosine": round(a["vector"]["vector"]["cosine"], 4),  # the HTML states four decimals
        "lexical evidence": a["lexical"]["evidence"],
        "vector evidence": a["vector"]["evidence"],
        "passage": tuple(a["passage"]),
    }


@pytest.mark.parametrize("fusion", ["rrf", "convex", "calibrated"])
def test_text_html_and_json_state_the_same_numbers(searcher: Searcher, fusion: str) -> None:
    options = SearchOptions(fusion=fusion, w_fts=0.6, w_vec=0.4, min_sim=0.0, min_rel=0.0)
    hits = searcher.search(QUERY, options).hits
    both = [h for h in hits if h.source == "both"]
    assert len(both) >= 2, [(h.path, h.source) for h in hits]
    for hit in both[:2]:
        e = explain(searcher, QUERY, hit.path, options)
        as_text, as_html, as_json = _read_text(e), _read_html(e), _read_json(e)
        assert as_html == as_json
        shared = {k: v for k, v in as_json.items() if k in as_text}
        assert as_text.pop("passage", None) == shared.pop("passage", None)
        # The text states the cosine and the evidence to three decimals, the rest as they are
        # (pytest.approx compares flat mappings of numbers only).
        assert as_text == pytest.approx(shared, abs=5e-4)
        assert as_text["score"] == as_json["score"] == round(hit.fused_score, 5)
        # And they are the search's own numbers: its hit's rank, score and contributions.
        assert as_json["rank"] == hits.index(hit) + 1
        contributions = as_json["lexical contribution"] + as_json["vector contribution"]
        assert contributions == pytest.approx(as_json["score"], abs=2e-5)
        assert as_json["lexical contribution"] == round(hit.contributions["fts"], 5)


def test_a_hit_s_explanation_reads_alike_in_text_html_and_json(searcher: Searcher) -> None:
    """The window's explanation of a hit (no vault asked) renders in the three forms too."""
    options = SearchOptions(fusion="calibrated", w_fts=0.6, w_vec=0.4, min_sim=0.0, min_rel=0.0)
    candidates = searcher.candidates(QUERY, options)
    response = fuse(candidates, options)
    rank, hit = next((i, h) for i, h in enumerate(response.hits, 1) if h.source == "both")
    e = hit_explanation(hit, explain_context(hit, rank, response, candidates), QUERY)
    text = e.format()
    place = _one(r"shown at rank (\d+) of (\d+)", text)
    lexical = _one(r"lexical list: rank (\d+) of \d+, contribution ([0-9.]+)", text)
    vector = _one(r"vector list: rank (\d+) of \d+, contribution ([0-9.]+)", text)
    score = _one(r"(?m)^fused \(calibrated\): score ([0-9.]+) = .* = ([0-9.]+)$", text)
    passage = _one(r"best passage: characters (\d+)–(\d+)", text)
    as_text = {
        "rank": int(place[1]),
        "total": int(place[2]),
        "score": float(score[1]),
        "lexical rank": int(lexical[1]),
        "vector rank": int(vector[1]),
        "lexical contribution": float(lexical[2]),
        "vector contribution": float(vector[2]),
        "passage": (int(passage[1]), int(passage[2])),
    }
    as_html = _read_html(e)
    a = json.loads(json.dumps(e.to_json()))["arithmetic"]
    assert as_text == {k: as_html[k] for k in as_text}
    assert as_text["score"] == float(score[2]) == a["score"] == round(hit.fused_score, 5)
    assert (
        (a["rank"], a["total"]) == (rank, len(response.hits)) == (as_html["rank"], as_html["total"])
    )
    assert a["lexical"]["contribution"] == as_text["lexical contribution"]
    assert a["vector"]["evidence"] == as_html["vector evidence"]
