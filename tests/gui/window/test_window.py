"""The window driven as a user would, over a copy of the sample vault, with the fake embedder
(fast, deterministic); the real-model behaviour is in ``test_window_model.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize, Qt, QUrl
from PySide6.QtGui import QFont, QGuiApplication, QTextDocument
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.gui.preview.preview import palette_colours
from explorer.gui.results.results_model import Column, Role
from explorer.gui.window import settings as opt
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import WANTED_SIZE, MainWindow
from explorer.gui.window.placement import FRAME_GUESS, first_geometry
from explorer.gui.window.settings import Settings
from explorer.live import Health
from explorer.preview.explain import explain_html
from explorer.preview.note import filter_url
from explorer.search.query.options import SearchOptions
from tests.gui.conftest import (
    SAFETY_MS,
    Hold,
    WindowFactory,
    cell,
    record_searches,
    row_pixel,
    unselected_row_with,
    wait_for_results,
    wait_indexed,
)
from tests.gui.driver import drive
from tests.gui.helpers import index_report
from tests.sample_vault_facts import (
    ERROR_PASTE_QUERY,
    ERROR_PASTE_TARGET,
    TAG_OPS_NOTES,
    TAR_QUERY,
    TAR_TARGET,
)


def open_sample(
    qtbot: QtBot, make_window: WindowFactory, provider: EmbedderProvider, vault: Path
) -> MainWindow:
    window = make_window(provider, vault)
    wait_indexed(qtbot, window)
    return window


def test_typing_a_query_shows_hits_after_one_debounced_search(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    wait_for_results(qtbot, window, "")  # the recent-notes listing of the empty query
    requested = record_searches(window)
    drive(window).focus_search()
    drive(window).type(TAR_QUERY)

    def shown(w: MainWindow) -> None:
        assert drive(w).rows()[0] == TAR_TARGET
        assert cell(w, 0, Column.TITLE)

    wait_for_results(qtbot, window, TAR_QUERY, shown)
    # Seven keystrokes, and no search of "t", "ta", "tar"…: only the whole query (debounced).
    assert requested and set(requested) == {TAR_QUERY}
    # The preview shows the selected (first) note, its explanation included.
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), TAR_TARGET))
    assert "Fused rank 1" in drive(window).explain_text()
    assert "tar czf" in drive(window).preview_text()


def test_enter_searches_at_once_and_error_pastes_are_plain_text(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    drive(window).paste(ERROR_PASTE_QUERY)
    drive(window).press_in_field(Qt.Key.Key_Return)
    assert not drive(window).search_waiting()
    drive(window).set_mode("fts")
    wait_for_results(
        qtbot,
        window,
        ERROR_PASTE_QUERY,
        lambda w: _assert_equal(drive(w).rows()[0], ERROR_PASTE_TARGET),
    )


@pytest.mark.slow
def test_changing_a_weight_reorders_rows_without_a_new_search(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    query = "deploy rollback checklist"
    drive(window).set_query(query)
    wait_for_results(qtbot, window, query, lambda w: _assert_both_lists(w))
    requested = record_searches(window)
    before = drive(window).rows()
    shown: list[object] = []
    window.resultsShown.connect(shown.append)

    drive(window).set_control("w_fts", 0.0)  # only the vector list counts now
    moves = [cell(window, r, Column.MOVE) for r in range(drive(window).row_count())]
    assert any(m.startswith("↑") for m in moves) and any(m.startswith("↓") for m in moves)
    drive(window).set_control("w_vec", 0.5)

    assert len(shown) == 2  # re-fused synchronously, once per edit
    after = drive(window).rows()
    assert after != before
    assert drive(window).response() is not None
    fresh = [h for h in drive(window).response().hits if h.status != "stale"]  # stale ones go last
    vector_ranks = [h.vector_rank for h in fresh]
    ranked = [r for r in vector_ranks if r is not None]
    assert ranked == sorted(ranked) and vector_ranks[: len(ranked)] == ranked
    # The similarity floor and the depth are live too, up to the depth fetched.
    drive(window).set_control("depth", 5)
    assert drive(window).row_count() <= 10
    drive(window).trigger(Action.RESET_FUSION)
    default = SearchOptions()
    assert drive(window).options().k == default.k and drive(window).options().w_fts == default.w_fts
    assert drive(window).rows() == before
    assert requested == []  # not one new search for all of that


@pytest.mark.slow
def test_the_fusion_method_is_chosen_in_the_window_and_re_fuses_the_cached_lists(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    query = "deploy rollback checklist"
    drive(window).set_query(query)
    wait_for_results(qtbot, window, query, lambda w: _assert_both_lists(w))
    requested = record_searches(window)
    explain = drive(window).explain_text()
    assert "Calibrated" in explain and "pass" in explain and "evidence" in explain
    assert not drive(window).control_enabled("k")  # k is RRF's

    drive(window).set_control("fusion", "rrf")
    assert requested == []  # re-fused from the cached lists
    assert drive(window).options().fusion == "rrf" and drive(window).control_enabled("k")
    assert drive(window).response() is not None and drive(window).response().options.fusion == "rrf"
    top = drive(window).response().hits[0]
    assert sum(top.contributions.values()) == pytest.approx(top.fused_score)
    assert float(cell(window, 0, Column.FUSED)) == pytest.approx(top.fused_score, abs=5e-6)
    explain = drive(window).explain_text()
    assert "RRF" in explain and "Calibrated" not in explain
    read = drive(window).current_hit()  # the note read stays selected as the rows re-rank
    assert read is not None and f"fused {read.fused_score:.5f}" in explain

    drive(window).trigger(Action.RESET_FUSION)
    assert drive(window).options().fusion == SearchOptions().fusion == "calibrated"
    assert not drive(window).control_enabled("k")


def test_the_hit_the_reader_selected_stays_selected_until_a_new_query(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    drive(window).set_query("deploy")
    wait_for_results(qtbot, window, "deploy", lambda w: _assert_more_than(w.proxy.rowCount(), 3))
    assert drive(window).current_hit() is not None  # the top hit, selected for the reader
    chosen = drive(window).rows()[2]
    drive(window).select(2)
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), chosen))
    drive(window).set_control("w_fts", 0.3)  # re-fused: the rows may move, the choice stays
    assert drive(window).response() is not None and drive(window).response().options.w_fts == 0.3
    assert chosen in drive(window).rows()
    hit = drive(window).current_hit()
    assert hit is not None and hit.path == chosen
    drive(window).set_query("backup")
    wait_for_results(qtbot, window, "backup")
    hit = drive(window).current_hit()
    assert hit is not None and hit.path == drive(window).rows()[0] != chosen


@pytest.mark.slow
def test_a_file_written_while_the_window_is_open_appears(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    query = "quetzalcoatl"
    drive(window).set_query(query)
    wait_for_results(qtbot, window, query)
    assert "inbox/feathered-serpent.md" not in drive(window).rows()
    (sample_copy / "inbox" / "feathered-serpent.md").write_text(
        "# Feathered serpent\n\nNotes on Quetzalcoatl for the museum trip.\n", encoding="utf-8"
    )
    wait_for_results(
        qtbot,
        window,
        query,
        lambda w: _assert_equal(drive(w).rows()[:1], ["inbox/feathered-serpent.md"]),
        timeout=15_000,
    )
    assert cell(window, 0, Column.MOVE) == "new"


def test_banner_says_why_when_there_is_no_model(
    qtbot: QtBot, make_window: WindowFactory, sample_copy: Path
) -> None:
    provider = EmbedderProvider.disabled("semantic search is switched off")
    window = open_sample(qtbot, make_window, provider, sample_copy)
    drive(window).set_query(TAR_QUERY)
    wait_for_results(qtbot, window, TAR_QUERY)
    assert drive(window).banner_visible()
    assert "unavailable" in drive(window).banner() and "switched off" in drive(window).banner()
    hybrid = drive(window).rows()
    assert {drive(window).data(r, Role.SOURCE) for r in range(len(hybrid))} == {"fts"}
    drive(window).set_mode("fts")  # Hybrid showed exactly the lexical result
    assert drive(window).rows() == hybrid and not drive(window).banner_visible()
    drive(window).set_mode("semantic")
    assert drive(window).row_count() == 0 and drive(window).banner_visible()
    assert "unavailable" in drive(window).empty_text()


def test_keyboard_alone(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    opened = drive(window).record_opened()
    window.activateWindow()
    qtbot.waitUntil(lambda: _assert_equal(QGuiApplication.focusWindow() is not None, True))
    drive(window).focus_results()
    drive(window).press(Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert drive(window).search_has_focus()
    drive(window).type("backup")
    drive(window).press_in_field(Qt.Key.Key_Return)
    wait_for_results(qtbot, window, "backup", lambda w: _assert_more_than(w.proxy.rowCount(), 1))
    drive(window).press_in_field(Qt.Key.Key_Down)
    assert drive(window).table_has_focus()
    first = drive(window).rows()[0]
    drive(window).press_in_results(Qt.Key.Key_Down)
    second = drive(window).current_hit()
    assert second is not None and second.path == drive(window).rows()[1] != first
    drive(window).press_in_results(Qt.Key.Key_Return)
    assert [u.toLocalFile() for u in opened] == [str(sample_copy.resolve() / second.path)]
    drive(window).press_in_results(Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == str(sample_copy.resolve() / second.path)
    drive(window).press_in_results(Qt.Key.Key_Escape)  # Esc in the results: back to the query
    assert drive(window).search_has_focus() and drive(window).query() == "backup"
    drive(window).press_in_field(Qt.Key.Key_Down)
    assert drive(window).table_has_focus() and drive(window).current_hit() == second
    drive(window).press(Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert drive(window).search_has_focus() and drive(window).field_selection() == "backup"
    drive(window).press_in_field(Qt.Key.Key_Escape)
    assert drive(window).query() == ""
    wait_for_results(qtbot, window, "", lambda w: _assert_equal(w.response.listing, True))  # type: ignore[union-attr]


def test_clicking_a_tag_in_the_preview_adds_a_filter(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    drive(window).set_query("purge")
    wait_for_results(qtbot, window, "purge")
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), "ops/cdn-purge.md"))
    drive(window).click_in_preview("#ops")
    wait_for_results(qtbot, window, "purge tag:ops")
    assert set(drive(window).rows()) <= TAG_OPS_NOTES
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), "ops/cdn-purge.md"))
    drive(window).click_in_preview("ops")  # the folder in the breadcrumb
    wait_for_results(qtbot, window, "purge tag:ops path:ops/")
    assert all(p.startswith("ops/") for p in drive(window).rows())


@pytest.mark.slow
def test_results_of_a_superseded_search_are_dropped(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    wait_for_results(qtbot, window, "")
    shown: list[str] = []
    window.resultsShown.connect(lambda r: shown.append(r.query))
    drive(window).set_query("cdn")
    drive(window).set_query("backups")
    wait_for_results(qtbot, window, "backups")
    assert shown == ["backups"]


def test_skipped_files_are_listed(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    (sample_copy / "inbox" / "photo.md").write_bytes(b"\x89PNG\r\n\x00\x00binary")
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)

    def listed() -> None:
        health = drive(window).health()
        assert health is not None and health.skipped
        assert drive(window).skipped_link()

    qtbot.waitUntil(listed)
    assert "1 skipped" in drive(window).skipped_link()
    drive(window).click_skipped()
    rows = drive(window).skipped_dialog().rows()
    assert rows[0][0] == "inbox/photo.md" and "binary" in rows[0][2]
    drive(window).skipped_dialog().close()


def test_status_bar_shows_the_index(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)

    def counted() -> None:
        text = drive(window).index_counts()
        assert text.startswith("51 notes") and "0 pending" in text
        assert "fake-bow-64 (ready)" in drive(window).model_status()
        assert drive(window).watcher_status() == "watcher: running"

    qtbot.waitUntil(counted)


def test_settings_persist_between_sessions(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    gui_settings: Settings,
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    drive(window).set_mode("fts")
    drive(window).set_control("k", 20)
    drive(window).set_control("w_vec", 0.5)
    drive(window).set_splitter_sizes([500, 900])
    sizes = drive(window).splitter_sizes()
    drive(window).set_column_width(Column.PATH, 321)
    window.close()
    assert gui_settings.get(opt.LAST_VAULT) == str(sample_copy.resolve())
    assert gui_settings.get(opt.RECENT_VAULTS)[0] == str(sample_copy.resolve())

    again = MainWindow(fake_provider, settings=gui_settings)
    qtbot.addWidget(again)
    again.show()
    assert drive(again).mode() == "fts"
    assert drive(again).options().k == 20 and drive(again).options().w_vec == 0.5
    # (The offscreen screen is 800 px wide, so the restored window is clamped to it; the left
    # pane keeps its width.)
    assert drive(again).splitter_sizes()[0] == sizes[0]
    assert drive(again).column_width(Column.PATH) == 321


def test_a_bad_saved_setting_opens_the_window_on_the_default_with_a_notice(
    qtbot: QtBot, gui_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    gui_settings.set(opt.SEARCH, '{"depth": 1' + "0" * 400 + ', "w_fts": 0.4}')
    window = MainWindow(EmbedderProvider.of(FakeEmbedder()), settings=gui_settings)
    qtbot.addWidget(window)
    window.show()
    assert drive(window).options().depth == SearchOptions().depth
    assert drive(window).options().w_fts == 0.4  # the good value next to it is kept
    assert "depth must be between 1 and 1000" in drive(window).status()
    said = [r for r in caplog.records if "depth must be between 1 and 1000" in r.getMessage()]
    assert len(said) == 1 and said[0].levelname == "WARNING" and said[0].exc_info is None


def test_stall_monitor_records_a_blocked_event_loop(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = make_window(fake_provider, sample_copy)
    stall = drive(window).stall_monitor()
    qtbot.waitUntil(lambda: _assert_more_than(stall.ticks, 5))
    stall.reset()
    deadline = time.perf_counter() + 0.15
    while time.perf_counter() < deadline:  # the GUI thread is busy: no tick can come
        pass
    qtbot.waitUntil(lambda: _assert_more_than(stall.max_gap_ms, 149))
    assert stall.report()["stallsOverThreshold"] >= 1
    assert stall.max_gap_between(0.0) > 149


def test_closing_the_window_interrupts_a_search_held_inside_sqlite(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    wait_for_results(qtbot, window, "")
    reader = drive(window).reader()
    assert reader.db is not None
    hold = Hold(reader.db.conn)
    drive(window).set_query("cdn purge deploy")
    qtbot.waitUntil(lambda: _assert_equal(hold.entered, 1), timeout=SAFETY_MS)
    assert drive(window).summary() == "searching…"
    window.close()  # waits for the interrupted search only: it ends at once
    assert reader.cancelled == 1
    assert reader.db is None  # the reader thread went on to close the connection


def test_bidi_and_control_characters_in_names_are_shown_escaped(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    tmp_path: Path,
) -> None:
    vault = tmp_path / "v\u202eault"
    (vault / "sub\u202edir").mkdir(parents=True)
    (vault / "evil\u202egpj.md").write_text("Deploy notes, no heading.\n", encoding="utf-8")
    (vault / "sub\u202edir" / "t.md").write_text(
        '---\ntitle: "Ti\\u202etle\\x1b[41m"\ntags: [ops]\n---\nDeploy here too.\n',
        encoding="utf-8",
    )
    (vault / "bad\u202efdp.md").write_bytes(b"\x89PNG\r\n\x00\x00binary")
    window = make_window(fake_provider, vault)
    wait_indexed(qtbot, window)
    drive(window).set_mode("fts")
    drive(window).set_query("deploy")
    wait_for_results(qtbot, window, "deploy", lambda w: _assert_equal(len(drive(w).rows()), 2))
    evil = drive(window).rows().index("evil\u202egpj.md")
    titled = 1 - evil
    assert cell(window, evil, Column.PATH) == "evil\\u202egpj.md"
    assert cell(window, evil, Column.TITLE) == "evil\\u202egpj"
    assert cell(window, titled, Column.TITLE) == "Ti\\u202etle\\x1b[41m"
    assert cell(window, titled, Column.PATH) == "sub\\u202edir/t.md"
    tip = str(drive(window).data(evil, Qt.ItemDataRole.ToolTipRole, Column.PATH))
    assert "evil\\u202egpj" in tip and "\u202e" not in tip
    assert window.windowTitle() == "v\\u202eault — Vault Explorer"
    # The preview: its title and the breadcrumb of the path.
    drive(window).select(titled)
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), "sub\u202edir/t.md"))
    assert "Ti\\u202etle\\x1b[41m" in drive(window).preview_title()
    header = drive(window).preview_text().split("\n")[0]
    assert "sub\\u202edir" in header and "\u202e" not in header
    # The status bar and the skipped-files dialog.
    drive(window).copy_path("evil\u202egpj.md")
    message = drive(window).status()
    assert "evil\\u202egpj.md" in message and "\u202e" not in message
    assert QGuiApplication.clipboard().text() == str(vault / "evil\u202egpj.md")  # the real path
    qtbot.waitUntil(lambda: _assert_equal(len(_skipped(drive(window).health())), 1))
    drive(window).trigger(Action.SKIPPED_FILES)
    assert drive(window).skipped_dialog() is not None
    rows = drive(window).skipped_dialog().rows()
    assert rows[0][0] == "bad\\u202efdp.md"
    assert all("\u202e" not in text for row in rows for text in row)
    assert "\u202e" not in drive(window).skipped_dialog().summary.text()
    drive(window).skipped_dialog().close()


# ----------------------------------------------------------------------------- helpers


def test_the_explain_block_is_the_selected_hit_s_explanation_rendered(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    """The block is rendered from an Explanation of the hit selected (the model ``explain``
    prints), whose numbers are the hit's as the window fused it, under each method."""
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    driver = drive(window, qtbot)
    query = "deploy rollback checklist"
    driver.set_query(query)
    wait_for_results(qtbot, window, query, _assert_both_lists)
    for fusion in ("calibrated", "rrf"):
        driver.set_control("fusion", fusion)
        driver.select(1)
        hit = driver.current_hit()
        assert hit is not None

        def explained(path: str = hit.path, method: str = fusion) -> None:
            e = driver.explanation()
            assert e is not None and e.scored is not None and e.path == path
            assert e.scored.method == method and e.query == query

        qtbot.waitUntil(explained)
        e = driver.explanation()
        assert e is not None and e.scored is not None
        s = e.scored
        assert (s.rank, s.score) == (2, round(hit.fused_score, 5))
        shares = {x.name: x.contribution for x in (s.lexical, s.vector) if x is not None}
        assert shares == {n: round(hit.contributions[n], 5) for n in shares}
        shown = QTextDocument()
        shown.setHtml(explain_html(e, palette_colours(window.preview.palette()), arithmetic=False))
        assert driver.explain_text() == shown.toPlainText()
        assert f"Fused rank 2 of {s.total}" in driver.explain_text()
        assert f"fused {s.score:.5f}" in driver.explain_text()


