"""The strips around the results, on their own: the "no close match" line's words, the status
bar's labels eliding instead of clipping."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QHBoxLayout, QStatusBar, QWidget
from pytestqt.qtbot import QtBot

from explorer.gui.status_widgets import QUOTED_QUERY, ElidedLabel, IndexStatus, no_close_match_text
from explorer.index.migrations import LATEST_VERSION
from explorer.index.status import IndexReport
from explorer.live import Health
from explorer.search.fusion import fuse
from explorer.search.options import SearchOptions
from explorer.search.results import SemanticStatus
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


LONG = "72 % German, 28 % English; all-MiniLM-L6-v2 reads English: meaning search is weak here"


def _in_row(qtbot: QtBot, label: ElidedLabel, width: int) -> QWidget:
    """``label`` alone in a row ``width`` pixels wide, shown (keep the row: qtbot does not)."""
    row = QWidget()
    qtbot.addWidget(row)
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    label.setParent(row)
    layout.addWidget(label)
    layout.addStretch(1)
    row.resize(width, 30)
    row.show()
    qtbot.waitExposed(row)
    return row


def test_a_long_status_text_elides_with_all_of_it_in_the_tooltip(qtbot: QtBot) -> None:
    label = ElidedLabel()
    label.setText(LONG)
    label.setToolTip("The languages of the notes")
    assert label.minimumSizeHint().width() < label.sizeHint().width() // 3  # never widens
    row = _in_row(qtbot, label, 200)
    qtbot.waitUntil(lambda: label.elided)
    shown = label.shown_text()
    assert shown.endswith("…") and LONG.startswith(shown[:-1])
    assert label.fontMetrics().horizontalAdvance(shown) <= label.width()
    assert label.text() == LONG  # the whole text, as it reads with room
    tip = label.toolTip()
    assert LONG in tip and "The languages of the notes" in tip
    row.resize(label.sizeHint().width() + 50, 30)
    qtbot.waitUntil(lambda: not label.elided)
    assert label.shown_text() == LONG
    assert LONG not in label.toolTip() and "The languages of the notes" in label.toolTip()


def test_the_multilingual_offer_stays_whole_and_clickable_when_its_line_elides(
    qtbot: QtBot,
) -> None:
    label = ElidedLabel()
    offer = ("multilingual-e5-small", "use multilingual-e5-small…")
    label.set_content(LONG, offer)
    row = _in_row(qtbot, label, 320)  # (kept: the label is its child)
    qtbot.waitUntil(lambda: label.elided)
    link = '<a href="multilingual-e5-small">use multilingual-e5-small…</a>'
    assert label.shown_text().endswith(" · " + link)
    assert label.text() == f"{LONG} · {link}"
    assert LONG in label.toolTip()
    # The link is drawn last, at the text's end: a click there offers the model.
    metrics = label.fontMetrics()
    plain = label.shown_text().split(" · <a")[0] + " · "
    x = metrics.horizontalAdvance(plain) + metrics.horizontalAdvance("use multi")
    with qtbot.waitSignal(label.linkActivated) as clicked:
        qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=QPoint(x, label.height() // 2))
    assert clicked.args == ["multilingual-e5-small"]
    assert row.isVisible()


def test_short_status_labels_stay_whole_while_the_long_line_gives_way(qtbot: QtBot) -> None:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = IndexStatus(bar)
    report = IndexReport(
        vault="/v",
        database="/d",
        database_bytes=0,
        schema_version=LATEST_VERSION,
        tokenizer="",
        notes=51,
        chunks=100,
        model="all-MiniLM-L6-v2",
        vectors=276,
        pending_embeddings=0,
        languages={"de": 72, "en": 28},
    )
    status.show_health(Health("/v", "/d", index=report), "model: all-MiniLM-L6-v2 (ready)")
    bar.resize(status.sizeHint().width() - 150, 30)
    bar.show()
    qtbot.waitExposed(bar)
    qtbot.waitUntil(lambda: status.languages.elided)
    assert not status.watcher.elided and status.watcher.shown_text() == "watcher: starting"
    assert not status.counts.elided
    assert status.languages.shown_text().endswith("use multilingual-e5-small…</a>")
