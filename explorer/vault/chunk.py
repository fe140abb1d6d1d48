"""Splitting a note into chunks that each get one embedding.

Chunks start at headings and paragraph breaks and are packed up to a budget that fits the model's
input (all-MiniLM-L6-v2 reads 256 word pieces).  Spans are contiguous: every character of the
body belongs to exactly one chunk, so a sentence at character 40,000 is as findable as the first.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

#: Budget per chunk in "cost" units: one per character, four per CJK character (those are about
#: one word piece each, where English averages four to five characters per word piece).
MAX_COST = 900
#: A heading starts a new chunk once the chunk being filled has at least this much text.
MIN_COST_BEFORE_HEADING = 200

_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
_HEADING = re.compile(r"#{1,6}[ \t]")
_BLANK = re.compile(r"[ \t\r\n]*")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span ``[start, end)`` of the note's text; ``text`` is the span with its ends stripped."""

    start: int
    end: int
    text: str


def cost(text: str) -> int:
    """Approximate size of ``text`` in the model's input, in characters of English."""
    if text.isascii():  # a flag of the string: most text has no CJK to look for
        return len(text)
    return len(text) + 3 * len(_CJK.findall(text))


def chunk_text(
    text: str,
    offset: int = 0,
    max_cost: int = MAX_COST,
    keep: Sequence[tuple[int, int]] = (),
) -> list[Chunk]:
    """Chunks covering ``text`` entirely; offsets are shifted by ``offset``.

    ``keep`` are sorted, disjoint spans of ``text`` (links) that no cut falls inside, unless
    one is alone longer than a chunk.  Text that is only white space gives no chunk.
    """
    guard = _Guard(keep)
    pieces: list[tuple[int, int]] = []
    for start, end in _blocks(text):
        pieces.extend(_split_long(text, start, end, max_cost, guard))
    spans: list[tuple[int, int]] = []
    cur_start, cur_end, cur_cost = 0, 0, 0
    word = -1  # the first non-blank character at or after the piece (pieces of blank lines
    # share it: looking for it again from each piece looked at 10**10 blanks in 400 KB)
    for start, end in pieces:
        piece_cost = cost(text[start:end])
        if word < start:
            word = _skip_blank(text, start)
        heading = _HEADING.match(text, word) is not None
        full = cur_cost + piece_cost > max_cost
        if cur_end > cur_start and (full or (heading and cur_cost >= MIN_COST_BEFORE_HEADING)):
            spans.append((cur_start, start))
            cur_start, cur_cost = start, 0
        cur_end = end
        cur_cost += piece_cost
    if cur_end > cur_start:
        spans.append((cur_start, len(text)))
    chunks = []
    for start, end in spans:
        body = text[start:end].strip()
        if body:
            chunks.append(Chunk(start + offset, end + offset, body))
        elif chunks:  # a span of blank lines only belongs to the chunk before
            chunks[-1] = Chunk(chunks[-1].start, end + offset, chunks[-1].text)
    if chunks:
        # Leading and trailing white space belongs to the first and last chunk.
        first, last = chunks[0], chunks[-1]
        chunks[0] = Chunk(offset, first.end, first.text)
        chunks[-1] = Chunk(chunks[-1].start, len(text) + offset, last.text)
    return chunks


def _skip_blank(text: str, pos: int) -> int:
    match = _BLANK.match(text, pos)
    return match.end() if match else pos


def _blocks(text: str) -> list[tuple[int, int]]:
    """Paragraph-sized spans, cut just after each blank line, covering ``text``."""
    spans = []
    start = 0
    for match in _BLOCK_BREAK.finditer(text):
        spans.append((start, match.end()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


class _Guard:
    """Answers whether a cut at some position would fall inside one of the kept spans."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self._starts = [s for s, _ in spans]
        self._ends = [e for _, e in spans]

    def inside(self, pos: int) -> bool:
        i = bisect.bisect_right(self._starts, pos - 1) - 1
        return i >= 0 and self._starts[i] < pos < self._ends[i]

    def before(self, pos: int) -> int:
        """``pos``, or the start of the kept span it would cut."""
        i = bisect.bisect_right(self._starts, pos - 1) - 1
        if i >= 0 and self._starts[i] < pos < self._ends[i]:
            return self._starts[i]
        return pos


_NO_GUARD = _Guard(())


def _split_long(
    text: str, start: int, end: int, max_cost: int, guard: _Guard = _NO_GUARD
) -> list[tuple[int, int]]:
    """``[start, end)`` cut at sentence ends, then spaces, then anywhere, to fit ``max_cost``.

    Each sentence is costed once: the cost of the piece being filled is the sum of its own
    (costing the piece so far again at each line was 450 times the text's length)."""
    if cost(text[start:end]) <= max_cost:
        return [(start, end)]
    cuts = [m.end() for m in _SENTENCE_END.finditer(text, start, end) if not guard.inside(m.end())]
    out: list[tuple[int, int]] = []
    piece_start = last_ok = start
    piece_cost = 0  # of text[piece_start:last_ok]
    for cut in [*cuts, end]:
        sentence = cost(text[last_ok:cut])
        if piece_cost + sentence <= max_cost:
            last_ok, piece_cost = cut, piece_cost + sentence
            continue
        if last_ok > piece_start:
            out.append((piece_start, last_ok))
            piece_start = last_ok
        if sentence <= max_cost:
            last_ok, piece_cost = cut, sentence
            continue
        # One sentence too long on its own: cut at spaces, else hard.
        out.extend(_hard_split(text, piece_start, cut, max_cost, guard))
        piece_start = last_ok = cut
        piece_cost = 0
    if piece_start < end:
        out.append((piece_start, end))
    return out


def _hard_split(
    text: str, start: int, end: int, max_cost: int, guard: _Guard = _NO_GUARD
) -> list[tuple[int, int]]:
    out = []
    pos = start
    while pos < end:
        # At most ``max_cost`` characters fit (each costs one or more); character by character
        # only when CJK in them costs more.
        limit = min(end, pos + max_cost)
        if cost(text[pos:limit]) > max_cost:
            limit, budget = pos, 0
            while limit < end:
                budget += 4 if _CJK.match(text[limit]) else 1
                if budget > max_cost:
                    break
                limit += 1
        if limit >= end:
            out.append((pos, end))
            break
        space = text.rfind(" ", pos + 1, limit)
        cut = space + 1 if space > pos + max_cost // 2 else limit
        kept = guard.before(cut)
        if kept > pos:  # a link is not cut, unless it alone is longer than a chunk
            cut = kept
        out.append((pos, cut))
        pos = cut
    return out