def _assert_equal(a: object, b: object) -> None:
    assert a == b


def _assert_more_than(a: float, b: float) -> None:
    assert a > b


def _assert_both_lists(window: MainWindow) -> None:
    response = drive(window).response()
    assert response is not None and response.semantic.available
    sources = {h.source for h in response.hits}
    assert "both" in sources and len(response.hits) > 5


def _skipped(health: Health | None) -> list[object]:
    """The files the index skipped, as ``health`` says (none before it is heard)."""
    return list(health.skipped) if health is not None else []


def test_switching_vaults_and_the_recent_list(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    tmp_path: Path,
    gui_settings: Settings,
) -> None:
    other = tmp_path / "other-vault"
    other.mkdir()
    (other / "only-here.md").write_text("# Only here\n\nA lonely note.\n", encoding="utf-8")
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    drive(window).open_vault(other)
    wait_indexed(qtbot, window)
    drive(window).set_query("lonely")
    wait_for_results(
        qtbot, window, "lonely", lambda w: _assert_equal(drive(w).rows(), ["only-here.md"])
    )
    assert window.windowTitle().startswith("other-vault")
    entries = drive(window).recent_vaults()
    assert entries == [str(other.resolve()), str(sample_copy.resolve())]


def test_first_run_opens_the_sample_vault(gui_settings: Settings, tmp_path: Path) -> None:
    from explorer.gui.core.resources import sample_vault
    from explorer.gui.window.app import choose_vault
    from tests.sample_vault_facts import VAULT

    assert choose_vault(None, gui_settings) == sample_vault() == VAULT
    gui_settings.set(opt.LAST_VAULT, str(tmp_path))
    assert choose_vault(None, gui_settings) == tmp_path
    assert choose_vault(str(tmp_path / "x"), gui_settings) == tmp_path / "x"


