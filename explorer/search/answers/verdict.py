"""What a search says in words of how close its hits are: one sentence for the command line,
the window and the MCP server alike, each quoting the query its own way.

When none of the hits is close (``closeMatch`` false), it says so and how they were found (by
meaning, or in words).  When a hybrid search had only its words to judge by (the meaning model
still loading, no vectors yet) and they fell short (``closeMatch`` null), it says that the words
alone judged, and why: the hits are shown as they are, not muted for want of the meaning list.
"""

from __future__ import annotations

from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import Mode


def judged_caveat(response: SearchResponse) -> str | None:
    """``judged on words only: model … is still loading`` when a hybrid search judged its close
    match without its meaning list; else ``None``."""
    if response.listing or response.options.mode != Mode.HYBRID or response.semantic.available:
        return None
    if response.judged_on != ("fts",):
        return None
    return f"judged on words only: {response.semantic.reason or 'the meaning model is not ready'}"


def closeness(response: SearchResponse, quoted: str) -> str | None:
    """The sentence said over the hits of ``response`` (``quoted``: the query as the caller shows
    it), or ``None`` when there is nothing to say (a close match, or a listing):
    ``No close match for ‘q’: the hits are only the nearest notes by meaning``, or
    ``Not judged for ‘q’: judged on words only: model … is still loading, and the words alone
    do not make a close match``."""
    if response.listing or response.close_match is True:
        return None
    caveat = judged_caveat(response)
    if response.close_match is None:
        if caveat is None:
            return None
        return (
            f"Closeness of {quoted} not known ({caveat}): no hit holds enough of its words to be "
            "sure, and meaning could not confirm it"
        )
    line = f"No close match for {quoted}"
    if response.hits:
        by_meaning = response.semantic.available and response.options.mode != Mode.FTS
        how = "by meaning" if by_meaning else "in words"
        line += f": the hits are only the nearest notes {how}"
    return f"{line} ({caveat})" if caveat else line
