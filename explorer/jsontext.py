"""JSON from a file or a peer the program does not control, read within a nesting budget.

:func:`json.loads` recurses once per level of nesting, so a line of 30,000 ``[`` raises
``RecursionError`` from deep inside the parser (or worse, on a smaller stack).  :func:`loads`
counts the nesting first, outside strings, without recursing, and refuses a text nested deeper
than its budget with a ``ValueError`` — the error a caller already expects of text that is not
the JSON it wants.

Nothing else of the program's here: every layer may use it.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The deepest nesting read by default: far more than any of the program's own files or
#: requests use (three or four levels), far less than the parser's recursion.
MAX_DEPTH = 32

#: A JSON string, its escapes included (the unrolled loop: no backtracking).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def nesting(text: str, stop: int | None = None) -> int:
    """The deepest nesting of arrays and objects in ``text`` (brackets inside strings do not
    count); counting stops once past ``stop``."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop is not None and deepest > stop:
                    break
        else:
            depth -= 1
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads(text)``, or ``ValueError`` when ``text`` nests deeper than ``max_depth``
    (or is not JSON)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if nesting(text, max_depth) > max_depth:
        raise ValueError(f"JSON nested deeper than {max_depth} levels")
    return json.loads(text)