@pytest.mark.slow
def test_dark_theme_repaints_the_tints_for_a_dark_palette(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    from PySide6.QtWidgets import QApplication

    from explorer.gui.core.theme import tints

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    palette, style = app.palette(), app.style().name()
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    drive(window).set_query("cdn purge")
    wait_for_results(qtbot, window, "cdn purge", lambda w: _assert_equal(w.model.tinted, True))
    try:
        window.set_theme("dark")
        dark = tints(app.palette())
        assert dark.dark
        row = unselected_row_with(window, "vector")
        assert row_pixel(window, row) == dark.vector
        text = app.palette().color(app.palette().ColorRole.Text)
        assert text.lightness() - dark.vector.lightness() > 120  # light text on a deep wash
    finally:
        app.setStyle(style)
        app.setPalette(palette)


def test_the_results_pane_minimum_does_not_follow_the_mode(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    """The legend's "(tints mark Hybrid results)" note widened the results pane's minimum by
    ~150 px in Lexical mode, so a splitter position set then depended on whether the note had
    been shown yet: the cause of a flaky settings test on a loaded machine."""
    window = open_sample(qtbot, make_window, fake_provider, sample_copy)
    hybrid = drive(window).results_least_width()
    drive(window).set_mode("fts")
    qtbot.waitUntil(lambda: drive(window).legend_note()[0] != "")
    assert drive(window).results_least_width() == hybrid
    qtbot.waitUntil(lambda: drive(window).legend_note()[1])


def test_open_in_obsidian_is_offered_for_an_obsidian_vault_only(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    tmp_path: Path,
) -> None:
    """The sample vault has ``.obsidian/``: the results' menu and the preview's open the note
    by its obsidian:// URI (encoded: a space, ``#`` and ``&`` in the names); a plain folder's
    menus have no such item."""
    vault = sample_copy.rename(tmp_path / "My #1 & notes")
    assert (vault / ".obsidian").is_dir()
    window = open_sample(qtbot, make_window, fake_provider, vault)
    opened = drive(window).record_opened()
    drive(window).set_query(TAR_QUERY)
    wait_for_results(qtbot, window, TAR_QUERY)
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), TAR_TARGET))
    expected = (
        f"obsidian://open?vault=My%20%231%20%26%20notes&file={TAR_TARGET.replace('/', '%2F')}"
    )

    hit = drive(window).current_hit()
    assert hit is not None and hit.path == TAR_TARGET
    menu = drive(window).hit_menu(hit)
    texts = [a.text() for a in menu]
    assert texts[:2] == ["&Open Note", "Open in O&bsidian"]
    menu[1].trigger()
    item = next(a for a in drive(window).note_menu() if a.text() == "Open in O&bsidian")
    assert item.isEnabled()
    item.trigger()
    assert [u.toString(QUrl.ComponentFormattingOption.FullyEncoded) for u in opened] == [
        expected,
        expected,
    ]

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "only-here.md").write_text("# Only here\n\nA lonely note.\n", encoding="utf-8")
    drive(window).open_vault(plain)
    wait_indexed(qtbot, window)
    drive(window).set_query("lonely")
    wait_for_results(qtbot, window, "lonely")
    qtbot.waitUntil(lambda: _assert_equal(drive(window).preview_path(), "only-here.md"))
    hit = drive(window).current_hit()
    assert hit is not None
    assert "Open in O&bsidian" not in [a.text() for a in drive(window).hit_menu(hit)]
    assert "Open in O&bsidian" not in [a.text() for a in drive(window).note_menu()]


