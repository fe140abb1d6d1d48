"""JSON read within a nesting budget: the nesting counted without recursing, strings aside."""

from __future__ import annotations

import pytest

from explorer import jsontext


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ('{"a": [1, {"b": []}]}', 4),
        ('{"a": "[[[[{{{{"}', 1),  # brackets in a string do not count
        ('["\\"[[[", "]"]', 1),  # nor after an escaped quote
    ],
)
def test_nesting_is_counted_outside_strings(text: str, depth: int) -> None:
    assert jsontext.nesting(text) == depth


def test_too_deep_is_a_value_error_before_the_parser_recurses() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ValueError, match="nested deeper than 32 levels"):
        jsontext.loads(deep)
    assert jsontext.loads(b'{"a": [1]}') == {"a": [1]}
    with pytest.raises(ValueError):
        jsontext.loads(b"\xff\xfe")
