"""The vector side of a note, chunk by chunk: cosines, ranks, the exact text embedded and what
was left out (:mod:`explorer.search.lists.chunk_scores`), with the fake embedder's exact cosines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.vectors import VectorIndex
from explorer.search.explain.explain import explain
from explorer.search.fusion.hybrid import Searcher
from explorer.search.lists.chunk_scores import note_chunks
from explorer.search.query.options import SearchOptions
from explorer.vault.parse import parse_note
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]

FILLER = "A line that only takes room so that each section is a chunk of its own. " * 4
#: Three sections (a heading starts a chunk once the one before has 200 characters), a link
#: and an image embed in the second, frontmatter before them all.
GARDEN = (
    "---\ntags: [garden]\nstatus: draft\n---\n"
    "# Allotment\n\nWatering the seedlings every morning before work. " + FILLER + "\n\n"
    "## Tomatoes\n\nTie the tomato vines to stakes, see [[Stakes|the stakes note]] and "
    "![[vines.png]] for how. " + FILLER + "\n\n"
    "## Budget\n\nThe invoices for seed compost and the hose. " + FILLER + "\n"
)
OTHER = "# Stakes\n\nBamboo stakes for tomato vines, cut to length.\n"


class Words:
    """Word pieces as whitespace words, the model reading ``limit`` of them."""

    limit = 12

    def read(self, text: str) -> tuple[int, int]:
        words = text.split()
        if len(words) <= self.limit:
            return len(words), len(text)
        at = 0
        for word in words[: self.limit]:
            at = text.index(word, at) + len(word)
        return len(words), at


@pytest.fixture
def indexed(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> Searcher:
    write("garden.md", GARDEN)
    write("stakes.md", OTHER)
    return build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))


def _vectors(searcher: Searcher, query: str) -> VectorIndex:
    searcher.search(query, SearchOptions(mode="semantic", min_sim=0.0, min_rel=0.0))
    vectors = searcher.vector_index()
    assert vectors is not None
    return vectors


def test_every_chunk_has_its_cosine_and_its_rank_among_the_vault_s_chunks(
    indexed: Searcher,
) -> None:
    fake = FakeEmbedder()
    vectors = _vectors(indexed, "tomato vines")
    query = fake.embed(["tomato vines"])[0]
    got = note_chunks(indexed.db.conn, vectors, query, "garden.md")
    assert got is not None
    rows = indexed.db.conn.execute(
        "SELECT c.seq, c.start, c.end, c.text FROM chunks c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = 'garden.md' ORDER BY c.seq"
    ).fetchall()
    assert len(rows) == 3 and [c.seq for c in got.chunks] == [0, 1, 2]
    assert [(c.start, c.end, c.embedded) for c in got.chunks] == [r[1:] for r in rows]
    expected = fake.embed([r[3] for r in rows]) @ query
    assert [c.cosine for c in got.chunks] == pytest.approx(expected.tolist(), abs=1e-6)
    # Among every chunk of the vault: the stakes note's one chunk says "tomato vines" in fewer
    # words than the tomatoes section, so it is first and the tomatoes section second.
    every = fake.embed([r[0] for r in indexed.db.conn.execute("SELECT text FROM chunks")])
    vault_cosines = (every @ query).tolist()
    best = got.best
    assert best is not None and best.seq == 1 and best.cosine is not None
    assert best.rank == 1 + sum(1 for s in vault_cosines if s > best.cosine + 1e-6)
    assert best.rank == 2
    assert got.runner_up is not None and got.runner_up.seq in (0, 2)
    assert got.runner_up.cosine == max(float(expected[i]) for i in (0, 2))
    assert got.note_rank == 2 and got.notes == 2 and got.vault_chunks == 4
    assert got.body_start == GARDEN.index("# Allotment")


def test_the_embedded_text_and_what_was_left_out(indexed: Searcher) -> None:
    vectors = _vectors(indexed, "tomato vines")
    query = FakeEmbedder().embed(["tomato vines"])[0]
    note = parse_note("garden.md", GARDEN.encode())
    got = note_chunks(
        indexed.db.conn,
        vectors,
        query,
        "garden.md",
        source=(note.text, note.body_start),
        pieces=Words(),
    )
    assert got is not None and not got.changed
    first, tomatoes, budget = got.chunks
    assert any("frontmatter" in line for line in first.left_out)
    assert "the stakes note" in tomatoes.embedded and "[[" not in tomatoes.embedded
    assert "vines.png" not in tomatoes.embedded
    said = " / ".join(tomatoes.left_out)
    assert "1 embedded file left out (![[vines.png]])" in said
    assert "“[[Stakes|the stakes note]]” as “the stakes note”" in said
    assert budget.left_out == ()
    # The model reads 12 words: every chunk here is longer, and says where the model stopped.
    assert tomatoes.cut_by_model and tomatoes.limit == 12
    assert tomatoes.read is not None
    assert tomatoes.embedded[: tomatoes.read].split() == tomatoes.embedded.split()[:12]
    assert tomatoes.to_json()["cutByModel"] is True


def test_a_changed_source_says_so_instead_of_guessing(indexed: Searcher) -> None:
    vectors = _vectors(indexed, "tomato vines")
    query = FakeEmbedder().embed(["tomato vines"])[0]
    text = GARDEN + "\nA line added since the note was indexed.\n"
    got = note_chunks(
        indexed.db.conn, vectors, query, "garden.md", source=(text, GARDEN.index("# Allotment"))
    )
    assert got is not None and got.changed
    assert all(c.left_out == () for c in got.chunks)


def test_an_unknown_note_is_none(indexed: Searcher) -> None:
    vectors = _vectors(indexed, "tomato")
    query = FakeEmbedder().embed(["tomato"])[0]
    assert note_chunks(indexed.db.conn, vectors, query, "no/such.md") is None


def test_search_json_names_the_best_chunk_and_the_runner_up(indexed: Searcher) -> None:
    options = SearchOptions(mode="semantic", min_sim=0.0, min_rel=0.0)
    hits = {h.path: h for h in indexed.search("tomato vines", options).hits}
    garden = hits["garden.md"].to_json()
    fake = FakeEmbedder()
    query = fake.embed(["tomato vines"])[0]
    rows = indexed.db.conn.execute(
        "SELECT c.seq, c.start, c.end, c.text FROM chunks c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = 'garden.md' ORDER BY c.seq"
    ).fetchall()
    cosines = (fake.embed([r[3] for r in rows]) @ query).tolist()
    order = sorted(range(3), key=lambda i: (-cosines[i], i))
    best, second = rows[order[0]], rows[order[1]]
    assert garden["bestChunk"] == {
        "start": best[1],
        "end": best[2],
        "seq": best[0],
        "cosine": pytest.approx(cosines[order[0]], abs=1e-6),
    }
    assert garden["runnerUpChunk"] == {
        "start": second[1],
        "end": second[2],
        "seq": second[0],
        "cosine": pytest.approx(cosines[order[1]], abs=1e-6),
    }
    # A note of one chunk has no runner-up.
    assert hits["stakes.md"].to_json()["runnerUpChunk"] is None


def test_explain_names_the_best_chunk_and_the_runner_up(indexed: Searcher) -> None:
    options = SearchOptions(mode="semantic", min_sim=0.0, min_rel=0.0)
    e = explain(indexed, "tomato vines", "garden.md", options)
    best, second = e.vector.best_chunk, e.vector.runner_up_chunk
    assert best is not None and second is not None
    assert best.seq == 1 and best.cosine == pytest.approx(e.vector.cosine)
    assert second.cosine < best.cosine
    vector = e.to_json()["vector"]
    assert vector["best_chunk"]["seq"] == 1
    assert vector["runner_up_chunk"]["seq"] == second.seq
    line = next(line for line in e.lines() if line.startswith("chunks:"))
    assert f"the best is chunk 2 of 3 (characters {best.start}–{best.end})" in line
    assert f"runner-up chunk {second.seq + 1}" in line
