"""The search settings as one frozen, validated value: :class:`SearchOptions`.

Every setting is declared once: a field of :class:`SearchOptions` with its default, and a line of
:data:`PARAMETERS` with its bounds and the words that explain it.  The core searches with a
:class:`SearchOptions`; the command line gets its options from :func:`add_arguments` and
:func:`from_args`; eval, bench and the window build theirs with :func:`dataclasses.replace`;
settings are written as ``key=value,…`` (:func:`parse`) or as JSON (:meth:`SearchOptions.to_json`,
:meth:`SearchOptions.from_json`) under the same names.  Adding a setting is a field here and a line
in :data:`PARAMETERS`.

Why the defaults are what they are (hybrid nDCG@10, ``eval --sweep`` on three judged sets:
the sample vault's 42 questions, the tldr vault's 62, SciFact train's 809 claims; README
"Figures"): the convex combination with weights 0.3 / 0.7 and a relative floor of 0.8 has the
largest smallest margin over the better single list of any setting swept, on every set:
0.870 / 0.545 / 0.726, against 0.777 / 0.501 / 0.696 for the better single list under the same
floor and 0.851 / 0.526 / 0.723 for the previous default (weighted RRF, k 10, equal weights, the
same floor; the ``rrf`` preset).  Convex sees how far a note stands above the rest of each list;
it normalises the lexical list per pass (:func:`explorer.search.fusion.convex`'s tiers), so an
error paste found verbatim keeps its place above notes that only repeat its words.  The relative
floor keeps a query's clear best match however modest its cosine and drops the vector list's
lukewarm tail, so lexical-only (blue) hits still appear.  ``k`` is RRF's and unused by convex.
The seed's ranking stays as the ``seed`` preset.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from explorer.search.query import QueryError

#: The search modes: the two lists alone, and both fused.
MODES = ("fts", "semantic", "hybrid")
#: How two lists become one: weighted Reciprocal Rank Fusion, or a convex combination of
#: normalised scores (see :mod:`explorer.search.fusion`).
FUSION_METHODS = ("rrf", "convex")


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How one search is run.  Frozen; :meth:`validate` says what is wrong in one line."""

    mode: str = "hybrid"
    fusion: str = "convex"
    k: float = 10.0
    w_fts: float = 0.3
    w_vec: float = 0.7
    depth: int = 50
    min_sim: float = 0.0
    min_rel: float = 0.8
    limit: int = 20

    def validate(self) -> SearchOptions:
        """Raise :class:`QueryError` with one line for the first bad value; else ``self``."""
        for parameter in PARAMETERS:
            parameter.check(getattr(self, parameter.name))
        return self

    def vector_floor(self, best: float) -> float:
        """The lowest cosine the vector list keeps when its best note has cosine ``best``: the
        absolute floor, or the relative one (a fraction of the best), whichever is higher."""
        return max(self.min_sim, self.min_rel * best) if best > 0 else self.min_sim

    @property
    def weights(self) -> dict[str, float]:
        """The lists' weights by list name, as :mod:`explorer.search.fusion` takes them."""
        return {"fts": self.w_fts, "vector": self.w_vec}

    def to_json(self) -> dict[str, Any]:
        """Every setting by its name (``k`` 60 rather than 60.0)."""
        return {p.name: _plain(getattr(self, p.name)) for p in PARAMETERS}

    def changed(self) -> dict[str, Any]:
        """The settings that differ from the defaults, by name: what a person chose."""
        default = SearchOptions()
        return {
            name: value
            for name, value in self.to_json().items()
            if getattr(self, name) != getattr(default, name)
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], base: SearchOptions | None = None) -> SearchOptions:
        """``base`` (default: the defaults) with the settings named in ``data``; an unknown
        name or a bad value raises :class:`QueryError`."""
        changes = {}
        for name, value in data.items():
            parameter = parameter_named(name)
            changes[name] = parameter.coerce(value)
        return replace(base or cls(), **changes).validate()


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