# ---------------------------------------------------------------------- fitting the screen

#: Opens the window twice on the screen the offscreen platform is configured with (the second
#: time with the geometry the first saved after being made larger than the screen) and prints
#: where each one is, in screen coordinates, once shown and its real frame checked.
_PROBE = """
import json, sys
from PySide6.QtCore import QEventLoop, QSettings
from PySide6.QtTest import QTest
from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.gui.window.app import application, prepare
from explorer.gui.window.main_window import MainWindow
from explorer.gui.window.settings import Settings

app = application()
settings = Settings(QSettings(sys.argv[1], QSettings.Format.IniFormat))
prepare(app, settings)

def box(r):
    return [r.x(), r.y(), r.width(), r.height()]

def opened():
    window = MainWindow(EmbedderProvider.of(FakeEmbedder()), settings=settings,
                        stall_monitor=False)
    window.index_status.show_progress("Embedding", 1204, 9870, 14.0)
    window.show()
    assert QTest.qWaitForWindowExposed(window)
    while window.placed is not None:  # until the frame the platform reports is checked
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    top_left = window.geometry().topLeft()
    return window, {
        "screen": box(window.screen().availableGeometry()),
        "geometry": box(window.geometry()),
        "frame": box(window.frameGeometry()),
        "statusBar": box(window.statusBar().geometry().translated(top_left)),
    }

first, report = opened()
first.setGeometry(200, 100, 1800, 1100)  # made larger than the screen, then closed: saved
first.close()
_, report["restored"] = opened()
print(json.dumps(report))
"""


