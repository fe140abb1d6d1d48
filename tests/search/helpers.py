"""Candidate lists made by hand: what a search fetched, for tests that re-fuse or show them."""

from __future__ import annotations

from explorer.search.fusion.results import Candidates, NoteInfo, SemanticStatus, VectorCandidate
from explorer.search.query.query import parse_query

LEXICAL = ["a.md", "b.md", "c.md", "d.md"]
VECTOR = ["b.md", "e.md", "a.md"]


def candidates() -> Candidates:
    c = Candidates(query=parse_query("some words"), mode="hybrid", depth=50)
    c.lexical = [(p, 10.0 - i, f"snippet of <mark>{p}</mark>") for i, p in enumerate(LEXICAL)]
    c.vector = [VectorCandidate(p, 0.9 - 0.1 * i, (0, 10), "text") for i, p in enumerate(VECTOR)]
    c.semantic = SemanticStatus(True, None, "fake")
    for p in {*LEXICAL, *VECTOR}:
        c.notes[p] = NoteInfo(p, p.removesuffix(".md").upper(), None, (), 0)
    return c