# ----------------------------------------------------------------------------- the parameters


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
        """``value`` (a string from a command line, or a JSON value) as this setting's type."""
        if isinstance(value, bool):
            raise QueryError(f"{self.name} must be {self.kind_name()}, got {value!r}")
        try:
            if self.kind is int and isinstance(value, str):
                return int(value.strip())
            if self.kind is int and isinstance(value, float):
                if not value.is_integer():
                    raise ValueError(value)
                return int(value)
            return self.kind(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError):
            raise QueryError(f"{self.name} must be {self.kind_name()}, got {value!r}") from None

    def check(self, value: Any) -> None:
        label = self.name.replace("_", "-")
        if self.choices:
            if value not in self.choices:
                raise QueryError(
                    f"unknown {label} {value!r}; choose one of {', '.join(self.choices)}"
                )
            return
        if isinstance(value, float) and not math.isfinite(value):
            raise QueryError(f"{label} must be a finite number, got {value:g}")
        low_ok = self.low is None or (value > self.low if self.low_open else value >= self.low)
        high_ok = self.high is None or value <= self.high
        if not (low_ok and high_ok):
            raise QueryError(f"{label} must be {self.range_text()}, got {value:g}")

    def range_text(self) -> str:
        if self.low is not None and self.high is not None:
            return f"between {self.low:g} and {self.high:g}"
        if self.low == 0:
            return "positive" if self.low_open else "0 or more"
        if self.low is not None:
            return f"{'above' if self.low_open else 'at least'} {self.low:g}"
        return f"at most {self.high:g}"  # pragma: no cover - no such parameter yet

    def kind_name(self) -> str:
        if self.choices:
            return f"one of {', '.join(self.choices)}"
        return "a whole number" if self.kind is int else "a number"


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


PARAMETERS: tuple[Parameter, ...] = (
    Parameter("mode", _text, "which lists to search", choices=MODES),
    Parameter("fusion", _text, "how the two lists are fused", choices=FUSION_METHODS),
    Parameter(
        "k", float, "RRF k: larger k flattens the difference between ranks", low=0, low_open=True
    ),
    Parameter("w_fts", float, "weight of the lexical (FTS5) list", low=0),
    Parameter("w_vec", float, "weight of the vector list", low=0),
    Parameter("depth", int, "candidates taken from each list before fusion", low=1, high=1000),
    Parameter("min_sim", float, "similarity floor of the vector list (cosine)", low=-1, high=1),
    Parameter(
        "min_rel",
        float,
        "relative floor of the vector list: the fraction of the query's best cosine a note needs",
        low=0,
        high=1,
    ),
    Parameter("limit", int, "hits to show", low=1, high=100),
)
#: The settings that decide a ranking (``limit`` only cuts it): what the window's fusion
#: controls edit, what a comparison or a sweep varies.
RANKING = tuple(p.name for p in PARAMETERS if p.name != "limit")


#: Named settings a person can start from (``--preset``, ``preset=…``, the window's preset menu).
#: ``seed`` is the seed web app's ranking, kept as it was: weighted RRF and no similarity floor;
#: ``rrf`` ranks only by ranks (weighted RRF, k 10, equal weights, the default's floor: the
#: default before convex normalised the lexical passes); ``rrf-floor`` the defaults before the
#: natural-questions measurements (the seed's RRF with an absolute floor of 0.3).
PRESETS: dict[str, SearchOptions] = {
    "default": SearchOptions(),
    "seed": SearchOptions(fusion="rrf", k=60.0, w_fts=0.7, w_vec=0.3, min_sim=0.0, min_rel=0.0),
    "rrf": SearchOptions(fusion="rrf", k=10.0, w_fts=0.5, w_vec=0.5, min_sim=0.0, min_rel=0.8),
    "rrf-floor": SearchOptions(
        fusion="rrf", k=60.0, w_fts=0.7, w_vec=0.3, min_sim=0.3, min_rel=0.0
    ),
}