def _rect(values: list[int]) -> QRect:
    return QRect(*values)


@pytest.mark.parametrize("width, height", [(1366, 768), (1280, 720)])
def test_the_first_window_fits_a_small_screen_and_so_does_a_restored_one(
    tmp_path: Path, width: int, height: int
) -> None:
    """On a 1366×768 screen the window opened at 1360×820, its status bar below the edge.
    The offscreen platform here has one screen of the given size (its JSON configuration)."""
    config = tmp_path / "screen.json"
    screen = {"name": "laptop", "x": 0, "y": 0, "width": width, "height": height}
    config.write_text(json.dumps({"screens": [screen]}), encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path / "settings.ini")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    available = _rect(report["screen"])
    assert available == QRect(0, 0, width, height)
    for shown in (report, report["restored"]):
        assert available.contains(_rect(shown["frame"])), shown
        assert available.contains(_rect(shown["statusBar"])), shown
    first = _rect(report["geometry"])
    expected = first_geometry(WANTED_SIZE, available)
    assert first.size() == expected.size()  # the screen's height less room for a title bar
    assert first.height() >= height - FRAME_GUESS.top() - FRAME_GUESS.bottom()
    frame = _rect(report["frame"])
    assert abs((frame.left() - available.left()) - (available.right() - frame.right())) <= 8


