"""The sort control: the hits shown in the order chosen (newest modified or created, title,
path), the # column keeping each hit's fused rank; words-free filters list newest first."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.results.results_model import Column
from tests.gui.conftest import WindowFactory, wait_indexed
from tests.gui.driver import drive

QUERY = "deploy plan"


def test_sort_control_orders_the_hits_and_keeps_the_fused_rank(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    assert ui.sort() == "relevance"
    response = ui.search(QUERY)
    fused = [hit.path for hit in response.hits]
    assert ui.rows() == fused
    assert len(fused) == 5

    ui.set_sort("modified")
    newest = [
        "projects/gamma.md",
        "projects/alpha.md",
        "meeting.md",
        "projects/beta.md",
        "reading/zeta.md",
    ]
    qtbot.waitUntil(lambda: ui.rows() == newest)
    assert ui.options().sort == "modified"
    # The # column still says where each note ranks by relevance.
    assert [ui.cell(row, Column.RANK) for row in range(5)] == [
        str(fused.index(path) + 1) for path in newest
    ]
    assert [hit.path for hit in ui.response().hits] == fused  # the response stays fused

    # Created: the frontmatter's date (the two notes without one were created on disk just now,
    # by the test, so they come first).
    ui.set_sort("created")
    dated = ["projects/beta.md", "projects/alpha.md", "projects/gamma.md"]
    qtbot.waitUntil(lambda: ui.rows()[2:] == dated)
    assert set(ui.rows()[:2]) == {"meeting.md", "reading/zeta.md"}

    ui.set_sort("title")
    qtbot.waitUntil(lambda: ui.rows()[0] == "projects/alpha.md")
    assert ui.rows() == [
        "projects/alpha.md",
        "projects/beta.md",
        "projects/gamma.md",
        "meeting.md",
        "reading/zeta.md",
    ]

    ui.set_sort("relevance")
    qtbot.waitUntil(lambda: ui.rows() == fused)


def test_filters_without_words_list_the_matching_notes_newest_first(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    response = ui.search("[status:open]")
    assert response.listing
    assert ui.rows() == ["projects/gamma.md", "projects/alpha.md"]
    assert ui.summary() == "2 notes match the filters, newest first"
    assert ui.cell(0, Column.FUSED) == "—"


def test_the_sort_is_kept_with_the_settings(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    ui = drive(window, qtbot)
    ui.set_sort("path")
    window.close()
    again = make_window(fake_provider, property_vault)
    assert drive(again, qtbot).sort() == "path"
