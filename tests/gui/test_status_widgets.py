"""The strips around the results, on their own: the "no close match" line's words."""

from __future__ import annotations

from dataclasses import replace

from explorer.gui.status_widgets import QUOTED_QUERY, no_close_match_text
from explorer.search.hybrid import SearchOptions, SemanticStatus, fuse
from tests.search.helpers import candidates


def test_the_no_close_match_line_quotes_the_query_and_names_the_list() -> None:
    response = replace(fuse(candidates(), SearchOptions()), close_match=False, query="zebra")
    assert no_close_match_text(response) == (
        "No close match for ‘zebra’; the nearest notes by meaning are shown muted"
    )
    lexical = replace(response, options=SearchOptions(mode="fts"))
    assert no_close_match_text(lexical) == (
        "No close match for ‘zebra’; the notes nearest in words are shown muted"
    )
    degraded = replace(response, semantic=SemanticStatus(False, "no model", None))
    assert "nearest in words" in (no_close_match_text(degraded) or "")
    long = replace(response, query="a\u202eb " + "word " * 40)
    text = no_close_match_text(long) or ""
    quoted = text[text.index("‘") + 1 : text.index("’")]
    assert len(quoted) <= QUOTED_QUERY and quoted.endswith("word…")
    assert "\u202e" not in quoted  # shown escaped, never applied


def test_the_line_is_not_said_for_a_close_match_a_listing_or_no_hits() -> None:
    response = fuse(candidates(), SearchOptions())
    assert no_close_match_text(replace(response, close_match=True)) is None
    assert no_close_match_text(replace(response, close_match=None, listing=True)) is None
    assert no_close_match_text(replace(response, close_match=False, hits=[])) is None
    assert no_close_match_text(None) is None
