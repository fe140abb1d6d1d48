"""Each vault with its own state: query, sort, facets and panels (issue 46, row 3)."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.results.results_model import Column
from explorer.gui.window.actions import Action
from explorer.gui.window.settings import Settings
from tests.gui.conftest import WindowFactory, index_with_fake_vectors
from tests.gui.driver import drive


def test_the_query_sort_and_panels_stay_with_their_vault(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
    sample_copy: Path,
    data_dir: Path,
    gui_settings: Settings,
) -> None:
    """Nushell opened with the Obsidian query ("No notes match…") and sorted by Title."""
    index_with_fake_vectors(sample_copy, data_dir)
    window = make_window(fake_provider, property_vault)
    driver = drive(window, qtbot)
    driver.search("deploy plan")
    driver.set_sort("title")
    driver.show_facets()
    driver.show_around(False)

    driver.open_vault(sample_copy)  # never opened: no query, by relevance, the panels kept
    assert driver.query() == ""
    assert driver.sort() == "relevance"
    assert driver.panel_visible("facets") and not driver.panel_visible("around")
    driver.search("pagination")
    driver.trigger(Action.FACETS)
    driver.show_around(True)
    assert not driver.panel_visible("facets") and driver.panel_visible("around")

    driver.open_vault(property_vault)
    driver.wait_for_results("deploy plan")
    assert driver.sort() == "title"
    assert driver.panel_visible("facets") and not driver.panel_visible("around")

    # The next start, on the same settings, opens each vault as it was left.
    window.close()
    again = make_window(fake_provider, sample_copy, settings=gui_settings)
    second = drive(again, qtbot)
    second.wait_for_results("pagination")
    assert second.sort() == "relevance"
    assert not second.panel_visible("facets") and second.panel_visible("around")


def test_a_query_given_at_launch_starts_sorted_by_relevance(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
    gui_settings: Settings,
) -> None:
    """A sticky Title sort put #32 first on a launch with ``--query``."""
    window = make_window(fake_provider, property_vault)
    driver = drive(window, qtbot)
    driver.search("deploy plan")
    driver.set_sort("title")
    driver.wait_for_results("deploy plan", lambda w: None)
    window.close()

    again = make_window(fake_provider, property_vault, settings=gui_settings, query="beta")
    second = drive(again, qtbot)
    second.wait_for_results("beta")
    assert second.sort() == "relevance"
    assert second.cell(0, Column.RANK) == "1"


def test_the_sort_arrow_is_on_the_column_sorted_by(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
) -> None:
    """The # header kept its ▾ while the hits were sorted by Title."""
    window = make_window(fake_provider, property_vault)
    driver = drive(window, qtbot)
    driver.search("deploy plan")
    assert driver.sort_arrow() == Column.RANK
    driver.set_sort("title")
    driver.wait_for_results("deploy plan")
    assert driver.sort_arrow() == Column.TITLE
    driver.set_sort("modified")
    driver.wait_for_results("deploy plan")
    assert driver.sort_arrow() is None  # no column shows the modification time
    driver.set_sort("relevance")
    assert driver.sort_arrow() == Column.RANK