def test_the_first_window_is_placed_on_the_screen_it_opens_on(
    qtbot: QtBot, gui_settings: Settings
) -> None:
    """The test's own offscreen screen (800×800, smaller than the window's minimum width):
    as tall as the screen lets it be, its title bar on the screen."""
    window = MainWindow(EmbedderProvider.of(FakeEmbedder()), settings=gui_settings)
    qtbot.addWidget(window)
    available = window.screen().availableGeometry()
    expected = first_geometry(WANTED_SIZE, available, FRAME_GUESS, window.minimumSizeHint())
    assert window.geometry() == expected
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.placed is None)  # the real frame checked
    frame = window.frameGeometry()
    assert available.top() <= frame.top() and frame.bottom() <= available.bottom()
    assert available.left() <= frame.left()


@pytest.fixture(params=[0, 11], ids=["default-font", "11pt-font"])
def app_font(qapp: QApplication, request: pytest.FixtureRequest) -> Iterator[QFont]:
    """The application's font, or one of a desktop's larger sizes (restored after the test)."""
    before = QFont(qapp.font())
    if request.param:
        qapp.setFont(QFont(before.family(), request.param))
    yield qapp.font()
    qapp.setFont(before)


def test_the_minimum_size_fits_1280_by_720_with_every_panel_and_a_long_status(
    qtbot: QtBot, gui_settings: Settings, app_font: QFont
) -> None:
    """The fusion controls in one line made the minimum 1267 pixels wide with the default
    font, and wider than 1280 with a desktop's 11 pt: they wrap now, and the status bar's
    labels elide (their minimum is a few characters)."""
    window = MainWindow(EmbedderProvider.of(FakeEmbedder()), settings=gui_settings)
    qtbot.addWidget(window)
    assert window.font().pointSize() == app_font.pointSize()
    report = index_report(
        notes=123_456,
        vectors=1_234_567,
        pending_embeddings=123_456,
        languages={"de": 72, "en": 28},
    )
    status = window.index_status
    status.show_health(
        Health("/v", "/d", index=report), "model: paraphrase-multilingual-MiniLM-L12-v2 (loading…)"
    )
    status.show_progress("Embedding", 1204, 9870, 14.0)
    drive(window).check(Action.QUALITY_PANEL, True)
    drive(window).check(Action.DISTRIBUTIONS, True)
    window.show()
    qtbot.waitExposed(window)
    room = QSize(1280, 720).shrunkBy(FRAME_GUESS)
    minimum = window.minimumSizeHint()
    assert minimum.width() <= room.width() and minimum.height() <= room.height(), minimum
    assert window.centralWidget().minimumSizeHint().width() <= room.width()

    window.resize(room)
    field = window.search_field

    def fitted() -> None:
        assert window.size() == room
        assert status.languages.elided  # the line gives way; the link is whole
        assert status.languages.shown_text().endswith(
            '<a href="multilingual-e5-small">use multilingual-e5-small…</a>'
        )
        assert field.fontMetrics().horizontalAdvance(field.placeholderText()) < field.width()
        assert field.placeholderText().startswith("Search notes — words")

    qtbot.waitUntil(fitted)
    assert window.statusBar().geometry().bottom() < window.height()
    # Nothing in the status bar ran past its right edge.
    bar = window.statusBar()
    right = max(w.geometry().right() for w in (status.counts, status.languages, status.watcher))
    assert status.mapTo(bar, status.rect().topLeft()).x() + right <= bar.width()


