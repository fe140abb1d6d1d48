"""``[name:value]`` filters on a note's frontmatter properties, written as in Obsidian's search.

``[status:open]`` (the value, without case), ``[status:"in progress"]``, ``[due]`` (the note
has the property), ``[rating:>3]`` with ``>``, ``>=``, ``<``, ``<=`` (a number, or a date:
``[due:<2025-01-01]``), and ``-[status:done]`` (no value of the note matches).  A list property
matches when any of its values does (``[tags:book]``).  Names are compared without case, as
Obsidian does.  A date compares as the period it names: ``[due:>2024-06]`` is from July 2024 on,
``[due:2024-03]`` within March, ``[due:<=2024]`` up to the end of 2024.

Each filter is the set of notes with a matching value (:meth:`PropertyFilter.ids_sql`), read from
the typed rows the index keeps (``note_props``, :mod:`explorer.vault.properties`): one set of the
query's restriction (:mod:`explorer.search.query.restriction`), which every list applies, as it
applies ``tag:`` and ``path:``.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

from explorer.errors import UserError
from explorer.search.query.quoting import unquoted
from explorer.vault.properties import parse_date_text, property_key

#: A ``[...]`` token (a ``-`` before it negates).
TOKEN = r'-?\[[^\[\]"]*(?:"[^"]*"[^\[\]"]*)*\]'
#: A name (quoted, or up to the first ``:``), then ``:``, a comparison and a value.
_BODY = re.compile(
    r'\A\s*("(?:[^"]|"")*"|[^:"]+?)\s*(?::\s*(>=|<=|>|<|=)?\s*(.*?)\s*)?\Z', re.DOTALL
)
_QUOTED = re.compile(r'"(?:[^"]|"")*"')
_NUMBER = re.compile(r"\A[+-]?(?:\d+\.?\d*|\.\d+)\Z")
_PERIOD = re.compile(r"\A(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?\Z")
#: Values that look like a date, as text (``2024-03-14…``).
_DATE_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*"
_OPS = {">": ">", ">=": ">=", "<": "<", "<=": "<="}


class NotAFilter(UserError, ValueError):
    """The brackets hold no property filter; the message says why (one line)."""


@dataclass(frozen=True, slots=True)
class PropertyFilter:
    """One ``[name]`` or ``[name:value]``, with its comparison."""

    raw: str  # as typed, brackets (and the ``-``) included
    key: str  # the name folded
    op: str  # "has", "=", ">", ">=", "<", "<="
    value: str = ""
    negative: bool = False

    @property
    def shown(self) -> str:
        """The filter as the query writes it."""
        return self.raw

    def condition(self, alias: str = "p") -> tuple[str, list[object]]:
        """SQL condition on one row of ``note_props`` as ``alias`` (its key aside)."""
        if self.op == "has":
            return "1", []
        number = float(self.value) if _NUMBER.match(self.value) else None
        period = date_period(self.value)
        parts: list[str] = []
        params: list[object] = []
        if self.op == "=":
            parts.append(f"{alias}.text = ? COLLATE NOCASE")
            params.append(self.value)
            if number is not None:
                parts.append(f"{alias}.num = ? AND NOT {alias}.text GLOB '{_DATE_GLOB}'")
                params.append(number)
            if period is not None:
                parts.append(f"({alias}.num >= ? AND {alias}.num < ? AND {alias}.text GLOB ?)")
                params.extend([period[0], period[1], _DATE_GLOB])
        else:
            if number is not None:
                parts.append(f"({alias}.num {_OPS[self.op]} ? AND NOT {alias}.text GLOB ?)")
                params.extend([number, _DATE_GLOB])
            if period is not None:
                start, end = period
                bound = {">": end, ">=": start, "<": start, "<=": end}[self.op]
                op = {">": ">=", ">=": ">=", "<": "<", "<=": "<"}[self.op]
                parts.append(f"({alias}.num {op} ? AND {alias}.text GLOB ?)")
                params.extend([bound, _DATE_GLOB])
        return "(" + " OR ".join(parts) + ")", params

    def ids_sql(self) -> tuple[str, list[object]]:
        """The ``SELECT`` of the ids of the notes with a value that matches (those the filter
        passes, or with :attr:`negative` those it removes), from the property rows alone."""
        condition, params = self.condition("p")
        inner = f"SELECT p.note_id FROM note_props p WHERE p.key = ? AND {condition}"
        return inner, [self.key, *params]


def parse_property_filter(token: str) -> PropertyFilter:
    """The filter ``token`` (``[…]`` or ``-[…]``) writes; raises :class:`NotAFilter`."""
    negative = token.startswith("-")
    inner = token[2:-1] if negative else token[1:-1]
    match = _BODY.match(inner)
    if not match or not property_key(unquoted(match.group(1))):
        raise NotAFilter("no property name")
    name, op, value = unquoted(match.group(1)), match.group(2), match.group(3)
    key = property_key(name)
    if value is None:
        return PropertyFilter(token, key, "has", negative=negative)
    if value.startswith('"'):
        if not _QUOTED.fullmatch(value):
            raise NotAFilter("a quoted value is not closed or text follows it")
        value = unquoted(value).strip()
    if not value:
        raise NotAFilter(f"no value after {op or ':'}")
    op = op or "="
    if op != "=" and not _NUMBER.match(value) and date_period(value) is None:
        raise NotAFilter(f"{op} compares a number or a date, not {value!r}")
    return PropertyFilter(token, key, op, value, negative)


def date_period(text: str) -> tuple[float, float] | None:
    """The seconds (UTC) from the start of the period ``text`` names to the start of the next:
    a year (``2024``), a month (``2024-03``), a day (``2024-03-14``), or a moment
    (``2024-03-14T10:30``: that minute or second)."""
    match = _PERIOD.match(text.strip())
    if match:
        year, month, day = match.groups()
        try:
            start = dt.datetime(int(year), int(month or 1), int(day or 1))
        except ValueError:  # 2024-13, 0000
            return None
        if day:
            days = 1
        elif month:
            days = calendar.monthrange(start.year, start.month)[1]
        else:
            days = 366 if calendar.isleap(start.year) else 365
        return _utc(start), _utc(start) + days * 86400.0  # seconds: no date after 9999 is needed
    moment = parse_date_text(text)
    if moment is None:
        return None
    step = 1 if moment.second or text.count(":") > 1 else 60
    return _utc(moment), _utc(moment) + step


def _utc(when: dt.datetime) -> float:
    return when.replace(tzinfo=dt.UTC).timestamp()
