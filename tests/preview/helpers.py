"""A hit made by hand, for the preview's tests."""

from __future__ import annotations

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
