"""One search setting as a value: its field name, its type, the values it takes and what it
means (:class:`Parameter`), and how a bad value is said, whatever it is (:func:`number_text`).
The settings themselves are :data:`explorer.search.query.options.PARAMETERS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from explorer.search.query.query import QueryError


def _bound(value: float | None) -> str:
    return "" if value is None else str(plain(float(value)))


def plain(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


@dataclass(frozen=True, slots=True)
class Parameter:
    """One setting: its field name, its type, the values it takes and what it means."""

    name: str
    kind: Callable[[Any], Any]
    help: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # ``low`` itself is not allowed (k must be above 0)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def coerce(self, value: Any) -> Any:
        """``value`` (a string from a command line, or a JSON value) as this setting's type.

        A number too large for a float (a 400-digit integer) is refused here, in one line,
        before anything converts or formats it."""
        if isinstance(value, bool):
            raise QueryError(f"{self.name} must be {self.kind_name()}, got {number_text(value)}")
        if isinstance(value, str) and len(value.strip()) > MAX_NUMBER_TEXT and not self.choices:
            raise QueryError(
                f"{self.name} must be {self.range_text() if self.bounded else self.kind_name()}, "
                f"got {number_text(value)}"
            )
        try:
            if self.kind is int and isinstance(value, str):
                return int(value.strip())
            if self.kind is int and isinstance(value, float):
                if not value.is_integer():
                    raise ValueError(value)
                return int(value)
            return self.kind(value.strip() if isinstance(value, str) else value)
        except OverflowError:
            raise QueryError(
                f"{self.name} must be {self.range_text() if self.bounded else 'a finite number'}, "
                f"got {number_text(value)}"
            ) from None
        except (TypeError, ValueError):
            raise QueryError(
                f"{self.name} must be {self.kind_name()}, got {number_text(value)}"
            ) from None

    def check(self, value: Any) -> None:
        label = self.name.replace("_", "-")
        if self.choices:
            if value not in self.choices:
                raise QueryError(
                    f"unknown {label} {value!r}; choose one of {', '.join(self.choices)}"
                )
            return
        if isinstance(value, float) and not math.isfinite(value):
            raise QueryError(f"{label} must be a finite number, got {number_text(value)}")
        low_ok = self.low is None or (value > self.low if self.low_open else value >= self.low)
        high_ok = self.high is None or value <= self.high
        if not (low_ok and high_ok):
            raise QueryError(f"{label} must be {self.range_text()}, got {number_text(value)}")

    @property
    def bounded(self) -> bool:
        return self.low is not None or self.high is not None

    def range_text(self) -> str:
        low, high = _bound(self.low), _bound(self.high)
        if self.low == 0 and self.low_open and high:
            return f"positive and at most {high}"
        if low and high:
            return f"between {low} and {high}"
        if self.low == 0:
            return "positive" if self.low_open else "0 or more"
        if low:
            return f"{'above' if self.low_open else 'at least'} {low}"
        return f"at most {high}"  # pragma: no cover - no such parameter yet

    def kind_name(self) -> str:
        if self.choices:
            return f"one of {', '.join(self.choices)}"
        return "a whole number" if self.kind is int else "a number"


#: The longest number a setting is typed as (``1e-05``, ``0.123456789012``); a longer text is
#: refused before it is converted, so no setting ever parses or formats a 400-digit integer.
MAX_NUMBER_TEXT = 32


def number_text(value: Any) -> str:
    """``value`` for an error message, whatever it is: ``0.5``, ``'abc'``, ``inf``, or the start
    of a number too long to show (``1000000… (401 digits)``) — never an ``OverflowError``."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        digits = len(str(abs(value))) if abs(value) < 10**MAX_NUMBER_TEXT else None
        if digits is not None:
            return str(value)
        text = str(value) if value.bit_length() < 14_000 else ""  # str() of more digits raises
        return f"{text[:8]}… ({len(text)} digits)" if text else "a number of over 4,000 digits"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str) and len(value) > MAX_NUMBER_TEXT:
        return f"{value[:8]!r}… ({len(value)} characters)"
    return repr(value)


def text_value(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value
