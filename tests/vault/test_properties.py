"""Typed frontmatter properties: text, number, date, list, checkbox, as Obsidian writes them."""

from __future__ import annotations

import datetime as dt

import pytest

from explorer.vault.frontmatter import MAX_FIELD_CHARS, MAX_PROPERTIES, read_frontmatter
from explorer.vault.parse import parse_note
from explorer.vault.properties import (
    CHECKBOX,
    DATE,
    LIST,
    NUMBER,
    TEXT,
    PropValue,
    parse_date_text,
    typed_properties,
)

_MARCH_14 = dt.datetime(2024, 3, 14, tzinfo=dt.UTC).timestamp()


def _props(front: str) -> dict[str, list[PropValue]]:
    note = parse_note("n.md", f"---\n{front}---\nbody\n".encode())
    out: dict[str, list[PropValue]] = {}
    for p in note.properties:
        out.setdefault(p.key, []).append(p)
    return out


def _one(front: str, key: str) -> tuple[str, str | None, float | None]:
    (value,) = _props(front)[key]
    return value.kind, value.text, value.num


@pytest.mark.parametrize(
    "line",
    [
        "due: 2024-03-14",  # a YAML date
        "due: '2024-03-14'",  # quoted: text YAML leaves alone
        'due: "2024-03-14"',
    ],
)
def test_a_date_in_each_form_obsidian_writes_is_a_date(line: str) -> None:
    assert _one(line + "\n", "due") == (DATE, "2024-03-14", _MARCH_14)


def test_a_date_with_a_time_is_a_date_to_the_minute() -> None:
    ten_thirty = _MARCH_14 + 10.5 * 3600
    assert _one("due: 2024-03-14T10:30\n", "due") == (DATE, "2024-03-14T10:30", ten_thirty)
    assert _one("due: 2024-03-14 10:30:00\n", "due") == (DATE, "2024-03-14T10:30", ten_thirty)
    assert _one("due: 2024-03-14T10:30:15\n", "due")[2] == ten_thirty + 15


def test_an_impossible_date_is_text() -> None:
    assert _one("due: '2024-13-45'\n", "due") == (TEXT, "2024-13-45", None)
    assert parse_date_text("2024-02-30") is None
    assert _props("due: 2024-13-45\n") == {}  # unquoted: YAML cannot build it, left out


def test_numbers_booleans_and_text() -> None:
    assert _one("rating: 4\n", "rating") == (NUMBER, "4", 4.0)
    assert _one("rating: 3.5\n", "rating") == (NUMBER, "3.5", 3.5)
    assert _one("rating: -2\n", "rating") == (NUMBER, "-2", -2.0)
    assert _one("done: true\n", "done") == (CHECKBOX, "true", 1.0)
    assert _one("done: false\n", "done") == (CHECKBOX, "false", 0.0)
    assert _one("status: in progress\n", "status") == (TEXT, "in progress", None)
    assert _one("due:\n", "due") == (TEXT, None, None)  # there, without a value


def test_numbers_that_cannot_be_compared_are_text() -> None:
    assert _one("x: .nan\n", "x")[0:2] == (TEXT, "nan")
    assert _one("x: 1.0e+999\n", "x")[0:2] == (TEXT, "inf")
    assert _one("x: " + "9" * 400 + "\n", "x") == (TEXT, "9" * 400, None)


def test_a_list_holds_each_value_typed_under_one_key() -> None:
    values = _props("tags: [book, 2024-01-02, 3]\n")["tags"]
    assert [(v.kind, v.seq, v.text, v.num) for v in values] == [
        (LIST, 0, "book", None),
        (LIST, 1, "2024-01-02", dt.datetime(2024, 1, 2, tzinfo=dt.UTC).timestamp()),
        (LIST, 2, "3", 3.0),
    ]
    assert _props("aliases: []\n")["aliases"] == [
        PropValue("aliases", "aliases", LIST, 0, None, None)
    ]


def test_names_are_compared_without_case_and_kept_as_written() -> None:
    (value,) = _props("Status: Open\n")["status"]
    assert (value.key, value.name, value.text) == ("status", "Status", "Open")
    rows = typed_properties({"Due": 1, "due": 2})
    assert [(r.name, r.num) for r in rows] == [("Due", 1.0)]  # the first of one name


def test_hostile_values_are_left_out_and_the_rest_is_read() -> None:
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]\n"
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    front = laughs + "nested: {k: v}\ndeep: [[1, 2]]\nbig: " + "y" * (MAX_FIELD_CHARS + 1) + "\n"
    front += "binary: !!binary aGVsbG8=\nok: fine\n"
    props = _props(front)
    assert set(props) == {"a", "ok"}  # b..i are lists of lists: never built
    assert props["ok"][0].text == "fine"


def test_properties_are_bounded_in_number() -> None:
    front = "".join(f"p{i}: {i}\n" for i in range(MAX_PROPERTIES + 10)) + "title: T\n"
    read = read_frontmatter(f"---\n{front}---\n")
    assert len([k for k in read.properties if k.startswith("p")]) == MAX_PROPERTIES
    assert read.fields["title"] == "T"  # the index's own fields are read all the same


def test_a_scalar_field_given_a_list_still_warns_and_is_kept_as_a_property() -> None:
    read = read_frontmatter("---\nstatus: [a, b]\n---\n")
    assert "status" not in read.fields
    assert read.warnings == ("frontmatter `status` skipped: not a single value",)
    assert read.properties["status"] == ["a", "b"]


def test_a_time_with_an_offset_is_the_date_as_written_quoted_or_not() -> None:
    """``due: 2024-03-15T02:00:00+05:00`` is 21:00 on the 14th in UTC; the note names the
    15th, and both forms (a YAML timestamp unquoted, text quoted) are the 15th."""
    unquoted = read_frontmatter("---\ndue: 2024-03-15T02:00:00+05:00\n---\n").properties
    quoted = read_frontmatter('---\ndue: "2024-03-15T02:00:00+05:00"\n---\n').properties
    rows = [typed_properties(p)[0] for p in (unquoted, quoted)]
    at = dt.datetime(2024, 3, 15, 2, tzinfo=dt.UTC).timestamp()
    assert [(r.kind, r.text, r.num) for r in rows] == [(DATE, "2024-03-15T02:00", at)] * 2
