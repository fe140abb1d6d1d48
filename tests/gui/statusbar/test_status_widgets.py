"""The strips around the results, on their own: the "no close match" line's words, the status
bar's labels eliding instead of clipping."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QHBoxLayout, QStatusBar, QWidget
from pytestqt.qtbot import QtBot

from explorer.gui.statusbar.elided import ElidedLabel, ProgressBar
from explorer.gui.statusbar.index_status import IndexStatus
from explorer.gui.statusbar.no_close_match import QUOTED_QUERY, no_close_match_text
from explorer.live import EmbeddingHealth, EmbeddingState, Health, WatcherHealth, WatcherState
from explorer.live.power import ON_BATTERY
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.results import SemanticStatus
from explorer.search.query.options import SearchOptions
from tests.gui.helpers import index_report
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
    report = index_report(
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
    report = index_report(
        notes=51,
        vectors=276,
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


def _embedding_health(embedding: EmbeddingHealth, searchable: int | None = 312) -> Health:
    report = index_report(
        notes=1140,
        chunks=9870,
        vectors=embedding.done,
        pending_embeddings=embedding.total - embedding.done,
        searchable_notes=searchable,
    )
    watcher = WatcherHealth(WatcherState.RUNNING)
    return Health("/v", "/d", index=report, watcher=watcher, embedding=embedding)


def _status(qtbot: QtBot) -> tuple[QStatusBar, IndexStatus]:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = IndexStatus(bar)
    bar.resize(1400, 30)
    bar.show()
    qtbot.waitExposed(bar)
    return bar, status


def test_the_status_bar_says_what_is_left_to_embed(qtbot: QtBot) -> None:
    bar, status = _status(qtbot)
    embedding = EmbeddingHealth(
        EmbeddingState.EMBEDDING, "all-MiniLM-L6-v2", done=1204, total=9870, rate=14.0
    )
    status.follow(_embedding_health(embedding), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert status.progress.isVisibleTo(bar)
    assert status.progress.words() == "Embedding 1,204 of 9,870 · 14/s · about 10 min left"
    qtbot.waitUntil(lambda: status.progress.text() == status.progress.words())  # room for all
    assert (status.progress.value(), status.progress.maximum()) == (1204, 9870)
    tip = status.progress.toolTip()
    assert "312 of 1,140 notes searchable by meaning" in tip and "last 30 s" in tip
    assert status.counts.toolTip() == "<p>312 of 1,140 notes searchable by meaning</p>"

    # Before the first batch is timed there is no rate: no estimate either.
    first = replace(embedding, done=0, rate=0.0)
    status.follow(_embedding_health(first), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert status.progress.words() == "Embedding 0 of 9,870"

    # An index counted before searchable notes were: no line, no empty tooltip text.
    status.follow(_embedding_health(embedding, None), "m", settled=True)
    assert "searchable" not in status.progress.toolTip() and status.counts.toolTip() == ""

    done = replace(embedding, state=EmbeddingState.IDLE, done=9870)
    status.follow(_embedding_health(done, 1140), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert not status.progress.isVisibleTo(bar)
    assert status.counts.toolTip() == "<p>1,140 of 1,140 notes searchable by meaning</p>"


def test_the_status_bar_says_embedding_is_paused_and_why(qtbot: QtBot) -> None:
    bar, status = _status(qtbot)
    paused = EmbeddingHealth(EmbeddingState.PAUSED, "all-MiniLM-L6-v2", done=1204, total=9870)
    status.follow(_embedding_health(paused), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert status.progress.isVisibleTo(bar)
    assert (
        status.progress.words() == "Embedding paused · 8,666 chunks waiting (1,204 of 9,870 done)"
    )
    assert "Pause Embedding resumes it" in status.progress.toolTip()
    battery = replace(paused, reason=ON_BATTERY)
    status.follow(_embedding_health(battery), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert status.progress.words() == (
        "Embedding paused: on battery · 8,666 chunks waiting (1,204 of 9,870 done)"
    )
    assert "waits for the charger" in status.progress.toolTip()
    assert "VAULT_EXPLORER_EMBED_ON_BATTERY=1" in status.progress.toolTip()


def test_a_narrow_progress_bar_elides_its_words_with_all_of_them_in_the_tooltip(
    qtbot: QtBot,
) -> None:
    row = QWidget()
    qtbot.addWidget(row)
    layout = QHBoxLayout(row)
    bar = ProgressBar(row)
    layout.addWidget(bar)
    layout.addStretch(1)
    bar.setRange(0, 9870)
    bar.setValue(1204)
    words = "Embedding 1,204 of 9,870 · 14/s · about 10 min left"
    bar.set_words(words, "312 of 1,140 notes searchable by meaning")
    assert bar.minimumSizeHint().width() == ProgressBar.LEAST
    assert bar.sizeHint().width() >= bar.fontMetrics().horizontalAdvance(words)
    bar.setFixedWidth(ProgressBar.LEAST)
    row.show()
    qtbot.waitExposed(row)
    qtbot.waitUntil(lambda: bar.elided)
    assert bar.text().endswith("…") and bar.text() != words
    assert bar.toolTip() == f"<p>{words}<br>312 of 1,140 notes searchable by meaning</p>"
    bar.setFixedWidth(ProgressBar.MOST)
    qtbot.waitUntil(lambda: not bar.elided)
    assert bar.text() == words
    assert bar.toolTip() == "<p>312 of 1,140 notes searchable by meaning</p>"


def test_the_legend_s_bar_swatch_has_the_recency_prior_s_colour(qtbot: QtBot) -> None:
    from explorer.gui.core.theme import tints
    from explorer.gui.statusbar.legend import Legend

    legend = Legend()
    qtbot.addWidget(legend)
    swatch = legend._swatches["bar"]
    image = swatch.pixmap().toImage()
    colours = {image.pixelColor(x, image.height() // 2).name() for x in range(image.width())}
    assert tints(legend.palette()).recency_bar.name() in colours
    assert "recency prior" in swatch.toolTip() and "green" in swatch.toolTip()


def test_the_legend_s_note_is_cut_with_an_ellipsis_and_whole_in_its_tooltip(
    qtbot: QtBot,
) -> None:
    """ "(tints mark Hybrid" was cut with no "…" on a laptop (issue 46)."""
    from explorer.gui.statusbar.legend import Legend

    legend = Legend()
    qtbot.addWidget(legend)
    legend.update_legend(False)
    legend.show()
    qtbot.waitExposed(legend)
    whole = "(tints mark Hybrid results)"
    room = legend.note.x() + legend.fontMetrics().horizontalAdvance("(tints mark Hy")
    legend.resize(room, legend.height())
    qtbot.waitUntil(lambda: legend.note.shown_text().endswith("…"))
    assert whole.startswith(legend.note.shown_text().rstrip("…"))
    assert whole in legend.note.toolTip()
    legend.resize(legend.note.x() + 2 * legend.fontMetrics().horizontalAdvance(whole), 40)
    qtbot.waitUntil(lambda: legend.note.shown_text() == whole)


def test_the_counts_say_how_many_notes_meaning_finds_until_all_do(qtbot: QtBot) -> None:
    """Nothing on screen said only N of 889 notes were searchable by meaning yet, only a
    tooltip (issue 46)."""
    _bar, status = _status(qtbot)
    embedding = EmbeddingHealth(
        EmbeddingState.EMBEDDING, "all-MiniLM-L6-v2", done=1204, total=9870, rate=14.0
    )
    status.follow(_embedding_health(embedding), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert status.counts.text().endswith(" · meaning: 312 of 1,140 notes")
    done = replace(embedding, state=EmbeddingState.IDLE, done=9870)
    status.follow(_embedding_health(done, 1140), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert "meaning" not in status.counts.text()


def test_the_counts_say_how_many_notes_are_still_on_their_vectors_of_before(
    qtbot: QtBot,
) -> None:
    """An index made before titles were embedded, or renamed notes, re-embed in the background
    while they are searched on their old vectors: the counts say how many (issue 44)."""
    _bar, status = _status(qtbot)
    embedding = EmbeddingHealth(
        EmbeddingState.EMBEDDING, "all-MiniLM-L6-v2", done=40, total=9870, rate=14.0
    )
    health = _embedding_health(embedding, 1140)
    assert health.index is not None
    health = replace(health, index=replace(health.index, restyling_notes=1100))
    status.follow(health, "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert status.counts.text().endswith(" · 1,100 notes on their vectors of before")
    assert "being embedded again with title and headings" in status.counts.toolTip()


def test_a_busy_bar_says_what_it_waits_for_and_never_shows_full_and_empty(
    qtbot: QtBot,
) -> None:
    """A bar of unknown size drew no words (Qt gives a busy bar no text): full and empty-labelled
    while the vault was indexed and the model loaded."""
    bar, status = _status(qtbot)
    starting = Health(
        "/v", "/d", index=index_report(), watcher=WatcherHealth(WatcherState.STARTING)
    )
    status.follow(starting, "model: all-MiniLM-L6-v2 (loading…)", settled=False)
    assert status.progress.isVisibleTo(bar)
    qtbot.waitUntil(lambda: status.progress.text() == "Indexing the vault…")

    loading = EmbeddingHealth(EmbeddingState.LOADING, "all-MiniLM-L6-v2")
    status.follow(_embedding_health(loading), "model: all-MiniLM-L6-v2 (loading…)", settled=True)
    assert status.progress.isVisibleTo(bar)
    assert status.progress.maximum() == 0  # busy: no size yet
    qtbot.waitUntil(lambda: status.progress.text() == "Loading the model…")

    ready = EmbeddingHealth(EmbeddingState.IDLE, "all-MiniLM-L6-v2")
    status.follow(_embedding_health(ready), "model: all-MiniLM-L6-v2 (ready)", settled=True)
    assert not status.progress.isVisibleTo(bar)
