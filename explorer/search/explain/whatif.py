"""What fusion setting would bring a note into the top N: :func:`changes_for`.

The lists stay as they are (the depth and the floor decide them, not the fusion), so a note's
fused score is a function of one setting with the others fixed, and so is every other note's.
Weighted RRF, ``w_fts/(k + r_fts) + w_vec/(k + r_vec)``, is linear in each weight: two notes
swap places at the one weight where their sums are equal, ``w = -(other part's difference) /
(this part's difference)``.  In ``k`` the difference of two sums, times the product of their
denominators, is a polynomial of degree three at most; its positive real roots are where they
swap.  The convex combination, ``w_fts·norm_fts + w_vec·norm_vec``, is linear in each weight
as well (the normalisation does not depend on the weights), so it is solved the same way, and
exactly: no grid is needed.  Between two consecutive crossings the note's rank is constant, so
evaluating it once per interval and at each crossing gives every rank the setting can reach;
the nearest value to the current one where the rank is within N is the answer.  Ties are
broken as the fusion breaks them (path ascending), and stale notes compete only among
themselves, after every other note.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.polynomial import polynomial as poly

from explorer.search.fusion import fusion
from explorer.search.fusion.fusion import CONVEX_LOWER_BOUNDS
from explorer.search.query.options import CALIBRATED_MAX_WEIGHT, Fusion, SearchOptions

Array = npt.NDArray[np.float64]
#: Scores this close (relative) are equal: the tie is broken by path, as the fusion does.  A
#: change is proposed only where the note is ahead of each rival by more than this, so that
#: no machine's rounding of the same sums can put a rival back in front of it.
_TIE = 1e-12


@dataclass(frozen=True, slots=True)
class Competition:
    """The fused list a note is in, as :mod:`explorer.search.explain.explain` found it."""

    path: str
    rank: int | None
    scored: Mapping[str, Sequence[tuple[str, float]]]  # the lists fused, best first
    ranks: Mapping[str, Mapping[str, int | None]]  # each fused note's rank per list
    stale: Mapping[str, bool]
    single_list: bool
    tiers: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # convex's, per list
    #: The calibrated fusion's evidence per list and note (:mod:`explorer.search.fusion.evidence`).
    evidence: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Change:
    """One way (or the lack of one) to bring the note into the top N."""

    setting: str | None  # "w_fts", "w_vec", "k"; None when no setting is concerned
    possible: bool
    current: float | None = None
    threshold: float | None = None  # where the note's rank crosses into the top N
    value: float | None = None  # a value that does it (rounded where a round one does)
    direction: str | None = None  # "raise" or "lower"
    rank: int | None = None  # the note's rank at ``value`` (or now, when already shown)
    note: str = ""
    code: str = "change"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def changes_for(competition: Competition, options: SearchOptions, top: int) -> list[Change]:
    """The smallest change of each fusion setting (the others fixed) that brings the note into
    the top ``top``; or why none does."""
    c = competition
    if c.rank is None:
        return [Change(None, False, note="it is in neither list: no fusion setting can rank it")]
    if c.rank <= top:
        return [Change(None, True, rank=c.rank, note=f"already shown at rank {c.rank}")]
    stale = c.stale.get(c.path, False)
    ahead = sum(1 for s in c.stale.values() if not s) if stale else 0
    if stale and ahead >= top:
        return [
            Change(
                None,
                False,
                note=f"it is stale: stale notes come after the {ahead} others, "
                f"so no fusion setting brings it into the top {top}",
            )
        ]
    if c.single_list:
        return [Change(None, False, note="one list is fused: its order is that list's")]
    rivals = [p for p, s in c.stale.items() if s == stale and p != c.path]
    field = _Field(c, rivals, ahead, options, top)
    out = []
    for setting in ("w_fts", "w_vec", "k") if options.fusion == Fusion.RRF else ("w_fts", "w_vec"):
        out.append(field.solve(setting))
    return out


class _Field:
    """The note (column 0) and its rivals, with what each list gives them."""

    def __init__(
        self,
        c: Competition,
        rivals: list[str],
        ahead: int,
        options: SearchOptions,
        top: int,
    ) -> None:
        self.options = options
        self.top = top
        self.ahead = ahead
        ids = [c.path, *rivals]
        self.before = np.array([r < c.path for r in rivals], dtype=bool)  # wins a tie
        if options.fusion == Fusion.CALIBRATED:
            self.norm = {
                name: np.array(
                    [c.evidence.get(name, {}).get(i, 0.0) for i in ids], dtype=np.float64
                )
                for name in ("fts", "vector", "title")
            }
        elif options.fusion == Fusion.CONVEX:
            norms = fusion.convex(
                c.scored,
                {"fts": 1.0, "vector": 1.0},
                lower_bounds=CONVEX_LOWER_BOUNDS,
                tiers=c.tiers,
            )
            by_id = {f.id: f.contributions for f in norms}
            self.norm = {
                name: np.array([by_id[i].get(name, 0.0) for i in ids], dtype=np.float64)
                for name in ("fts", "vector")
            }
        else:
            self.rank = {
                name: np.array(
                    [_or_inf(c.ranks[i].get(name)) for i in ids],
                    dtype=np.float64,
                )
                for name in ("fts", "vector")
            }

    # ------------------------------------------------------------------ scores

    def scores(self, setting: str, values: Array) -> Array:
        """Every note's fused score (columns) at each value of ``setting`` (rows)."""
        o = self.options
        t = values.reshape(-1, 1)
        w_fts = t if setting == "w_fts" else o.w_fts
        w_vec = t if setting == "w_vec" else o.w_vec
        if o.fusion == Fusion.CALIBRATED:
            a = np.clip(w_fts * self.norm["fts"], 0.0, 1.0)
            b = np.clip(w_vec * self.norm["vector"], 0.0, 1.0)
            # The title evidence (a name matching the query) at its fixed weight of 1.
            return np.asarray(1.0 - (1.0 - a) * (1.0 - b) * (1.0 - self.norm["title"]))
        if o.fusion == Fusion.CONVEX:
            return np.asarray(w_fts * self.norm["fts"] + w_vec * self.norm["vector"])
        k = t if setting == "k" else o.k
        with np.errstate(divide="ignore"):
            part_fts = 1.0 / (k + self.rank["fts"])
            part_vec = 1.0 / (k + self.rank["vector"])
        return np.asarray(w_fts * part_fts + w_vec * part_vec)

    def ranks(self, setting: str, values: Array) -> npt.NDArray[np.int64]:
        """The note's rank at each value, as the fusion ranks it (a tie won by path)."""
        return self._ranks(setting, values, ties_lost=False)

    def sure_ranks(self, setting: str, values: Array) -> npt.NDArray[np.int64]:
        """The note's rank at each value with every tie counted as lost: a rank no machine's
        floating point can make worse (what a proposed change is checked with)."""
        return self._ranks(setting, values, ties_lost=True)

    def _ranks(self, setting: str, values: Array, *, ties_lost: bool) -> npt.NDArray[np.int64]:
        s = self.scores(setting, values)
        mine = s[:, :1]
        diff = s[:, 1:] - mine
        tie = np.abs(diff) <= _TIE * np.maximum(1.0, np.abs(mine))
        beats = (diff > 0) & ~tie | tie & (True if ties_lost else self.before)
        return np.asarray(self.ahead + 1 + beats.sum(axis=1), dtype=np.int64)

    # ------------------------------------------------------------------ crossings

    def crossings(self, setting: str) -> list[float]:
        o = self.options
        if setting == "k":
            return self._k_crossings()
        caps: list[float] = []
        if o.fusion == Fusion.CALIBRATED:
            # 1 - (1 - w·e)(1 - B) = B + w·e·(1 - B): linear in the weight until w·e reaches 1,
            # where it stays (those points are crossings too).
            mine_e, fixed = (
                (self.norm["fts"], np.clip(self.norm["vector"] * o.w_vec, 0.0, 1.0))
                if setting == "w_fts"
                else (self.norm["vector"], np.clip(self.norm["fts"] * o.w_fts, 0.0, 1.0))
            )
            fixed = 1.0 - (1.0 - fixed) * (1.0 - self.norm["title"])  # the title's, fixed too
            mine, other = mine_e * (1.0 - fixed), fixed
            caps = [float(1.0 / e) for e in mine_e if e > 0]
        elif o.fusion == Fusion.CONVEX:
            mine, other = (
                (self.norm["fts"], self.norm["vector"] * o.w_vec)
                if setting == "w_fts"
                else (self.norm["vector"], self.norm["fts"] * o.w_fts)
            )
        else:
            inv_f = _inverse(o.k + self.rank["fts"])
            inv_v = _inverse(o.k + self.rank["vector"])
            mine, other = (
                (inv_f, inv_v * o.w_vec) if setting == "w_fts" else (inv_v, inv_f * o.w_fts)
            )
        slope = mine[1:] - mine[0]
        offset = other[1:] - other[0]
        ok = slope != 0
        found = [float(x) for x in (-offset[ok] / slope[ok]) if x >= 0 and math.isfinite(x)]
        return found + caps

    def _k_crossings(self) -> list[float]:
        o = self.options
        ranks_f, ranks_v = self.rank["fts"], self.rank["vector"]
        found: set[float] = set()
        for j in range(1, len(ranks_f)):
            terms: dict[float, float] = {}
            for weight, mine, theirs in (
                (o.w_fts, ranks_f[0], ranks_f[j]),
                (o.w_vec, ranks_v[0], ranks_v[j]),
            ):
                if math.isfinite(mine):
                    terms[mine] = terms.get(mine, 0.0) + weight
                if math.isfinite(theirs):
                    terms[theirs] = terms.get(theirs, 0.0) - weight
            terms = {r: w for r, w in terms.items() if w != 0}
            if not terms:
                continue
            numerator: Any = np.zeros(1)
            for r, w in terms.items():
                others = [-x for x in terms if x != r]  # the roots of (k + x)
                numerator = poly.polyadd(numerator, w * poly.polyfromroots(others))
            numerator = poly.polytrim(numerator, 1e-15)
            if len(numerator) < 2:
                continue
            for root in poly.polyroots(numerator):
                if abs(root.imag) < 1e-9 and root.real > 0:
                    found.add(float(root.real))
        return sorted(found)

    # ------------------------------------------------------------------ solving

    def solve(self, setting: str) -> Change:
        current = float(getattr(self.options, setting))
        # k > 0, and so is a weight that changes anything: at 0 a list's own notes score 0,
        # and a note worth nothing is not listed (its "rank" would be a tie won by path).
        open_low = True
        points = sorted(set(self.crossings(setting)) | ({0.0} if not open_low else set()))
        # A weight of the calibrated fusion goes no higher than 1 (above, scores saturate).
        ceiling = (
            CALIBRATED_MAX_WEIGHT
            if self.options.fusion == Fusion.CALIBRATED and setting != "k"
            else math.inf
        )
        points = [p for p in points if (p > 0 or not open_low) and p <= ceiling]
        if math.isfinite(ceiling) and ceiling not in points:
            points.append(ceiling)
        tests: list[tuple[float, float | None, float | None]] = []  # value, interval lo, hi
        for p in points:
            tests.append((p, None, None))
        edges: list[float] = ([0.0] if open_low else []) + points
        for lo, hi in itertools.pairwise(edges):
            if hi > lo:
                tests.append(((lo + hi) / 2, lo, hi))
        last = edges[-1] if edges else 0.0
        if not math.isfinite(ceiling):
            tests.append((last * 2 + 1, last, math.inf))
        values = np.array([t[0] for t in tests], dtype=np.float64)
        ranks = self.sure_ranks(setting, values)
        best: tuple[float, float, str, float | None, float | None] | None = None
        for (value, low, high), rank in zip(tests, ranks.tolist(), strict=True):
            if rank > self.top:
                continue
            target: float
            if low is None:
                target, direction = value, "raise" if value > current else "lower"
            elif current <= low:
                target, direction = low, "raise"
            else:
                assert high is not None
                target, direction = high, "lower"
            distance = abs(target - current)
            if best is None or distance < best[0]:
                best = (distance, target, direction, low, high)
        if best is None:
            return Change(
                setting,
                False,
                current=current,
                note=f"no value of {setting} brings it into the top {self.top} (the others fixed)",
            )
        _, threshold, direction, low, high = best
        value = self._round_value(setting, threshold, direction, low, high)
        rank = int(self.sure_ranks(setting, np.array([value]))[0])
        return Change(
            setting,
            True,
            current=current,
            threshold=threshold,
            value=value,
            direction=direction,
            rank=rank,
        )

    def _round_value(
        self, setting: str, threshold: float, direction: str, lo: float | None, hi: float | None
    ) -> float:
        """A short value past ``threshold`` that surely works: the fewest decimals that do
        (else the middle of the interval, which was checked)."""
        if lo is None:  # the crossing itself works, whoever wins its ties
            candidates: list[float] = [threshold]
        else:
            top = hi if hi is not None else math.inf

            def inside(v: float) -> bool:
                return lo < v < top

            step = math.floor if direction == "lower" else math.ceil
            candidates = []
            for decimals in (0, 1, 2, 3, 4, 6, 9):
                scale = 10.0**decimals
                v = step(threshold * scale) / scale
                if v == threshold:
                    v += (1 if direction == "raise" else -1) / scale
                if inside(v):
                    candidates.append(v)
        for v in candidates:
            if int(self.sure_ranks(setting, np.array([v]))[0]) <= self.top:
                return v
        if lo is None:
            return threshold
        return (lo + hi) / 2 if hi is not None and math.isfinite(hi) else lo * 2 + 1


def _or_inf(rank: int | None) -> float:
    return math.inf if rank is None else float(rank)


def _inverse(x: Array) -> Array:
    with np.errstate(divide="ignore"):
        return np.asarray(1.0 / x)
