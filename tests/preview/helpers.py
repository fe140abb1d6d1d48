"""A hit made by hand, for the preview's tests."""

from __future__ import annotations

from explorer.preview.explain import explain_html
from explorer.preview.style import Colours
from explorer.search.explain.explanation import hit_explanation
from explorer.search.explain.scoring import ExplainContext
from explorer.search.fusion.results import Hit


def hit(**fields: object) -> Hit:
    base: dict[str, object] = {
        "path": "ops/cdn-purge.md",
        "title": "CDN purge",
        "snippet": "",
        "fused_score": 0.7 / 61 + 0.3 / 64,
        "contributions": {"fts": 0.7 / 61, "vector": 0.3 / 64},
        "fts_rank": 1,
        "vector_rank": 4,
        "fts_score": 7.1234,
        "vector_score": 0.6131,
        "source": "both",
        "best_chunk": None,
    }
    base.update(fields)
    return Hit(**base)  # type: ignore[arg-type]


def block(hit: Hit, ctx: ExplainContext, colours: Colours | None = None, **kw: bool) -> str:
    """The explain block of ``hit`` as the window makes it: its explanation, in HTML."""
    return explain_html(hit_explanation(hit, ctx, ""), colours or Colours(), **kw)
