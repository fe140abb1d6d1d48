"""Tuning on judged queries: every fusion setting of a grid scored from one run's cached lists.

An evaluation runs each query once, with both lists fetched without a similarity floor and as
deep as the depth (:func:`explorer.search.fusion.cached.fetch_options`).  Every point of a sweep is
then pure arithmetic over those lists: the point's floors cut the vector list
(:func:`~explorer.search.fusion.cached.with_floor`), :func:`~explorer.search.fusion.fusion.ranked`
ranks, the metrics score, and no model or database is touched.  So a sweep of a hundred settings
costs one evaluation plus a hundred fusions per query.

A grid is written ``name=values;name=values``: ``values`` is a comma-separated list or
``start:stop:step`` (both ends included).  ``weight`` is the lexical list's share: ``w_fts`` is
the value and ``w_vec`` one minus it.  Any ranking setting can be an axis (``fusion``, ``k``,
``min_sim``, ``min_rel``, ``depth``, ``w_fts``, ``w_vec``); ``k`` only shapes RRF, so convex points
that differ only in ``k`` are scored once.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from explorer.evaluate.metrics import evaluate_run
from explorer.search.fusion.cached import with_floor
from explorer.search.fusion.fusion import ranked
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import RANKING, Fusion, Mode, SearchOptions, parameter_named
from explorer.search.query.query import QueryError

#: The grid of ``eval --sweep`` without a value: both methods, a few k, the weight in tenths.
DEFAULT_GRID = "fusion=rrf,convex;k=20,40,60,100;weight=0:1:0.1"
#: The metric a sweep ranks its points by, and the cutoff of the chart.
OBJECTIVE = "ndcg@10"
#: Grids larger than this are refused (a typo in a step can ask for millions of points).
MAX_POINTS = 5000
#: The one axis that is not a setting: the lexical share of the weights.
WEIGHT = "weight"


@dataclass(frozen=True, slots=True)
class Axis:
    name: str
    values: tuple[Any, ...]


def parse_grid(text: str) -> tuple[Axis, ...]:
    """``fusion=rrf,convex;k=20,60;weight=0:1:0.1`` as axes; a bad grid raises
    :class:`QueryError` in one line."""
    axes: list[Axis] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        name, sep, values = part.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not values.strip():
            raise QueryError(f"sweep axis {part!r} needs name=values")
        if (name != WEIGHT and name not in RANKING) or name == "mode":
            raise QueryError(
                f"unknown sweep axis {name!r}; choose from {WEIGHT}, "
                + ", ".join(n for n in RANKING if n != "mode")
            )
        if any(a.name == name for a in axes):
            raise QueryError(f"sweep axis {name!r} is given twice")
        axes.append(Axis(name, _values(name, values.strip())))
    if not axes:
        raise QueryError("an empty sweep grid")
    if any(a.name == WEIGHT for a in axes) and any(a.name in ("w_fts", "w_vec") for a in axes):
        raise QueryError("sweep either weight or w_fts/w_vec, not both")
    size = math.prod(len(a.values) for a in axes)
    if size > MAX_POINTS:
        raise QueryError(f"the sweep grid has {size} points; at most {MAX_POINTS}")
    return tuple(axes)


def _values(name: str, text: str) -> tuple[Any, ...]:
    values = _raw_values(name, text)
    if name != WEIGHT:
        for value in values:  # each value on its own (convex points ignore k, say, but k=0 is
            parameter_named(name).check(value)  # still no k)
    return values


def _raw_values(name: str, text: str) -> tuple[Any, ...]:
    coerce = float if name == WEIGHT else parameter_named(name).coerce
    if text.count(":") == 2:
        start, stop, step = (_number(name, t) for t in text.split(":"))
        if step <= 0 or stop < start:
            raise QueryError(f"sweep axis {name}: start:stop:step needs step > 0 and stop ≥ start")
        count = math.floor((stop - start) / step + 1e-9) + 1
        if count > MAX_POINTS:
            raise QueryError(f"sweep axis {name} has {count} values; at most {MAX_POINTS}")
        return tuple(coerce(round(start + i * step, 10)) for i in range(count))
    values = []
    for item in (t.strip() for t in text.split(",")):
        if item:
            values.append(coerce(_number(name, item) if name == WEIGHT else item))
    return tuple(dict.fromkeys(values))


def _number(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise QueryError(f"sweep axis {name}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise QueryError(f"sweep axis {name}: {text.strip()!r} is not a finite number")
    return value


def grid(base: SearchOptions, axes: Sequence[Axis]) -> list[SearchOptions]:
    """Every combination of the axes' values over ``base``, validated, duplicates dropped
    (convex ignores ``k``: it keeps the base's)."""
    points: dict[SearchOptions, None] = {}
    for combo in itertools.product(*(a.values for a in axes)):
        changes: dict[str, Any] = {}
        for axis, value in zip(axes, combo, strict=True):
            if axis.name == WEIGHT:
                if not 0 <= value <= 1:
                    raise QueryError(f"sweep weight must be between 0 and 1, got {value:g}")
                changes["w_fts"] = round(value, 10)
                changes["w_vec"] = round(1 - value, 10)
            else:
                changes[axis.name] = value
        options = replace(base, **changes)
        if options.fusion == Fusion.CONVEX:
            options = replace(options, k=base.k)
        points[options.validate()] = None
    return list(points)


def share(options: SearchOptions) -> float:
    """The lexical list's share of the weights (the ``weight`` axis, the chart's x)."""
    total = options.w_fts + options.w_vec
    return options.w_fts / total if total > 0 else 0.5


@dataclass(frozen=True, slots=True)
class SweepPoint:
    options: SearchOptions
    metrics: dict[str, float]  # of hybrid
    #: The objective of each single list under this point's floors and depth: what hybrid
    #: must beat to be worth fusing.
    singles: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": self.options.to_json(),
            "metrics": {name: round(value, 4) for name, value in self.metrics.items()},
            "singles": {mode: round(value, 4) for mode, value in self.singles.items()},
        }


