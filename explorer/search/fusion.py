"""Fusing ranked lists: weighted Reciprocal Rank Fusion, a pure function.

``score(d) = Σ over lists L of w_L / (k + rank_L(d))`` with 1-based ranks.  A document found by
one list still scores from that list.  Ties are broken by document id ascending, so the result
is deterministic.  Each fused item carries, per list, its rank and its contribution, which is
what the window and ``--json`` show.  This module imports nothing from the rest of the program.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_K = 60.0
DEFAULT_WEIGHTS: Mapping[str, float] = {"fts": 0.7, "vector": 0.3}


@dataclass(frozen=True, slots=True)
class Fused:
    """One document after fusion."""

    id: str
    score: float
    ranks: dict[str, int | None] = field(default_factory=dict)
    contributions: dict[str, float] = field(default_factory=dict)

    @property
    def source(self) -> str:
        """``both`` when every list found it, else the name of the one list that did."""
        found = [name for name, rank in self.ranks.items() if rank is not None]
        return "both" if len(found) > 1 else (found[0] if found else "none")


def rrf(
    lists: Mapping[str, Sequence[str]],
    k: float = DEFAULT_K,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Weighted RRF of ranked id lists (best first), fused best first.

    ``lists`` maps a list name to its ids; a name missing from ``weights`` weighs 1.  An id that
    appears twice in one list counts at its best rank.  Raises ``ValueError`` when ``k <= 0``.
    """
    if not k > 0:
        raise ValueError(f"k must be positive, got {k}")
    weights = DEFAULT_WEIGHTS if weights is None else weights
    ranks: dict[str, dict[str, int | None]] = {}
    for name, ids in lists.items():
        for position, doc in enumerate(ids, start=1):
            entry = ranks.setdefault(doc, dict.fromkeys(lists, None))
            if entry[name] is None:
                entry[name] = position
    fused = []
    for doc, doc_ranks in ranks.items():
        contributions = {
            name: (weights.get(name, 1.0) / (k + rank) if rank is not None else 0.0)
            for name, rank in doc_ranks.items()
        }
        fused.append(Fused(doc, sum(contributions.values()), doc_ranks, contributions))
    fused.sort(key=lambda f: (-f.score, f.id))
    return fused
