"""The window's part of "scores you can trust" with the fake embedder over the sample vault: the
"no close match" line and its muted rows, the score distributions of the query on screen, and a
window that fits a laptop.  The real model's side is in ``test_window_model.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.theme import tints, washed
from explorer.gui.results.results_model import Column, Role
from explorer.gui.window.actions import Action
from tests.gui.conftest import (
    WindowFactory,
    row_pixel,
    unselected_row_with,
    wait_for_results,
)
from tests.gui.driver import drive
from tests.gui.helpers import calibrated_window, search

GIBBERISH = "asdfgh qwerty"
#: Words of the sample vault: the lexical list finds notes holding every one.
REAL = "deploy rollback checklist"


def test_no_close_match_is_said_in_one_line_over_muted_rows(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = calibrated_window(qtbot, make_window, fake_provider, sample_copy)
    search(qtbot, window, GIBBERISH)
    response = drive(window).response()
    assert response is not None and response.close_match is False and response.hits
    assert drive(window).no_match_visible()
    assert drive(window).no_match_text() == (
        "No close match for ‘asdfgh qwerty’: the hits are only the nearest notes by meaning"
    )
    assert drive(window).no_match_over_results()
    assert drive(window).rows_muted()
    assert drive(window).data(0, Role.MUTED, Column.TITLE) is True
    # The tint is painted washed toward the base colour: still amber, quieter.
    row = unselected_row_with(window, "vector")
    base = QApplication.palette().color(QPalette.ColorRole.Base)
    assert row_pixel(window, row) == washed(tints().vector, base)

    search(qtbot, window, REAL)
    response = drive(window).response()
    assert response is not None and response.close_match is True
    assert not drive(window).no_match_visible() and not drive(window).rows_muted()
    assert drive(window).data(0, Role.MUTED, Column.TITLE) is False
    row = unselected_row_with(window, "vector")
    assert row_pixel(window, row) == tints().vector


def test_the_line_goes_with_the_listing_and_says_words_in_lexical_mode(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = calibrated_window(qtbot, make_window, fake_provider, sample_copy)
    search(qtbot, window, GIBBERISH)
    assert drive(window).no_match_visible()
    drive(window).set_query("")
    wait_for_results(qtbot, window, "")
    # recent notes: no verdict
    assert not drive(window).no_match_visible() and not drive(window).rows_muted()
    drive(window).set_mode("fts")
    partial = "rollback zebra"  # one word in some notes, one in none: the any-word pass
    drive(window).set_query(partial)
    wait_for_results(qtbot, window, partial)
    response = drive(window).response()
    assert response is not None and response.hits and response.close_match is False
    assert drive(window).no_match_text() == (
        "No close match for ‘rollback zebra’: the hits are only the nearest notes in words"
    )
    assert drive(window).no_match_visible() and drive(window).rows_muted()


def test_the_distributions_follow_the_results_and_the_selection(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = calibrated_window(qtbot, make_window, fake_provider, sample_copy)
    search(qtbot, window, REAL)
    panel = window.distributions
    response = drive(window).response()
    assert response is not None and response.spread is not None
    assert panel.isVisible() and panel.data.notes == response.spread.notes
    assert sum(panel.data.bins) == response.spread.notes
    vector_hits = {h.path for h in response.hits if h.vector_rank is not None}
    assert {m.path for m in panel.data.cosines} == vector_hits
    lexical = {m.path for marks in panel.data.bm25.values() for m in marks if m.hit}
    assert lexical == {h.path for h in response.hits if h.fts_rank is not None}
    qtbot.waitUntil(lambda: _assert_equal(panel.selected, drive(window).rows()[0]))
    drive(window).select(2)
    assert panel.selected == drive(window).rows()[2]
    drive(window).set_mode("fts")
    qtbot.waitUntil(lambda: _assert_equal(panel.data.has_vector, False))
    assert panel.data.has_lexical
    drive(window).trigger(Action.DISTRIBUTIONS)  # View ▸ Score Distributions off
    assert not panel.isVisible()


def _assert_equal(a: object, b: object) -> None:
    assert a == b


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (1440, 900)])
def test_a_laptop_window_shows_titles_the_share_bar_and_the_whole_explain_block(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    width: int,
    height: int,
) -> None:
    window = calibrated_window(qtbot, make_window, fake_provider, sample_copy)
    window.resize(width, height)
    assert drive(window).panel_visible("around")
    search(qtbot, window, REAL)
    qtbot.waitUntil(lambda: _assert_equal(window.size().toTuple(), (width, height)))
    table = window.table
    metrics = table.fontMetrics()
    # The title column holds 26 average characters ("Engineering journal 2024" and more).
    assert table.columnWidth(Column.TITLE) >= 26 * metrics.averageCharWidth()
    assert table.columnWidth(Column.TITLE) >= metrics.horizontalAdvance("Engineering journal 2024")
    # The share bar is in view, whole, with no horizontal scroll bar.
    share_end = table.columnViewportPosition(Column.SHARE) + table.columnWidth(Column.SHARE)
    assert table.columnViewportPosition(Column.SHARE) >= 0 and share_end <= table.viewport().width()
    assert not table.horizontalScrollBar().isVisible()
    # The explain block shows all its lines: no scroll bar of its own.
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), drive(window).rows()[0]))
    assert "Calibrated" in drive(window).explain_text()
    qtbot.waitUntil(lambda: _assert_equal(drive(window).explain_overflow(), 0))
    assert not drive(window).explain_scrolls()
    # The legend keeps its note whole beside it in Lexical mode.
    drive(window).set_mode("fts")
    whole = ("(tints mark Hybrid results)", True)
    qtbot.waitUntil(lambda: _assert_equal(drive(window).legend_note(), whole))


def test_columns_step_aside_for_the_title_and_come_back_with_room(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = calibrated_window(qtbot, make_window, fake_provider, sample_copy)
    table = window.table
    window.resize(1366, 768)
    qtbot.waitUntil(lambda: _assert_equal(table.isColumnHidden(Column.FTS_CONTRIB), True))
    assert table.isColumnHidden(Column.VEC_CONTRIB)
    window.resize(2400, 1000)
    qtbot.waitUntil(lambda: _assert_equal(table.isColumnHidden(Column.FTS_CONTRIB), False))
    assert not table.isColumnHidden(Column.VEC_CONTRIB)
    assert table.columnWidth(Column.FTS_CONTRIB) == table.widths[Column.FTS_CONTRIB]
    assert table.columnWidth(Column.PATH) == table.widths[Column.PATH]  # the path whole


def test_a_path_width_the_reader_chose_is_kept_and_a_fitted_one_is_not_saved(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = calibrated_window(qtbot, make_window, fake_provider, sample_copy)
    table, header = window.table, window.table.horizontalHeader()
    window.resize(1366, 768)
    default = table.widths[Column.PATH]
    qtbot.waitUntil(lambda: _assert_less(header.sectionSize(Column.PATH), default))
    assert not table.path_chosen
    saved = table.header_state()  # a fitted width is this window's, not the next session's
    header.resizeSection(Column.PATH, 40)
    assert table.restore_header(saved) and not table.path_chosen
    qtbot.waitUntil(lambda: _assert_less(header.sectionSize(Column.PATH), default))
    header.resizeSection(Column.PATH, 250)  # as a drag of the column's edge does
    assert table.path_chosen
    window.resize(1440, 900)
    qtbot.waitUntil(lambda: _assert_equal(window.width(), 1440))
    assert header.sectionSize(Column.PATH) == 250


def _assert_less(a: int, b: int) -> None:
    assert a < b
