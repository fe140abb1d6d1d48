"""Chunking covers every character of the body and fits the model's input."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.vault import chunk
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


class _Looked:
    """Characters a helper of the chunker looks at, failing past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.chars, self.limit = 0, limit

    def add(self, chars: int) -> None:
        self.chars += chars
        assert self.chars <= self.limit, f"more than {self.limit:,} characters looked at"


def _count_skipped(monkeypatch: pytest.MonkeyPatch, limit: int) -> _Looked:
    looked, real = _Looked(limit), chunk._skip_blank

    def counting(text: str, pos: int) -> int:
        end = real(text, pos)
        looked.add(end - pos)
        return end

    monkeypatch.setattr(chunk, "_skip_blank", counting)
    return looked


def _count_costed(monkeypatch: pytest.MonkeyPatch, limit: int) -> _Looked:
    looked, real = _Looked(limit), chunk.cost

    def counting(text: str) -> int:
        looked.add(len(text))
        return real(text)

    monkeypatch.setattr(chunk, "cost", counting)
    return looked


def test_blank_lines_and_spaces_are_looked_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "x\n" + "\n" * 200_000 + "y " * 10 + "\n" + " " * 200_000 + "z\n\n\n"
    _assert_covers(text)
    # Each piece looking for its first word anew looked at 10**10 blanks.
    skipped = _count_skipped(monkeypatch, 2 * len(text))
    assert " ".join(c.text for c in chunk_text(text)).split() == ["x", *["y"] * 10, "z"]
    assert skipped.chars > 0


def test_a_paragraph_of_40k_lines_is_costed_once_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(f"line {i}\n" for i in range(40_000))  # no blank line: one block
    costed = _count_costed(monkeypatch, 4 * len(text))  # once the piece so far at each line
    chunks = chunk_text(text)
    assert "\n".join(c.text for c in chunks) == text.strip()
    assert all(len(c.text) <= MAX_COST for c in chunks) and costed.chars >= len(text)


def test_a_line_of_words_and_cjk_is_costed_a_few_times(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "東京 " * 20_000 + "word " * 40_000
    _assert_covers(text)
    costed = _count_costed(monkeypatch, 5 * len(text))
    chunks = chunk_text(text)
    assert " ".join(c.text for c in chunks).split() == text.split()
    assert costed.chars >= len(text)
