"""The search settings as one frozen, validated value: :class:`SearchOptions`.

Every setting is declared once: a field of :class:`SearchOptions` with its default, and a line of
:data:`PARAMETERS` with its bounds and the words that explain it.  The core searches with a
:class:`SearchOptions`; the command line gets its options from :func:`add_arguments` and
:func:`from_args`; eval, bench and the window build theirs with :func:`dataclasses.replace`;
settings are written as ``key=value,…`` (:func:`parse`) or as JSON (:meth:`SearchOptions.to_json`,
:meth:`SearchOptions.from_json`) under the same names.  Adding a setting is a field here and a line
in :data:`PARAMETERS`.

Why the defaults are what they are: the ``calibrated`` fusion
(:mod:`explorer.search.fusion.evidence`) turns each list's scores into evidence that means the same
across queries (a cosine measured against this query's spread over the vault, a lexical hit by its
pass and its coverage of the query's words, each word weighed by its rarity in the vault) and fuses
it as a noisy-OR, so a weak match stays weak and "no close match" can be said.  Its constants and
the lexical weight 0.7 were chosen on the dev halves of four judged sets (the sample vault's
questions, the tldr questions, SciFact train's claims, the Anki manual's natural questions) by the
worst margin over the better of each set's single lists and the ``convex`` preset, and are reported
on their test halves (docs/figures.md; ``benchmarks/calibrate.py report --choose``).  No similarity
floor: the evidence of a lukewarm cosine is small already.  ``k`` is RRF's and unused by the
other methods.  The previous default (convex, 0.3 / 0.7, relative floor 0.8) is the ``convex``
preset; the seed's ranking the ``seed`` preset.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from explorer.search.query.parameter import Parameter, number_text, plain, text_value
from explorer.search.query.query import QueryError

#: The most hits one search shows.
MAX_LIMIT = 100


class Mode(StrEnum):
    """The search modes: the two lists alone, and both fused."""

    FTS = "fts"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


class Fusion(StrEnum):
    """How two lists become one: weighted Reciprocal Rank Fusion, a convex combination of
    normalised scores, or calibrated evidence as a noisy-OR (see
    :mod:`explorer.search.fusion.fusion`)."""

    RRF = "rrf"
    CONVEX = "convex"
    CALIBRATED = "calibrated"


MODES = tuple(Mode)
FUSION_METHODS = tuple(Fusion)


#: The calibrated fusion adds each list's ``weight × evidence`` as a probability: a weight above
#: 1 would push strong evidence past 1, where every such note scores 1 and ties.
CALIBRATED_MAX_WEIGHT = 1.0
#: RRF's k when none is chosen.
DEFAULT_K = 10.0


class Scored(Protocol):
    """An entry of a ranked vector list: a note's cosine."""

    @property
    def score(self) -> float: ...


_Scored = TypeVar("_Scored", bound=Scored)


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How one search is run.  Frozen; :meth:`validate` says what is wrong in one line."""

    mode: Mode = Mode.HYBRID
    fusion: Fusion = Fusion.CALIBRATED
    k: float = DEFAULT_K
    w_fts: float = 0.7
    w_vec: float = 1.0
    depth: int = 50
    min_sim: float = 0.0
    min_rel: float = 0.0
    limit: int = 20
    #: The weight of the recency prior (:func:`explorer.search.fusion.recency.recency_prior`): a
    #: third contribution beside the two lists', larger the more recently a note was modified; 0
    #: (the default) leaves it out.
    recency: float = 0.0
    #: The days after which a note's recency halves.
    half_life: float = 30.0
    #: The order of the hits shown (:mod:`explorer.search.fusion.order`): the fused ranking cut to
    #: the limit, then by this.
    sort: str = "relevance"

    def __post_init__(self) -> None:
        # A mode or a method given by its name is the member of that name; any other value is
        # left for :meth:`validate` to name.
        for name, kind in (("mode", Mode), ("fusion", Fusion)):
            value = getattr(self, name)
            if isinstance(value, str) and not isinstance(value, kind):
                member = kind._value2member_map_.get(value)
                if member is not None:
                    object.__setattr__(self, name, member)

    def validate(self) -> SearchOptions:
        """Raise :class:`QueryError` with one line for the first bad value; else ``self``."""
        for parameter in PARAMETERS:
            parameter.check(getattr(self, parameter.name))
        if self.fusion == Fusion.CALIBRATED and self.mode == Mode.HYBRID:
            for name in ("w_fts", "w_vec"):
                if getattr(self, name) > CALIBRATED_MAX_WEIGHT:
                    raise QueryError(
                        f"{name.replace('_', '-')} must be between 0 and 1 under the calibrated "
                        f"fusion, got {number_text(getattr(self, name))} (a weight is the share "
                        "of a list's evidence to believe; above 1 every score saturates at 1)"
                    )
        return self

    def in_effect(self) -> SearchOptions:
        """The settings as they rank: a mode with one list fuses nothing, so its hits are that
        list's, in its order, scored by their calibrated evidence at full weight; the fusion,
        ``k`` and the weights are then the calibrated fusion's at weight 1, whatever was given
        (:func:`ignored` says so to whoever gave them)."""
        if self.mode == Mode.HYBRID:
            return self
        return replace(self, fusion=Fusion.CALIBRATED, k=DEFAULT_K, w_fts=1.0, w_vec=1.0)

    def vector_floor(self, best: float) -> float:
        """The lowest cosine the vector list keeps when its best note has cosine ``best``: the
        absolute floor, or the relative one (a fraction of the best), whichever is higher."""
        return max(self.min_sim, self.min_rel * best) if best > 0 else self.min_sim

    def above_floor(self, best_first: Sequence[_Scored]) -> list[_Scored]:
        """The head of a best-first vector list that the floors keep (:meth:`vector_floor` of
        its best score): the one place the floor is applied, by a search's vector list, by a
        re-fusion of lists fetched without it, and by ``explain``."""
        if not best_first:
            return []
        floor = self.vector_floor(best_first[0].score)
        return [item for item in best_first if item.score >= floor]

    @property
    def weights(self) -> dict[str, float]:
        """The lists' weights by list name, as :mod:`explorer.search.fusion.fusion` takes them."""
        return {"fts": self.w_fts, "vector": self.w_vec}

    def to_json(self) -> dict[str, Any]:
        """Every setting by its name (``k`` 60 rather than 60.0)."""
        return {p.name: plain(getattr(self, p.name)) for p in PARAMETERS}

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