@dataclass(frozen=True, slots=True)
class Sweep:
    """Every point's hybrid metrics, and the single lists' for reference."""

    points: list[SweepPoint]
    singles: dict[str, dict[str, float]]  # mode -> metrics, under the base's floors and depth
    base: SearchOptions
    queries: int
    seconds: float

    @property
    def best(self) -> SweepPoint:
        """The point with the highest objective; ties go to the earliest in grid order."""
        return max(self.points, key=lambda p: p.metrics[OBJECTIVE])

    def point(self, options: SearchOptions) -> SweepPoint | None:
        return next((p for p in self.points if p.options == options), None)

    def series(self) -> dict[str, list[tuple[float, float]]]:
        """Per method (and k for RRF, and floors when they vary): (lexical share, objective)
        points, by share ascending: what the chart draws."""
        out: dict[str, list[tuple[float, float]]] = {}
        floors = {(p.options.min_sim, p.options.min_rel, p.options.depth) for p in self.points}
        for p in self.points:
            o = p.options
            label = "RRF k=" + format(o.k, "g") if o.fusion == Fusion.RRF else "convex"
            if len(floors) > 1:
                label += f" (min-sim {o.min_sim:g}, min-rel {o.min_rel:g}, depth {o.depth})"
            out.setdefault(label, []).append((share(o), p.metrics[OBJECTIVE]))
        for values in out.values():
            values.sort()
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "objective": OBJECTIVE,
            "queries": self.queries,
            "seconds": round(self.seconds, 3),
            "base": self.base.to_json(),
            "best": self.best.to_json(),
            "singles": {
                mode: {name: round(value, 4) for name, value in metrics.items()}
                for mode, metrics in self.singles.items()
            },
            "points": [p.to_json() for p in self.points],
        }


def _score(
    candidates: Mapping[str, Candidates],
    qrels: Mapping[str, Mapping[str, int]],
    options: SearchOptions,
    to_doc: Callable[[str], str] | None,
    ks: Sequence[int],
    cutoff: int,
) -> dict[str, float]:
    run: dict[str, list[str]] = {}
    for qid, found in candidates.items():
        paths = ranked(with_floor(found, options), options)
        run[qid] = [to_doc(path) for path in paths] if to_doc else paths
    return evaluate_run(run, {q: qrels[q] for q in candidates}, ks, cutoff)


