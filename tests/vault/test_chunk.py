"""Chunking covers every character of the body and fits the model's input."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.vault.chunk import MAX_COST, chunk_text, cost


def _assert_covers(text: str, offset: int = 0) -> None:
    chunks = chunk_text(text, offset=offset)
    if not text.strip():
        assert chunks == []
        return
    assert chunks[0].start == offset
    assert chunks[-1].end == offset + len(text)
    for a, b in itertools.pairwise(chunks):
        assert a.end == b.start
    for c in chunks:
        assert c.text == text[c.start - offset : c.end - offset].strip()
        assert cost(c.text) <= MAX_COST


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .\n#東\t"), max_size=3000), st.integers(0, 50))
def test_chunks_cover_text_contiguously_and_fit(text: str, offset: int) -> None:
    _assert_covers(text, offset)


def test_headings_start_chunks() -> None:
    text = "# A\n\n" + "alpha " * 60 + "\n\n## B\n\n" + "beta " * 60
    chunks = chunk_text(text)
    assert len(chunks) == 2
    assert chunks[1].text.startswith("## B")


def test_a_very_long_note_is_chunked_to_the_end() -> None:
    rng = random.Random(1)
    words = ["lorem", "ipsum", "dolor", "amet", "consectetur"]
    text = " ".join(rng.choice(words) for _ in range(12000)) + ". The lighthouse parrot whistled."
    chunks = chunk_text(text)
    assert len(text) > 40000
    assert "lighthouse parrot" in chunks[-1].text
    _assert_covers(text)


def test_cjk_text_without_spaces_is_cut_to_fit() -> None:
    text = "東京タワーに行きました" * 300
    _assert_covers(text)
    assert len(chunk_text(text)) > 3
