"""The search field's history: the vault's recent queries, remembered when a search is settled
on (Enter, moving into the results, opening a note), never per keystroke; Up, Alt+Down or the
▾ button lists them; kept beside the index across sessions, never in the vault."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.files import locked
from explorer.search.answers.saved import SearchStore, searches_file
from tests.commands.helpers import run_program
from tests.gui.conftest import WindowFactory, wait_indexed
from tests.gui.driver import drive
from tests.gui.helpers import vault_files


def test_history_recalls_a_previous_query_and_survives_a_new_session(
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

    # Typing searches as one types, but remembers nothing.
    ui.focus_search()
    ui.type("gamma")
    ui.wait_for_results("gamma")
    assert ui.recent_queries() == []

    ui.press_in_field(Qt.Key.Key_Return)  # Enter: settled on
    assert ui.recent_queries() == ["gamma"]

    ui.set_query("[status:open] plan")
    ui.wait_for_results("[status:open] plan")
    ui.press_in_field(Qt.Key.Key_Down)  # into the results: remembered, and Down still moves
    qtbot.waitUntil(ui.table_has_focus)
    assert ui.recent_queries() == ["[status:open] plan", "gamma"]

    ui.set_query("")
    ui.press_in_field(Qt.Key.Key_Up)  # Up: the history
    qtbot.waitUntil(ui.history_menu_visible)
    assert ui.history_menu() == ["[status:open] plan", "gamma"]
    ui.recall("gamma")
    assert ui.query() == "gamma"
    ui.wait_for_results("gamma")

    ui.close_history_menu()
    ui.press_in_field(Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)  # Alt+Down too
    qtbot.waitUntil(ui.history_menu_visible)
    ui.close_history_menu()

    window.close()
    again = make_window(fake_provider, property_vault)
    assert drive(again, qtbot).recent_queries() == ["[status:open] plan", "gamma"]
    assert searches_file(property_vault, data_dir).is_file()
    assert searches_file(property_vault, data_dir).is_relative_to(data_dir)  # by the index
    assert vault_files(property_vault) == before  # nothing written in the vault


def test_opening_a_note_remembers_the_query(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    opened = drive(window).record_opened()
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("beta")
    hit = ui.current_hit()
    assert hit is not None
    ui.open_note(hit)
    assert opened and ui.recent_queries() == ["beta"]


def test_a_facet_s_query_and_a_saved_search_s_enter_the_history(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    """Facet and saved-search queries never entered the history (issue 46)."""
    window = make_window(fake_provider, property_vault)
    ui = drive(window, qtbot)
    ui.show_facets()
    ui.search("deploy plan")
    qtbot.waitUntil(lambda: "status" in ui.facets())
    ui.click_facet("status", "open")
    ui.wait_for_results("deploy plan [status:open]")
    assert ui.recent_queries()[0] == "deploy plan [status:open]"
    ui.search("gamma")
    assert ui.save_search("g")
    ui.search("beta")
    ui.run_saved("g")
    ui.wait_for_results("gamma")
    assert ui.recent_queries()[0] == "gamma"


def test_enter_in_a_window_open_meanwhile_keeps_what_the_command_line_saved(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
    data_dir: Path,
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("gamma")
    ui.press_in_field(Qt.Key.Key_Return)  # the window has read and written the store
    qtbot.waitUntil(lambda: ui.searches_written(0))

    # Another process saves a search while the window is open…
    saved = run_program(
        "search", str(property_vault), "plan", "--mode", "fts", "--save", "keepme",
        "--data-dir", str(data_dir), "--no-sync",
    )  # fmt: skip
    assert saved.returncode == 0, saved.stderr

    # …then Enter in the window: its write merges, it does not rewrite its old copy.
    ui.search("beta")
    ui.press_in_field(Qt.Key.Key_Return)
    assert ui.searches_written(30)
    store = SearchStore.of(property_vault, data_dir)
    assert list(store.saved()) == ["keepme"]
    assert [r.query for r in store.recent()] == ["beta", "gamma"]
    assert ui.saved_names() == ["keepme"]  # and the window lists it


def test_the_window_writes_its_searches_off_the_gui_thread(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
    data_dir: Path,
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("gamma")
    path = searches_file(property_vault, data_dir)
    with locked(path.with_suffix(".lock")):  # another process is writing the store
        ui.press_in_field(Qt.Key.Key_Return)  # returns at once: the GUI thread does not wait
        assert ui.save_search("mine")
        assert ui.recent_queries() == ["gamma"] and ui.saved_names() == ["mine"]
        assert not ui.searches_written(0)  # the write waits for the lock, not the window
    assert ui.searches_written(30)
    store = SearchStore.of(property_vault, data_dir)
    assert list(store.saved()) == ["mine"] and [r.query for r in store.recent()] == ["gamma"]


def test_a_damaged_store_opens_the_vault_all_the_same_and_is_said_once(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    property_vault: Path,
    data_dir: Path,
) -> None:
    path = searches_file(property_vault, data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"version": 1, "recent": true, "saved": {"kept": {"query": "plan"}}}')
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("gamma")
    assert ui.rows()  # searched: no traceback in open_vault
    assert ui.saved_names() == ["kept"] and ui.recent_queries() == []
    assert ui.searches_written(30)
    assert SearchStore.of(property_vault, data_dir).take_problems() == []  # repaired
