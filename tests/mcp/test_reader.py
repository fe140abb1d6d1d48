"""The reader's pure parts: which lines (and characters) a range is."""

from __future__ import annotations

import pytest

from explorer.console import UsageError
from explorer.mcp.reader import MAX_NOTE_CHARS, note_lines

TEXT = "one\ntwo\nthree\nfour\n"


@pytest.mark.parametrize(
    ("start", "end", "text", "first", "last"),
    [
        (None, None, "one\ntwo\nthree\nfour", 1, 4),
        (2, 3, "two\nthree", 2, 3),
        (3, None, "three\nfour", 3, 4),
        (None, 1, "one", 1, 1),
        (4, 99, "four", 4, 4),
    ],
)
def test_a_range_of_lines(
    start: int | None, end: int | None, text: str, first: int, last: int
) -> None:
    note = note_lines("n.md", TEXT, start, end, [], None)
    assert (note.text, note.first, note.last, note.lines, note.truncated) == (
        text, first, last, 4, False,
    )  # fmt: skip


@pytest.mark.parametrize(("start", "end"), [(0, 2), (3, 2), (5, None)])
def test_a_range_outside_the_note_is_refused(start: int, end: int | None) -> None:
    with pytest.raises(UsageError):
        note_lines("n.md", TEXT, start, end, [], None)


def test_a_long_range_stops_at_a_line_end_within_the_budget() -> None:
    line = "x" * (MAX_NOTE_CHARS // 4)
    note = note_lines("n.md", "\n".join([line] * 10), None, None, [], None)
    assert note.truncated and (note.first, note.last, note.lines) == (1, 3, 10)
    assert note.text == "\n".join([line] * 3)
    rest = note_lines("n.md", "\n".join([line] * 10), note.last + 1, None, [], None)
    assert (rest.first, rest.last) == (4, 6)


def test_one_line_longer_than_the_budget_is_cut() -> None:
    note = note_lines("n.md", "y" * (MAX_NOTE_CHARS * 2) + "\nz", None, None, [], None)
    assert note.truncated and (note.first, note.last) == (1, 1)
    assert len(note.text) == MAX_NOTE_CHARS


def test_an_empty_note_has_one_empty_line() -> None:
    note = note_lines("n.md", "", None, None, [], None)
    assert (note.text, note.first, note.last, note.lines) == ("", 1, 1, 1)


def test_a_cut_inside_a_line_goes_on_at_the_next_character() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(MAX_NOTE_CHARS * 2 + 7)) + "\nz\n"
    note = note_lines("n.md", text, None, 2, [], None)
    assert note.next_request() == {"start_line": 1, "start_char": MAX_NOTE_CHARS + 1, "end_line": 2}
    assert "ask for start_line 1, start_char 100001, end_line 2 for more" in note.heading()
    rest = note_lines("n.md", text, 1, 2, [], None, MAX_NOTE_CHARS + 1)
    last = note_lines("n.md", text, 1, 2, [], None, 2 * MAX_NOTE_CHARS + 1)
    assert note.text + rest.text + last.text == text[: MAX_NOTE_CHARS * 2 + 7] + "\nz"
    assert last.next_request() is None and not last.truncated


def test_a_line_exactly_as_long_as_the_budget_is_whole() -> None:
    note = note_lines("n.md", "x" * MAX_NOTE_CHARS + "\ny", None, None, [], None)
    assert note.truncated and note.text == "x" * MAX_NOTE_CHARS
    assert note.next_request() == {"start_line": 2}


@pytest.mark.parametrize("start_char", [0, 5])
def test_a_character_outside_the_line_is_refused(start_char: int) -> None:
    with pytest.raises(UsageError, match="start_char"):
        note_lines("n.md", "abcd\n", 1, None, [], None, start_char)
