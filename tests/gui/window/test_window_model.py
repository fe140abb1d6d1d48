"""The window with the real all-MiniLM-L6-v2 over the sample vault: real semantics, real tints
on real pixels, live updates, degradation with a model that cannot load, and the headless
screenshot."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider, ModelState, shared_provider
from explorer.gui.core.theme import tints, washed
from explorer.gui.results.results_model import Column, Role
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import MainWindow
from tests.gui.conftest import (
    WindowFactory,
    cell,
    record_searches,
    row_of,
    row_pixel,
    unselected_row_with,
    wait_for_results,
    wait_indexed,
)
from tests.gui.driver import drive
from tests.gui.helpers import calibrated_window, search
from tests.sample_vault_facts import PARAPHRASE_QUERY, PARAPHRASE_TARGET, STALE_QUERY

pytestmark = pytest.mark.model


def test_real_model_window(
    qtbot: QtBot,
    make_window: WindowFactory,
    real_provider: EmbedderProvider,
    seeded_sample: Path,
) -> None:
    window = make_window(real_provider, seeded_sample)
    wait_indexed(qtbot, window)

    # A paraphrase: no word of it is in the vault; only the vector list finds the note.
    drive(window).type(PARAPHRASE_QUERY)

    def paraphrase_found(w: MainWindow) -> None:
        assert w.response is not None and w.response.semantic.available
        assert drive(w).rows()[0] == PARAPHRASE_TARGET

    wait_for_results(qtbot, window, PARAPHRASE_QUERY, paraphrase_found)
    assert drive(window).data(0, Role.SOURCE) == "vector"
    assert cell(window, 0, Column.FTS_RANK) == "—" and cell(window, 0, Column.VEC_RANK) == "1"
    assert drive(window).response() is not None
    top = drive(window).response().hits[0]
    # calibrated: the vector evidence (weight 1), a modest cosine far above the vault's bulk
    assert cell(window, 0, Column.VEC_CONTRIB) == f"{top.contributions['vector']:.5f}"
    assert 0 < top.fused_score < 1
    assert not drive(window).banner_visible()

    # The convex preset's relative floor keeps only the clear best match here; without it the
    # vector list's tail shows, vector-only rows painted amber: the pixels say so, not only
    # the role.
    drive(window).apply_preset("convex")
    qtbot.waitUntil(lambda: _assert_rows(window, 1))
    drive(window).set_control("min_rel", 0.0)
    assert drive(window).row_count() > 1
    palette = drive(window).results_palette()
    colours = tints(palette)
    amber = row_pixel(window, unselected_row_with(window, "vector"))
    expected = colours.vector
    if drive(window).response() is not None and drive(window).response().close_match is False:
        # a modest paraphrase under the calibrated bar: its rows are muted, still amber
        expected = washed(colours.vector, palette.base().color())
    assert amber == expected, amber.name()

    # A query both lists answer, with a similarity floor: lexical-only rows are painted blue.
    drive(window).set_query(STALE_QUERY)
    wait_for_results(qtbot, window, STALE_QUERY)
    requested = record_searches(window)
    drive(window).set_control("min_sim", 0.35)
    blue_row = unselected_row_with(window, "fts")
    assert row_pixel(window, blue_row) == colours.fts, row_pixel(window, blue_row).name()
    both_row = unselected_row_with(window, "both")
    assert row_pixel(window, both_row) == palette.color(palette.ColorRole.Base)
    for row in range(drive(window).row_count()):
        for column in (Column.FUSED, Column.FTS_CONTRIB, Column.VEC_CONTRIB):
            text = cell(window, row, column)
            # Five decimals; convex scores reach 1 (a note best in both lists).
            assert text == "—" or re.fullmatch(r"[01]\.\d{5}", text), text

    # Changing a weight re-orders the rows from the cached lists: no new search.
    before = drive(window).rows()
    drive(window).set_control("w_fts", 0.0)
    assert drive(window).rows() != before
    assert requested == []

    # A note written now is indexed, embedded and shown, found by both lists.
    note = seeded_sample / "travel" / "zebra-crossing.md"
    note.write_text(
        "# Zebra crossing\n\nThe zebra crossing by the office needs new paint before winter; "
        "pedestrians can hardly see the stripes at dusk.\n",
        encoding="utf-8",
    )
    drive(window).trigger(Action.RESET_FUSION)
    drive(window).set_query("zebra crossing paint")

    def new_note_found(w: MainWindow) -> None:
        row = row_of(w, "travel/zebra-crossing.md")
        assert row == 0
        assert drive(w).data(row, Role.SOURCE) == "both"

    wait_for_results(qtbot, window, "zebra crossing paint", new_note_found, timeout=20_000)


def test_gibberish_says_no_close_match_and_a_real_question_does_not(
    qtbot: QtBot,
    make_window: WindowFactory,
    real_provider: EmbedderProvider,
    seeded_sample: Path,
) -> None:
    window = calibrated_window(qtbot, make_window, real_provider, seeded_sample)
    search(qtbot, window, "asdfgh qwerty")
    assert drive(window).response() is not None and drive(window).response().hits
    assert drive(window).response().close_match is False
    assert drive(window).no_match_visible() and "No close match for ‘asdfgh qwerty’" in (
        drive(window).no_match_text()
    )
    assert all(
        drive(window).data(row, Role.MUTED, Column.TITLE)
        for row in range(drive(window).row_count())
    )

    search(qtbot, window, "how do I keep my sourdough starter alive")
    assert drive(window).response() is not None and drive(window).response().close_match is True
    assert drive(window).rows()[0] == "recipes/sourdough-starter.md"
    assert not drive(window).no_match_visible()
    assert not any(
        drive(window).data(row, Role.MUTED, Column.TITLE)
        for row in range(drive(window).row_count())
    )


def test_banner_when_the_model_cannot_load(
    qtbot: QtBot, make_window: WindowFactory, sample_copy: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "broken-model"
    bad.mkdir()
    (bad / "config.json").write_text("{ not json", encoding="utf-8")
    provider = shared_provider(str(bad))  # what `--model PATH` gives the window
    window = make_window(provider, sample_copy)
    drive(window).set_query("cdn purge")

    def degraded(w: MainWindow) -> None:
        assert provider.state == ModelState.FAILED
        assert w.banner.isVisible()
        assert "unavailable" in w.banner.message() and "broken-model" in w.banner.message()
        assert w.response is not None and w.response.hits
        assert {h.source for h in w.response.hits} == {"fts"}

    wait_for_results(qtbot, window, "cdn purge", degraded, timeout=60_000)
    assert "failed" in drive(window).model_status()


def test_screenshot_command_saves_the_window(
    seeded_sample: Path, data_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "VAULT_EXPLORER_SCREENSHOT_TIMEOUT": "60"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "gui",
            str(seeded_sample),
            "--query",
            "cdn purge",
            "--screenshot",
            str(target),
            "--data-dir",
            str(data_dir),
            "-v",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "did not settle" not in proc.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1440, 880)
    # What bench --startup times the window by: on screen, then the first results drawn.
    said = proc.stderr
    assert re.search(r"first results shown: \d+ hits by (words|words and meaning)\n", said)
    assert said.index("window shown") < said.index("first results shown")
    assert said.count("first results shown") == 1


def _assert_rows(window: MainWindow, count: int) -> None:
    assert drive(window).row_count() == count