# ----------------------------------------------------------------------------- the parameters


PARAMETERS: tuple[Parameter, ...] = (
    # Choices as plain text: what argparse, the MCP schema and the messages show.
    Parameter("mode", text_value, "which lists to search", choices=tuple(m.value for m in Mode)),
    Parameter(
        "fusion", text_value, "how the two lists are fused", choices=tuple(f.value for f in Fusion)
    ),
    Parameter(
        "k",
        float,
        "RRF k: larger k flattens the difference between ranks",
        low=0,
        low_open=True,
        high=1_000_000,
    ),
    Parameter("w_fts", float, "weight of the lexical (FTS5) list", low=0, high=1000),
    Parameter("w_vec", float, "weight of the vector list", low=0, high=1000),
    Parameter("depth", int, "candidates taken from each list before fusion", low=1, high=1000),
    Parameter("min_sim", float, "similarity floor of the vector list (cosine)", low=-1, high=1),
    Parameter(
        "min_rel",
        float,
        "relative floor of the vector list: the fraction of the query's best cosine a note needs",
        low=0,
        high=1,
    ),
    Parameter("limit", int, "hits to show", low=1, high=MAX_LIMIT),
    Parameter(
        "recency",
        float,
        "weight of the recency prior: a third contribution, ½ every half-life since a note was "
        "modified (0: off)",
        low=0,
        high=1,
    ),
    Parameter(
        "half_life",
        float,
        "days after which the recency prior of a note halves",
        low=0,
        low_open=True,
        high=100_000,
    ),
    Parameter(
        "sort",
        text_value,
        "order of the hits shown: the fused ranking (relevance), or by date, title or path",
        choices=("relevance", "modified", "created", "title", "path"),
    ),
)
#: The settings that decide a ranking (``limit`` only cuts it, ``sort`` only orders what is
#: shown): what the window's fusion controls edit, what a comparison or a sweep varies.
RANKING = tuple(p.name for p in PARAMETERS if p.name not in ("limit", "sort"))


#: Named settings a person can start from (``--preset``, ``preset=…``, the window's preset menu).
#: ``convex`` is the default before calibrated evidence (convex 0.3 / 0.7, relative floor 0.8);
#: ``seed`` is the seed web app's ranking, kept as it was: weighted RRF and no similarity floor;
#: ``rrf`` ranks only by ranks (weighted RRF, k 10, equal weights, relative floor 0.8);
#: ``rrf-floor`` the seed's RRF with an absolute floor of 0.3 (the first defaults).
PRESETS: dict[str, SearchOptions] = {
    "default": SearchOptions(),
    "convex": SearchOptions(fusion=Fusion.CONVEX, w_fts=0.3, w_vec=0.7, min_sim=0.0, min_rel=0.8),
    "seed": SearchOptions(
        fusion=Fusion.RRF, k=60.0, w_fts=0.7, w_vec=0.3, min_sim=0.0, min_rel=0.0
    ),
    "rrf": SearchOptions(fusion=Fusion.RRF, k=10.0, w_fts=0.5, w_vec=0.5, min_sim=0.0, min_rel=0.8),
    "rrf-floor": SearchOptions(
        fusion=Fusion.RRF, k=60.0, w_fts=0.7, w_vec=0.3, min_sim=0.3, min_rel=0.0
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
        note = (notes or {}).get(parameter.name, f"default {plain(getattr(shown, parameter.name))}")
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
        except QueryError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {number_text(text)}")
        return value

    convert.__name__ = parameter.name  # argparse names the type in its messages
    return convert


def ignored(options: SearchOptions, given: Iterable[str]) -> list[str]:
    """One line for each setting in ``given`` that ``options`` make no use of (``k`` under a
    fusion other than RRF, the vector list's settings in lexical mode, …): a flag that does
    nothing is said, not silently accepted."""
    unused: dict[str, str] = {}
    if options.mode != Mode.HYBRID:
        unused |= dict.fromkeys(
            ("fusion", "k", "w_fts", "w_vec"),
            f"{options.mode} mode has one list and fuses nothing (its hits are scored by their "
            "calibrated evidence)",
        )
    elif options.fusion != Fusion.RRF:
        unused["k"] = f"the {options.fusion} fusion does not use RRF's k"
    if options.mode == Mode.FTS:
        unused |= dict.fromkeys(("min_sim", "min_rel"), "fts mode has no vector list")
    if options.recency == 0:
        unused["half_life"] = "the recency prior is off (--recency 0)"
    return [
        f"{parameter_named(name).flag} is ignored: {unused[name]}"
        for name in given
        if name in unused
    ]


def given_names(args: argparse.Namespace) -> list[str]:
    """The settings typed on a command line parsed with :func:`add_arguments`."""
    return [p.name for p in PARAMETERS if getattr(args, p.name, None) is not None]


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