def preset(name: str) -> SearchOptions:
    try:
        return PRESETS[name.strip()]
    except KeyError:
        raise QueryError(
            f"unknown preset {name.strip()!r}; choose one of {', '.join(PRESETS)}"
        ) from None


def with_ranking_of(options: SearchOptions, chosen: SearchOptions) -> SearchOptions:
    """``options`` with the ranking settings of ``chosen`` (its mode and limit kept)."""
    return replace(options, **{n: getattr(chosen, n) for n in RANKING if n != "mode"})


def deep_enough(options: SearchOptions) -> SearchOptions:
    """``options`` with lists at least as long as the hits asked for: what a search whose depth
    was not chosen uses (the default depth, or the limit if that is more)."""
    return replace(options, depth=max(options.depth, options.limit))


def parameter_named(name: str) -> Parameter:
    for parameter in PARAMETERS:
        if parameter.name == name.strip().replace("-", "_"):
            return parameter
    raise QueryError(f"unknown setting {name!r}; the settings are {', '.join(RANKING)}, limit")


def parse(text: str, base: SearchOptions | None = None) -> SearchOptions:
    """``key=value,…`` (for instance ``fusion=convex,w_fts=0.5``) over ``base``; an empty text
    is ``base`` itself.  ``preset=NAME`` puts that preset's ranking settings on ``base`` first
    (wherever it is written).  A bad entry raises :class:`QueryError` naming it."""
    changes: dict[str, Any] = {}
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        name, sep, value = entry.partition("=")
        if not sep or not name.strip():
            raise QueryError(f"{entry!r} is not key=value (settings look like k=60,w_fts=0.5)")
        if name.strip() == "preset":
            base = with_ranking_of(base or SearchOptions(), preset(value))
            continue
        changes[parameter_named(name).name] = value
    return SearchOptions.from_json(changes, base)


# ----------------------------------------------------------------------------- command lines


def add_arguments(
    parser: argparse.ArgumentParser,
    *,
    defaults: SearchOptions | None = None,
    only: Iterable[str] | None = None,
    notes: Mapping[str, str] | None = None,
) -> None:
    """Add ``--mode``, ``--fusion``, ``--k``, ``--w-fts``, … to ``parser``, one per parameter (or
    those in ``only``).  Each defaults to ``None`` (so :func:`from_args` knows what was given);
    the help shows the value used when it is not, from ``defaults``, or ``notes[name]``."""
    shown = defaults or SearchOptions()
    names = set(only) if only is not None else None
    if names is None or "preset" in names:
        parser.add_argument(
            "--preset",
            choices=tuple(PRESETS),
            default=None,
            help="start from these ranking settings; the options below change them",
        )
    for parameter in PARAMETERS:
        if names is not None and parameter.name not in names:
            continue
        note = (notes or {}).get(
            parameter.name, f"default {_plain(getattr(shown, parameter.name))}"
        )
        kwargs: dict[str, Any] = {
            "dest": parameter.name,
            "default": None,
            "help": f"{parameter.help} ({note})",
        }
        if parameter.choices:
            kwargs["choices"] = parameter.choices
        else:
            kwargs["type"] = _argparse_type(parameter)
            kwargs["metavar"] = "N" if parameter.kind is int else "X"
        parser.add_argument(parameter.flag, **kwargs)


def _argparse_type(parameter: Parameter) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            value = parameter.coerce(text)
        except QueryError:
            raise argparse.ArgumentTypeError(f"not {parameter.kind_name()}: {text!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        return value

    convert.__name__ = parameter.name  # argparse names the type in its messages
    return convert


def from_args(args: argparse.Namespace, base: SearchOptions | None = None) -> SearchOptions:
    """``base`` with the options given on the command line (those :func:`add_arguments` added
    and the user typed); not validated, so the caller decides when to say what is wrong."""
    given = {
        p.name: getattr(args, p.name) for p in PARAMETERS if getattr(args, p.name, None) is not None
    }
    start = base or SearchOptions()
    if getattr(args, "preset", None) is not None:
        start = with_ranking_of(start, preset(args.preset))
    return replace(start, **given)
