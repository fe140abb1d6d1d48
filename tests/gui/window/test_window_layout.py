"""The window on a laptop: what matters stays readable when the panels are open (issue 46)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.results.results_model import Column
from explorer.gui.window.placement import FRAME_GUESS
from tests.gui.conftest import WindowFactory, index_with_fake_vectors
from tests.gui.driver import drive


@pytest.mark.parametrize("width, height", [(1366, 768), (1280, 720)])
def test_the_title_and_the_query_keep_their_room_with_facets_and_around_open(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
    width: int,
    height: int,
) -> None:
    """With Facets open at 1366 the Title column collapsed to "…" on every row and the query
    field showed "ings stored on disk"; at 1280 the field was ~70 px.  The panels give way."""
    index_with_fake_vectors(sample_copy, data_dir)
    window = make_window(fake_provider, sample_copy)
    driver = drive(window, qtbot)
    driver.search("deploy plan rollback")
    driver.show_facets()
    driver.show_around(True)
    room = QSize(width, height).shrunkBy(FRAME_GUESS)
    window.resize(room)
    chars = window.fontMetrics().averageCharWidth()

    def readable() -> None:
        assert window.size() == room
        assert driver.column_width(Column.TITLE) >= 26 * chars
        assert driver.column_width(Column.PATH) >= 14 * chars
        assert driver.field_width() >= 24 * chars
        assert driver.preview_width() >= 32 * chars
        assert driver.panel_visible("facets") and driver.panel_visible("around")

    qtbot.waitUntil(readable)
    title = driver.cell(0, Column.TITLE)
    assert driver.shown_cell(0, Column.TITLE).rstrip("…") in title
