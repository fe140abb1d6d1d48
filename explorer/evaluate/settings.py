"""What an evaluation runs with: the search options and modes evaluated, the cut-offs scored, how
long a query embedding may take, and the one error an evaluation says to the user."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from explorer.errors import UserError
from explorer.search.query.options import MODES, Fusion, Mode, SearchOptions

RECALL_KS = (1, 3, 10, 100)
CUTOFF = 10
#: Hits kept per query: recall@100 needs a hundred (the most ``SearchOptions.limit`` allows).
RUN_LIMIT = 100
#: An evaluation waits for each query embedding; the interactive 3 s limit would make a busy
#: machine's scores depend on its load.
EVAL_EMBED_TIMEOUT_S = 120.0

#: (phase, done, total, note) — the signature of ``explorer.console.TerminalProgress``.
Progress = Callable[..., None]
Log = Callable[[str], None]


class EvalError(UserError, RuntimeError):
    """The evaluation cannot run as asked; the message is one line for the user."""


#: What an evaluation searches with unless told otherwise: the search defaults, with lists and
#: hits as long as recall@100 needs.
EVAL_OPTIONS = SearchOptions(depth=RUN_LIMIT, limit=RUN_LIMIT)


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """What is evaluated: the search options (the mode aside) and the modes."""

    search: SearchOptions = EVAL_OPTIONS
    modes: tuple[str, ...] = MODES

    def options(self, mode: str) -> SearchOptions:
        return replace(self.search, mode=Mode(mode), limit=RUN_LIMIT)

    def validate(self) -> None:
        unknown = [m for m in self.modes if m not in MODES]
        if unknown or not self.modes:
            raise EvalError(f"--modes takes a comma-separated subset of {','.join(MODES)}")
        for mode in self.modes:
            self.options(mode).validate()

    @property
    def candidate_mode(self) -> str:
        """The one mode whose candidates serve every requested mode."""
        needs_fts = bool({"fts", "hybrid"} & set(self.modes))
        needs_vec = bool({"semantic", "hybrid"} & set(self.modes))
        return "hybrid" if needs_fts and needs_vec else ("fts" if needs_fts else "semantic")

    @property
    def needs_model(self) -> bool:
        return self.candidate_mode != Mode.FTS

    def to_json(self) -> dict[str, Any]:
        from explorer.search.fusion.fusion import CONVEX_LOWER_BOUNDS

        o = self.search
        bounds = (
            {"convexLowerBounds": dict(CONVEX_LOWER_BOUNDS)} if o.fusion == Fusion.CONVEX else {}
        )
        return {
            **bounds,
            "fusion": o.fusion,
            "k": o.to_json()["k"],
            "weights": o.weights,
            "depth": o.depth,
            "minSim": o.min_sim,
            "minRel": o.min_rel,
            "modes": list(self.modes),
        }


def quiet(_: str) -> None:
    """A log that says nothing (library use; the CLI passes ``stderr_log``)."""


def no_progress(*_: object) -> None:
    """A progress callback that shows nothing."""
