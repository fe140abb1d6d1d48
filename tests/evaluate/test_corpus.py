"""A BEIR corpus written as notes and indexed as a vault, the index cached."""

from __future__ import annotations

from pathlib import Path

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.corpus import note_names, note_text
from explorer.evaluate.datasets import Doc, load_beir
from explorer.evaluate.runner import evaluate_beir
from explorer.evaluate.settings import EvalSettings


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