def sweep(
    candidates: Mapping[str, Candidates],
    qrels: Mapping[str, Mapping[str, int]],
    base: SearchOptions,
    axes: Sequence[Axis],
    *,
    to_doc: Callable[[str], str] | None = None,
    ks: Sequence[int] = (1, 3, 10, 100),
    cutoff: int = 10,
    progress: Callable[..., None] | None = None,
) -> Sweep:
    """Score hybrid at every point of the grid, from ``candidates`` fetched floor-free.

    ``candidates`` must have been fetched with :func:`explorer.search.fusion.cached.fetch_options`
    of options at least as deep as every point (as :func:`explorer.evaluate.runner.evaluate` does).
    """
    started = time.perf_counter()
    points = grid(replace(base, mode=Mode.HYBRID), axes)
    deepest = min((c.depth for c in candidates.values()), default=0)
    if candidates and any(p.depth > deepest for p in points):
        raise QueryError(f"the sweep asks for a depth above the {deepest} fetched")
    single_cache: dict[SearchOptions, dict[str, float]] = {}

    def single(options: SearchOptions, mode: Mode) -> dict[str, float]:
        # A single list depends only on the floors and the depth, not on the fusion.
        key = replace(
            SearchOptions(),
            mode=mode,
            min_sim=options.min_sim,
            min_rel=options.min_rel,
            depth=options.depth,
        )
        if key not in single_cache:
            single_cache[key] = _score(candidates, qrels, key, to_doc, ks, cutoff)
        return single_cache[key]

    scored = []
    for done, options in enumerate(points, start=1):
        metrics = _score(candidates, qrels, options, to_doc, ks, cutoff)
        singles = {str(m): single(options, m)[OBJECTIVE] for m in (Mode.FTS, Mode.SEMANTIC)}
        scored.append(SweepPoint(options, metrics, singles))
        if progress is not None:
            progress("sweep", done, len(points), "")
    base_singles = {str(m): single(base, m) for m in (Mode.FTS, Mode.SEMANTIC)}
    return Sweep(scored, base_singles, base, len(candidates), time.perf_counter() - started)


def score_setting(
    swept: Sweep,
    candidates: Mapping[str, Candidates],
    qrels: Mapping[str, Mapping[str, int]],
    options: SearchOptions,
) -> SweepPoint:
    """``options`` (as Hybrid) scored: its point of ``swept`` when the grid has it, else scored
    from the same ``candidates`` (one fusion per query, no new search)."""
    options = replace(options, mode=Mode.HYBRID)
    return swept.point(options) or sweep(candidates, qrels, options, ()).points[0]


def format_sweep(result: Sweep, top: int = 10) -> str:
    """The best points as a table, the base setting's place, and the single lists."""
    lines = [
        f"sweep: {len(result.points)} settings over {result.queries} queries "
        f"in {result.seconds:.2f}s (hybrid {OBJECTIVE}, best first)"
    ]
    ranked = sorted(enumerate(result.points), key=lambda ip: (-ip[1].metrics[OBJECTIVE], ip[0]))
    lines.append(f"  {'#':>3}  {'nDCG@10':>7}  {'MRR@10':>6}  {'R@10':>5}  {'vs best':>7}  setting")
    base = replace(result.base, mode=Mode.HYBRID)
    for place, (_, p) in enumerate(ranked[:top], start=1):
        lines.append(_row(place, p, p.options == base))
    where = next((i for i, (_, p) in enumerate(ranked, start=1) if p.options == base), None)
    if where is not None and where > top:
        lines.append(_row(where, ranked[where - 1][1], True))
    lines.append("  (vs best: hybrid minus the better single list under the same floors)")
    for mode, metrics in result.singles.items():
        lines.append(f"  {mode:>9} alone {OBJECTIVE} {metrics[OBJECTIVE]:.4f} (the given floors)")
    lines.append(f"best: {describe(result.best.options)}")
    return "\n".join(lines)


def _row(place: int, p: SweepPoint, current: bool) -> str:
    m = p.metrics
    mark = "  ← the settings given" if current else ""
    margin = m[OBJECTIVE] - max(p.singles.values())
    return (
        f"  {place:>3}  {m[OBJECTIVE]:.4f}  {m['mrr@10']:.4f}  {m['recall@10']:.3f}  "
        f"{margin:+.4f}  {describe(p.options)}{mark}"
    )


def describe(options: SearchOptions) -> str:
    """A point as the ``key=value,…`` settings string :func:`explorer.search.query.options.parse`
    reads back (``--set`` on the command line, the window's settings)."""
    o = options.to_json()
    keys = ["fusion", *(["k"] if options.fusion == Fusion.RRF else []), "w_fts", "w_vec"]
    keys += ["min_sim", "min_rel", "depth"]
    return ",".join(f"{key}={o[key]:g}" if key != "fusion" else f"fusion={o[key]}" for key in keys)
