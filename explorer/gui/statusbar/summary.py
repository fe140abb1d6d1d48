"""What the summary beside the search field says of a response (and the empty state's text)."""

from __future__ import annotations

import html

from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import Mode


def summary_text(response: SearchResponse) -> tuple[str, str | None]:
    """What the summary beside the search field says of ``response``, and the empty state's
    text (rich text) when it has no hits to show (``None``: the table shows them)."""
    hits = len(response.hits)
    if response.listing:
        if response.query.strip():  # filters only: the notes they keep, newest first
            newest = "" if response.options.sort != "relevance" else ", newest first"
            if not hits:
                return "no results", f"No notes match <b>{html.escape(response.query)}</b>."
            of = "" if response.matched in (None, hits) else f" of {response.matched:,}"
            return f"{hits:,}{of} notes match the filters{newest}", None
        return f"{hits} most recently modified notes", None
    if hits:
        ms = sum(v for k, v in response.timings.items() if k.endswith("_ms"))
        return f"{hits} hits · {ms:.0f} ms", None
    if response.options.mode == Mode.SEMANTIC and not response.semantic.available:
        reason = html.escape(response.semantic.reason or "no model")
        return "no results", f"Semantic search is unavailable: {reason}."
    return "no results", f"No notes match <b>{html.escape(response.query)}</b>."