def test_the_note_in_the_preview_stays_selected_while_the_list_re_ranks(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    """During a first embedding the list re-ranked every few seconds and the selected note
    changed under the reader's eyes (issue 46): the top hit, selected by itself, was replaced
    by the new top hit."""
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.set_options(replace(ui.options(), fusion="rrf", w_fts=1.0, w_vec=0.0), emit=True)
    ui.search("deploy plan")
    first = ui.rows()[0]
    qtbot.waitUntil(lambda: ui.preview_path() == first)
    ui.set_options(replace(ui.options(), w_fts=0.0, w_vec=1.0), emit=True)  # re-ranked
    qtbot.waitUntil(lambda: ui.rows()[0] != first)
    current = ui.current_hit()
    assert current is not None and current.path == first
    assert ui.preview_path() == first
    ui.search("beta")  # a new query follows its own top hit
    qtbot.waitUntil(lambda: ui.preview_path() == ui.rows()[0])


def test_the_first_answer_with_meaning_selects_its_own_top_hit(
    qtbot: QtBot, make_window: WindowFactory, property_vault: Path
) -> None:
    """The words' answer comes first while the model loads; the whole answer that replaces it
    is a new one: its top hit is selected (the note read is kept only as the list re-ranks)."""
    release = threading.Event()
    fake = FakeEmbedder()

    def load() -> FakeEmbedder:
        release.wait(SAFETY_MS / 1000)
        return fake

    window = make_window(EmbedderProvider(fake.name, load), property_vault)
    ui = drive(window, qtbot)
    ui.set_options(replace(ui.options(), fusion="rrf", w_fts=0.01, w_vec=1.0), emit=True)
    words = ui.search("deploy plan")
    assert not words.semantic.available
    lexical = ui.rows()
    qtbot.waitUntil(lambda: ui.preview_path() == lexical[0])
    release.set()

    def whole() -> None:
        response = ui.response()
        assert response is not None and response.semantic.available

    qtbot.waitUntil(whole, timeout=SAFETY_MS)
    assert ui.rows() != lexical  # the test sees a re-ranking
    current = ui.current_hit()
    assert current is not None and current.path == ui.rows()[0]


def test_a_malformed_filter_is_noted_a_listing_counts_and_an_old_age_answers(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, vault: Path
) -> None:
    """The window says what the command line says on standard error: a malformed ``[…]`` was
    searched as text; a filter-only query says how many notes pass; a date filter beyond the
    index answers instead of failing."""
    for i in range(25):
        (vault / f"n{i}.md").write_text(f"---\nrating: {i % 5}\n---\n# Note {i}\n\ndeploy plan\n")
    window = make_window(fake_provider, vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("deploy [status:open")
    assert "[status:open is not a property filter (no ] closes it)" in ui.banner()
    ui.search("[rating:>=3]")
    assert ui.summary().startswith("10 notes match the filters")
    ui.search("[rating:>=0]")  # more than 20: the window's limit, not 20
    assert ui.row_count() == 25 and ui.summary().startswith("25 notes match the filters")
    ui.search("modified:<999999d")
    assert "every note passes it" in ui.banner() and ui.row_count() == 25
    ui.search("deploy modified:>2300")
    assert ui.row_count() == 0 and "search failed" not in ui.empty_text()


def test_a_preview_filter_clicked_twice_is_added_once_however_it_is_quoted(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, vault: Path
) -> None:
    """A breadcrumb's folder with a space (``path:"my notes/"``) was added again at each click:
    the query was searched for the filter word by word."""
    (vault / "my notes").mkdir()
    (vault / "my notes" / "a.md").write_text("# A\n\ndeploy plan\n")
    window = make_window(fake_provider, vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("deploy")
    ui.click_preview_link(filter_url("path", "my notes/"))
    ui.wait_for_results('deploy path:"my notes/"')
    ui.click_preview_link(filter_url("path", "my notes/"))
    assert ui.query() == 'deploy path:"my notes/"'
    ui.search('deploy PATH:"my notes/"')  # written otherwise, the same filter
    ui.click_preview_link(filter_url("path", "my notes/"))
    assert ui.query() == 'deploy PATH:"my notes/"'
