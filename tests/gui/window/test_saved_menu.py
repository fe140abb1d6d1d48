"""Saved searches: Search ▸ Save Search… keeps the query with its mode, fusion settings and
sort by name; Search ▸ Saved Searches runs one again (its settings back on screen); the manage
dialog deletes them.  Kept beside the index across sessions, never in the vault."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.search.answers.saved import SearchStore
from tests.gui.conftest import WindowFactory, wait_indexed
from tests.gui.driver import drive
from tests.gui.helpers import vault_files

QUERY = "[status:open] plan"


def test_saved_search_round_trip_across_sessions(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
    data_dir: Path,
) -> None:
    before = vault_files(property_vault)
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.set_mode("fts")
    ui.set_options(replace(ui.options(), depth=30))
    ui.set_sort("title")
    ui.search(QUERY)
    assert ui.save_search("Open projects")
    assert ui.saved_names() == ["Open projects"]
    assert "Open projects" in ui.status()
    assert ui.searches_written(30)  # written off the GUI thread
    saved = SearchStore.of(property_vault, data_dir).get("Open projects")
    assert saved.query == QUERY
    assert (saved.options.mode, saved.options.sort, saved.options.depth) == ("fts", "title", 30)
    window.close()

    # A new session on the same data directory, with other settings on screen.
    again = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, again)
    ui = drive(again, qtbot)
    ui.set_mode("hybrid")
    ui.set_sort("relevance")
    ui.set_options(replace(ui.options(), depth=50))
    ui.search("beta")
    assert ui.saved_names() == ["Open projects"]
    ui.run_saved("Open projects")
    ui.wait_for_results(
        QUERY, lambda w: drive(w).rows() == ["projects/alpha.md", "projects/gamma.md"]
    )
    assert ui.query() == QUERY
    assert (ui.mode(), ui.sort(), ui.options().depth) == ("fts", "title", 30)

    # Managed: deleted from the dialog, and gone for the next session too.
    dialog = ui.saved_dialog()
    assert dialog.names() == ["Open projects"]
    dialog.select("Open projects")
    dialog.delete_selected()
    assert dialog.names() == [] and ui.saved_names() == []
    assert again.history.wait_written(30)
    assert SearchStore.of(property_vault, data_dir).saved() == {}
    assert vault_files(property_vault) == before  # nothing written in the vault


def test_a_bad_name_is_refused_in_one_line(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window = make_window(fake_provider, property_vault)
    ui = drive(window, qtbot)
    ui.search("plan")
    warned: list[str] = []
    monkeypatch.setattr(
        "explorer.gui.window.main_window.QMessageBox.warning",
        lambda _parent, _title, text: warned.append(text),
    )
    assert not ui.save_search("   ")
    assert warned and "name" in warned[0]
    assert ui.saved_names() == []


def test_the_dialog_runs_a_saved_search(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("gamma")
    assert ui.save_search("g")
    ui.search("beta")
    dialog = ui.saved_dialog()
    dialog.select("g")
    dialog.run_selected()
    ui.wait_for_results("gamma")


def test_a_search_saved_in_the_window_lists_only_the_settings_chosen(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    """Manage Saved Searches showed "(limit=10…": the window's own 100 rows were saved as a
    setting the person chose (issue 46)."""
    window = make_window(fake_provider, property_vault)
    ui = drive(window, qtbot)
    ui.search("gamma")
    assert ui.save_search("plain")
    ui.set_sort("title")
    assert ui.save_search("by title")
    lines = ui.saved_dialog().lines()
    assert lines == ["by title  —  gamma   (sort=title)", "plain  —  gamma"], lines


def test_a_line_too_long_for_the_dialog_ends_in_an_ellipsis_with_the_whole_in_its_tooltip(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    """On a real X server the line of a long saved query ran past the list's edge behind a
    horizontal scroll bar, cut with no "…" (issue 46 row 10)."""
    window = make_window(fake_provider, property_vault)
    ui = drive(window, qtbot)
    query = "how do I stop seeing the same project plan over and over again " * 2
    ui.search(query.strip())
    assert ui.save_search("long")
    dialog = ui.saved_dialog()
    qtbot.waitExposed(dialog)
    assert not dialog.list.horizontalScrollBar().isVisible()
    shown = dialog.shown_lines()[0]
    assert shown.endswith("…") and dialog.lines()[0].startswith(shown[:-1]), shown
    assert query.strip() in dialog.list.item(0).toolTip()
