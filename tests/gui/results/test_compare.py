"""The pinned baseline in the window: pin, change the fusion settings, and every row shows its
rank under the baseline and its move, rows that left the top are listed greyed as "gone", and
the line above the table gives the overlap; the preset pairs; unpin."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.results.compare_bar import PAIRS, overlap_line
from explorer.gui.results.results_model import Column
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import MainWindow
from explorer.search.answers.compare import compare_lists, describe, rbo
from explorer.search.fusion.cached import CachedLists
from explorer.search.fusion.evidence import CALIBRATION
from explorer.search.fusion.results import Candidates, SemanticStatus
from explorer.search.query.options import PRESETS, RANKING, SearchOptions
from explorer.search.query.query import MAX_QUERY_CHARS, parse_query
from tests.gui.conftest import (
    WindowFactory,
    cell,
    record_searches,
    wait_for_results,
    wait_indexed,
)
from tests.gui.driver import drive

QUERY = "deploy rollback checklist"


def _open(
    qtbot: QtBot, make_window: WindowFactory, provider: EmbedderProvider, vault: Path
) -> MainWindow:
    window = make_window(provider, vault)
    wait_indexed(qtbot, window)
    drive(window).set_query(QUERY)

    def both_lists(w: MainWindow) -> None:
        assert w.response is not None and w.response.semantic.available
        assert {h.source for h in w.response.hits} >= {"both"}

    wait_for_results(qtbot, window, QUERY, both_lists)
    return window


def _column(window: MainWindow, column: Column) -> list[str]:
    return [cell(window, r, column) for r in range(drive(window).row_count())]


def _ranking(options: SearchOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in RANKING}


def test_pin_then_change_a_weight_shows_base_ranks_moves_and_overlap(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    qtmodeltester: ModelTester,
) -> None:
    window = _open(qtbot, make_window, fake_provider, sample_copy)
    assert drive(window).column_hidden(Column.BASE) and not drive(window).compare_visible()
    requested = record_searches(window)
    before = drive(window).rows()

    drive(window).trigger(Action.PIN_BASELINE)
    assert not drive(window).column_hidden(Column.BASE) and drive(window).compare_visible()
    assert _column(window, Column.BASE) == _column(window, Column.RANK)
    assert "Jaccard@10 1.00 · RBO(p=0.9) 1.00" in drive(window).compare_text()
    assert (
        drive(window).compare_text().startswith(f"vs baseline {describe(drive(window).options())}:")
    )

    drive(window).set_control("w_fts", 0.05)  # through the fusion controls, as a user would
    after = drive(window).rows()
    assert after != before
    base_rank = {path: rank for rank, path in enumerate(before, start=1)}
    for row, path in enumerate(after):
        assert cell(window, row, Column.BASE) == str(base_rank[path])
        move = base_rank[path] - (row + 1)
        expected = f"↑{move}" if move > 0 else f"↓{-move}" if move < 0 else ""
        assert cell(window, row, Column.MOVE) == expected, path
    assert any(m.startswith("↑") for m in _column(window, Column.MOVE))
    shared = len(set(before[:10]) & set(after[:10]))
    jaccard = shared / len(set(before[:10]) | set(after[:10]))
    text = drive(window).compare_text()
    assert f"Jaccard@10 {jaccard:.2f} · RBO(p=0.9) {rbo(before, after):.2f}" in text
    assert "lists agree @10" in text

    # A shallower depth: the baseline's rows that left the top are listed, greyed, as gone.
    drive(window).set_control("depth", 3)
    hits = len(drive(window).response().hits) if drive(window).response() else 0
    ranks = _column(window, Column.RANK)
    gone = [r for r in range(drive(window).row_count()) if cell(window, r, Column.MOVE) == "gone"]
    assert gone and len(gone) == drive(window).row_count() - hits
    assert all(ranks[r] == "—" for r in gone) and all(ranks[r] != "—" for r in range(hits))
    gone_paths = {drive(window).rows()[r] for r in gone}
    assert gone_paths == set(before) - {h.path for h in drive(window).response().hits}  # type: ignore[union-attr]
    assert f"{len(gone)} left the top" in drive(window).compare_text()
    grey = drive(window).data(gone[0], Qt.ItemDataRole.ForegroundRole, Column.TITLE)
    assert isinstance(grey, QColor)
    assert grey is not None and grey.saturation() < 40
    qtmodeltester.check(drive(window).results_model())

    # Re-pinned at that depth, the deeper default brings rows in that are new to the baseline.
    drive(window).repin()
    assert drive(window).baseline() is not None and drive(window).baseline().depth == 3
    drive(window).set_control("depth", SearchOptions().depth)
    moves = _column(window, Column.MOVE)
    new = [r for r, m in enumerate(moves) if m == "new"]
    assert new and all(cell(window, r, Column.BASE) == "—" for r in new)
    assert "gone" not in moves
    assert requested == []  # the baseline re-fuses the cached lists too

    drive(window).trigger(Action.UNPIN_BASELINE)
    assert drive(window).column_hidden(Column.BASE) and not drive(window).compare_visible()
    assert drive(window).response() is not None and drive(window).baseline() is None
    assert drive(window).row_count() == len(drive(window).response().hits)
    assert not {"gone", "new"} & set(_column(window, Column.MOVE))


def test_seed_rrf_vs_default_is_one_click(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = _open(qtbot, make_window, fake_provider, sample_copy)
    drive(window).set_control("w_fts", 1.5)  # whatever is on screen, the pair sets both sides
    drive(window).set_mode("fts")
    drive(window).compare_pair(0)
    assert PAIRS[0].label == "Seed RRF vs Default"
    assert drive(window).baseline() is not None and drive(window).mode() == "hybrid"
    assert _ranking(drive(window).baseline()) == _ranking(PRESETS["seed"])
    assert _ranking(drive(window).options()) == _ranking(SearchOptions())

    def compared(w: MainWindow) -> None:
        assert drive(w).comparison() is not None and w.response is not None
        assert w.response.options.mode == "hybrid" and w.response.semantic.available

    wait_for_results(qtbot, window, QUERY, compared)
    assert (
        drive(window)
        .compare_text()
        .startswith(f"vs baseline {describe(replace(PRESETS['seed'], mode='hybrid'))}:")
    )
    assert all(b != "" for b in _column(window, Column.BASE))


def test_hybrid_vs_semantic_pins_hybrid_and_shows_the_vector_list(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = _open(qtbot, make_window, fake_provider, sample_copy)
    hybrid = drive(window).rows()
    requested = record_searches(window)
    drive(window).compare_pair(1)
    assert drive(window).mode() == "semantic" and drive(window).baseline() is not None
    assert drive(window).baseline().mode == "hybrid"
    assert requested == []  # hybrid's lists have the vector list: no new search
    response = drive(window).response()
    assert response is not None and response.options.mode == "semantic"
    shown = {h.path for h in response.hits}
    base = _column(window, Column.BASE)
    paths = drive(window).rows()
    for row, path in enumerate(paths):
        expected = str(hybrid.index(path) + 1) if path in hybrid else "—"
        assert base[row] == expected
    gone = [p for p, m in zip(paths, _column(window, Column.MOVE), strict=True) if m == "gone"]
    assert set(gone) == set(hybrid) - shown  # the lexical-only notes left the top
    assert gone


def test_ctrl_b_pins_and_ctrl_shift_b_unpins(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = _open(qtbot, make_window, fake_provider, sample_copy)
    window.activateWindow()
    qtbot.waitUntil(lambda: _focused())
    drive(window).press_in_field(Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert drive(window).baseline() is not None and drive(window).compare_visible()
    assert drive(window).action(Action.UNPIN_BASELINE).isEnabled()
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    drive(window).press_in_field(Qt.Key.Key_B, shift_ctrl)
    assert drive(window).baseline() is None and not drive(window).compare_visible()
    assert not drive(window).action(Action.UNPIN_BASELINE).isEnabled()


def _focused() -> None:
    assert QGuiApplication.focusWindow() is not None


def test_a_failed_search_leaves_nothing_compared(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, sample_copy: Path
) -> None:
    window = _open(qtbot, make_window, fake_provider, sample_copy)
    drive(window).trigger(Action.PIN_BASELINE)
    assert "Jaccard@10 1.00" in drive(window).compare_text()
    too_long = "word " * (MAX_QUERY_CHARS // 5 + 1)
    drive(window).set_query(too_long)
    qtbot.waitUntil(lambda: _assert_no_result(window))
    assert drive(window).compare_visible() and drive(window).comparison() is None
    assert drive(window).compare_text().endswith(": no result to compare")
    assert drive(window).row_count() == 0


def _assert_no_result(window: MainWindow) -> None:
    assert (
        drive(window).response() is None
        and not drive(window).searching()
        and drive(window).empty_text() != ""
    )


@pytest.mark.model
def test_seed_vs_default_with_the_real_model_lists_what_the_floor_cuts(
    qtbot: QtBot,
    make_window: WindowFactory,
    real_provider: EmbedderProvider,
    seeded_sample: Path,
) -> None:
    window = make_window(real_provider, seeded_sample)
    wait_indexed(qtbot, window)
    query = "how do we roll back a bad deploy"
    drive(window).set_query(query)
    wait_for_results(qtbot, window, query, lambda w: _semantic(w))
    drive(window).compare_pair(0)

    def compared(w: MainWindow) -> None:
        _semantic(w)
        assert (c := drive(w).comparison()) is not None and c.gone

    wait_for_results(qtbot, window, query, compared)
    comparison = drive(window).comparison()
    assert comparison is not None
    assert drive(window).response() is not None
    # The seed has no similarity floor: what leaves its top is what the default does not count
    # as found by meaning, vector-only notes that do not stand 1 σ above the query's vault mean.
    for row in comparison.gone:
        assert row.hit.fts_rank is None and row.hit.vector_sigmas is not None
        assert row.hit.vector_sigmas < CALIBRATION.found_sigmas, row.path
    assert f"{len(comparison.gone)} left the top" in drive(window).compare_text()


def _semantic(window: MainWindow) -> None:
    assert drive(window).response() is not None and drive(window).response().semantic.available


def test_the_line_says_when_a_side_has_no_vector_list() -> None:
    candidates = Candidates(query=parse_query("cache"), mode="hybrid", depth=100)
    candidates.lexical = [("a.md", 2.0, "a"), ("b.md", 1.0, "b")]
    candidates.semantic = SemanticStatus(False, "the model is still loading", "fake")
    lists = CachedLists.of("cache", candidates, SearchOptions())
    baseline = SearchOptions(mode="fts")
    comparison = compare_lists(lists, baseline, SearchOptions(mode="semantic"))
    line = overlap_line(baseline, comparison)
    assert "Jaccard@10 0.00" in line and "2 left the top" in line
    assert line.endswith("semantic unavailable: the model is still loading")
