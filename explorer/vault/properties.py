"""A note's frontmatter properties, typed as Obsidian types them: text, number, date, list and
checkbox.

:func:`typed_properties` turns what :func:`explorer.vault.frontmatter.read_frontmatter` read
(a scalar as YAML built it, or a list of scalars) into rows the index stores and a
``[name:value]`` filter compares: each value has a ``text`` (compared without case) and, for a
number, a date or a checkbox, a ``num`` (a date as seconds since 1970-01-01 UTC, a checkbox as
0 or 1), so that ``[rating:>3]`` and ``[due:<2025-01-01]`` are one comparison of numbers.

A date is a date however Obsidian writes it: a YAML date (``2024-03-14``), a YAML timestamp, or
text of the forms ``2024-03-14``, ``2024-03-14T10:30``, ``2024-03-14 10:30:00`` (quoted, or with
minutes only, which YAML leaves as text).  A time with an offset (``2024-03-15T02:00+05:00``)
is the date and time as written, its offset left aside, quoted or not: the day the note names is
the day a filter finds it on.  Any year YAML reads (1 to 9999) is a date.  A number that is not
finite or too large to compare (``.nan``, ``1e999``, a 400-digit integer) is kept as text.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass

#: The kinds of property, as Obsidian names them.
TEXT, NUMBER, DATE, LIST, CHECKBOX = "text", "number", "date", "list", "checkbox"
#: Values of one list property kept (the first ones).
MAX_LIST_VALUES = 256
#: Characters of one value kept as text.
MAX_VALUE_CHARS = 1024
#: Numbers beyond this are text: a float holds every integer up to here exactly.
_MAX_NUMBER = 2**53

_DATE_TEXT = re.compile(
    r"\A(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?\Z"
)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True, slots=True)
class PropValue:
    """One value of a property, as stored: ``seq`` its place in a list (0 for one value)."""

    key: str  # the property's name folded (case-insensitive, as Obsidian compares names)
    name: str  # the name as the note writes it
    kind: str  # the property's kind (:data:`LIST` for every value of a list)
    seq: int
    text: str | None  # None: the property is there without a value (``due:``)
    num: float | None


def property_key(name: str) -> str:
    """A property's name as it is compared: trimmed, without case."""
    return name.strip().casefold()


def normalize_tag(tag: str) -> str:
    """Tags are compared lower case, without ``#``: a ``tags`` property's values, a note's
    inline ``#tags``, a query's ``tag:`` (here, not in :mod:`explorer.vault.parse`, so that a
    query is parsed without loading the note parser)."""
    return tag.strip().lstrip("#").strip().lower()


def typed_properties(properties: dict[str, object]) -> list[PropValue]:
    """The rows of a note's ``properties`` (frontmatter names to values), one per value; a
    name given twice under different case keeps its first."""
    rows: list[PropValue] = []
    seen: set[str] = set()
    for name, value in properties.items():
        key = property_key(name)
        if not key or key in seen:
            continue
        seen.add(key)
        if isinstance(value, list):
            values = [v for v in value[:MAX_LIST_VALUES] if v is not None]
            if not values:
                rows.append(PropValue(key, name, LIST, 0, None, None))
            for seq, item in enumerate(values):
                _, text, num = typed_value(item)
                rows.append(PropValue(key, name, LIST, seq, text, num))
            continue
        kind, text, num = typed_value(value)
        rows.append(PropValue(key, name, kind, 0, text, num))
    return rows


def typed_value(value: object) -> tuple[str, str | None, float | None]:
    """(kind, text, num) of one scalar as YAML built it."""
    if value is None:
        return TEXT, None, None
    if isinstance(value, bool):
        return CHECKBOX, "true" if value else "false", 1.0 if value else 0.0
    if isinstance(value, int | float):
        if isinstance(value, int) and abs(value) > _MAX_NUMBER:
            return TEXT, _bounded(_int_text(value)), None
        number = float(value)
        if not math.isfinite(number) or abs(number) > _MAX_NUMBER:
            return TEXT, _bounded(str(value)), None
        text = str(value) if isinstance(value, int) else repr(value)
        return NUMBER, text, number
    if isinstance(value, dt.datetime):  # as written: a YAML offset is left aside, as in text
        return DATE, _date_text(value), _seconds(value)
    if isinstance(value, dt.date):
        return DATE, value.isoformat(), _seconds(dt.datetime(value.year, value.month, value.day))
    text = str(value).strip()
    when = parse_date_text(text)
    if when is not None:
        return DATE, _date_text(when) if len(text) > 10 else when.date().isoformat(), _seconds(when)
    return TEXT, _bounded(text), None


def parse_date_text(text: str) -> dt.datetime | None:
    """The moment ``text`` names in one of the date forms Obsidian writes, or None."""
    match = _DATE_TEXT.match(text.strip())
    if not match:
        return None
    y, m, d, hh, mm, ss = match.groups()
    try:
        return dt.datetime(int(y), int(m), int(d), int(hh or 0), int(mm or 0), int(ss or 0))
    except ValueError:  # 2024-13-45
        return None


def _seconds(when: dt.datetime) -> float:
    """Seconds since 1970 of ``when``, read as UTC, as every date of a property is, so that
    comparisons never depend on the machine's zone."""
    return (when.replace(tzinfo=dt.UTC) - _EPOCH).total_seconds()


def _date_text(when: dt.datetime) -> str:
    return when.replace(tzinfo=None).isoformat(timespec="minutes" if not when.second else "seconds")


def _int_text(value: int) -> str:
    try:
        return str(value)
    except ValueError:  # beyond Python's digits limit (the field budget keeps it within)
        return f"an integer of about {value.bit_length() * 3 // 10:,} digits"


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS]
