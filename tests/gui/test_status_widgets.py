"""The strips around the results, on their own: the "no close match" line's words."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QStatusBar
from pytestqt.qtbot import QtBot

from explorer.gui.status_widgets import QUOTED_QUERY, IndexStatus, no_close_match_text
from explorer.index.migrations import LATEST_VERSION
from explorer.index.status import IndexReport
from explorer.live import Health
from explorer.search.hybrid import SearchOptions, SemanticStatus, fuse
from tests.search.helpers import candidates


def test_the_no_close_match_line_quotes_the_query_and_names_the_list() -> None:
    response = replace(fuse(candidates(), SearchOptions()), close_match=False, query="zebra")
    assert no_close_match_text(response) == (
        "No close match for ‘zebra’: the hits are only the nearest notes by meaning"
    )
    lexical = replace(response, options=SearchOptions(mode="fts"))
    assert no_close_match_text(lexical) == (
        "No close match for ‘zebra’: the hits are only the nearest notes in words"
    )
    degraded = replace(response, semantic=SemanticStatus(False, "no model", None))
    assert "nearest notes in words" in (no_close_match_text(degraded) or "")
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


def test_the_status_bar_says_the_vault_s_languages_and_what_the_model_reads(qtbot: QtBot) -> None:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = IndexStatus(bar)
    report = IndexReport(
        vault="/v",
        database="/d",
        database_bytes=0,
        schema_version=LATEST_VERSION,
        tokenizer="",
        notes=100,
        chunks=100,
        model="all-MiniLM-L6-v2",
        vectors=100,
        pending_embeddings=0,
        languages={"de": 72, "en": 28},
    )
    status.show_health(Health("/v", "/d", index=report), "all-MiniLM-L6-v2 (ready)")
    assert status.languages.isVisibleTo(bar)
    assert status.languages.text() == (
        "72 % German, 28 % English; all-MiniLM-L6-v2 reads English: meaning search is weak here"
        ' · <a href="multilingual-e5-small">use multilingual-e5-small…</a>'
    )
    assert status.offered == "multilingual-e5-small"
    with qtbot.waitSignal(status.modelOffered) as offered:
        status.languages.linkActivated.emit("multilingual-e5-small")
    assert offered.args == ["multilingual-e5-small"]
    english = replace(report, languages={"en": 100})
    status.show_health(Health("/v", "/d", index=english), "all-MiniLM-L6-v2 (ready)")
    assert status.languages.text() == "100 % English" and status.offered is None
    # A vault already read by the multilingual model is offered nothing.
    read = replace(report, model="multilingual-e5-small")
    status.show_health(Health("/v", "/d", index=read), "multilingual-e5-small (ready)")
    assert status.languages.text() == "72 % German, 28 % English" and status.offered is None
    status.show_health(Health("/v", "/d"), "all-MiniLM-L6-v2 (ready)")
    assert not status.languages.isVisibleTo(bar)
