"""``modified:`` and ``created:`` filters: a note's dates against a date or an age.

A date compares as the period it names (``modified:2024-03`` is within March 2024,
``modified:>2024-06`` from July 2024 on, ``created:<2024`` before 2024); a duration compares as an
age (``modified:<7d`` less than seven days old, ``created:>1y`` more than a year old, and
``modified:7d`` the same as ``<7d``).  Units: ``h`` hours, ``d`` days, ``w`` weeks, ``m`` months
(30 days), ``y`` years (365 days).  ``modified`` is the file's time; ``created`` is the one the
index keeps (:func:`explorer.index.store.created_of`: the frontmatter's, the file's birth, or
its first index).  Dates are read as UTC, as property dates are.

A bound beyond the times the index can hold passes what it says: ``modified:>2300`` nothing (a file
time is kept in nanoseconds, which end in 2262), ``created:>400y`` the notes created before 1627,
``modified:<999999d`` every note (:attr:`DateFilter.note` says so: the age reaches before the year
1).  No bound is ever a number SQLite cannot hold.

"Now" is given (:meth:`DateFilter.condition`'s ``now``), so that a test fixes it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from explorer.search.query.property_filter import NotAFilter, date_period

_AGE = re.compile(r"\A(\d{1,6})([hdwmy])\Z")
_UNIT = {"h": 3600, "d": 86400, "w": 7 * 86400, "m": 30 * 86400, "y": 365 * 86400}
_SPLIT = re.compile(r"\A(>=|<=|>|<|=)?(.*)\Z", re.DOTALL)
#: The unit of each field's times, per second: the file time in nanoseconds
#: (``notes.mtime_ns``), the creation time in microseconds (``note_creation.created_us``, which
#: holds any year from 1 to 9999).
PER_SECOND = {"modified": 1_000_000_000, "created": 1_000_000}
#: What SQLite's INTEGER holds.
_LOWEST, _HIGHEST = -(2**63), 2**63 - 1
#: The first moment of the year 1, in seconds since 1970.
_YEAR_ONE = -62_135_596_800
#: The comparison that passes what another one removes.
_NEGATED = {">=": "<", "<": ">="}


@dataclass(frozen=True, slots=True)
class DateFilter:
    """One ``modified:…`` or ``created:…``."""

    raw: str
    field: str  # "modified" or "created"
    op: str  # "=", ">", ">=", "<", "<="
    value: str
    #: The age in seconds (``7d``), or None for a date.
    age: int | None = None

    def condition(
        self, column: str, now: float | None = None, *, negate: bool = False
    ) -> tuple[str, list[object]]:
        """SQL condition on a time in this field's unit (``column``, never NULL,
        :data:`PER_SECOND`): it is in the range this filter passes, or with ``negate`` outside
        it (ranges either way, which an index on the column answers)."""
        if self.age is not None:
            # Older than the age: a time before now - age.
            bound = self._time(self.oldest(now))
            op = {"=": ">=", "<": ">=", "<=": ">=", ">": "<", ">=": "<"}[self.op]
            return f"{column} {_NEGATED[op] if negate else op} ?", [bound]
        period = date_period(self.value)
        assert period is not None  # parse_date_filter made sure
        start, end = (self._time(x) for x in period)
        if self.op == "=":
            if negate:
                return f"({column} < ? OR {column} >= ?)", [start, end]
            return f"({column} >= ? AND {column} < ?)", [start, end]
        bound = {">": end, ">=": start, "<": start, "<=": end}[self.op]
        op = {">": ">=", ">=": ">=", "<": "<", "<=": "<"}[self.op]
        return f"{column} {_NEGATED[op] if negate else op} ?", [bound]

    def oldest(self, now: float | None = None) -> float:
        """An age's bound: ``now`` (``None``: the clock) less the age, in seconds since 1970."""
        assert self.age is not None
        return (time.time() if now is None else now) - self.age

    def note(self, now: float | None = None) -> str | None:
        """One line when this filter reaches beyond the calendar, saying what it passes: an
        age older than the year 1 (``modified:<999999d``)."""
        if self.age is None or self.oldest(now) >= _YEAR_ONE:
            return None
        passes = "every note" if self.op in ("=", "<", "<=") else "no note"
        return f"{self.raw} reaches back before the year 1: {passes} passes it"

    def _time(self, seconds: float) -> int:
        """``seconds`` since 1970 in this field's unit, within what SQLite holds (a time
        beyond it is beyond every time the index keeps)."""
        return max(_LOWEST, min(_HIGHEST, int(seconds * PER_SECOND[self.field])))


def parse_date_filter(field: str, value: str, raw: str) -> DateFilter:
    """``modified:VALUE`` or ``created:VALUE``; raises :class:`NotAFilter`."""
    match = _SPLIT.match(value.strip())
    op, operand = (match.group(1) or "=", match.group(2).strip()) if match else ("=", "")
    if not operand:
        raise NotAFilter("no date or age")
    age = _AGE.match(operand.lower())
    if age:
        return DateFilter(raw, field, op, operand, int(age.group(1)) * _UNIT[age.group(2)])
    if date_period(operand) is None:
        raise NotAFilter(f"{operand!r} is neither a date (2024-03-14) nor an age (7d)")
    return DateFilter(raw, field, op, operand)
