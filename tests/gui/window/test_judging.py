"""Judging in the window: keys 0–3 grade the selected hit into the vault's judgments.tsv, the
Grade column shows it, and the Quality dock scores the judged queries as ``eval`` does."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from explorer.embed.base import FakeEmbedder, Matrix
from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.datasets import load_judgments
from explorer.evaluate.judgments import judgments_path
from explorer.evaluate.runner import evaluate_vault
from explorer.evaluate.settings import EvalSettings
from explorer.gui.core.workers import run_in_pool
from explorer.gui.panels.quality_panel import EMPTY_TEXT, QualityReport
from explorer.gui.results.results_model import UNJUDGED, Column, ResultsModel, ResultsProxy, Role
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import MainWindow
from explorer.search.fusion.results import Hit
from explorer.search.query.options import MODES
from tests.gui.conftest import (
    SAFETY_MS,
    WindowFactory,
    cell,
    row_of,
    wait_for_results,
    wait_indexed,
)
from tests.gui.driver import drive
from tests.gui.helpers import response

QUERY = "deploy rollback checklist"


def test_grade_column_shows_grades_and_flags_unjudged_top_hits(
    qtmodeltester: ModelTester,
) -> None:
    model = ResultsModel()
    qtmodeltester.check(model)
    model.set_response(response())
    paths = [model.index(r, 0).data(Role.PATH) for r in range(model.rowCount())]
    assert all(model.index(r, Column.GRADE).data() == "" for r in range(len(paths)))

    model.set_grades({paths[1]: 2}, judged=True)
    assert model.index(1, Column.GRADE).data() == "2"
    assert model.index(1, Column.GRADE).data(Role.GRADE) == 2
    assert model.index(0, Column.GRADE).data() == UNJUDGED
    assert (
        model.index(0, Column.GRADE).data(Qt.ItemDataRole.ToolTipRole).startswith("not judged yet")
    )
    text, _, colour = model.cell(0, Column.GRADE)
    assert text == UNJUDGED and colour is not None  # muted, not the normal text colour
    assert model.cell(1, Column.GRADE)[2] is None
    # A new response of the same query keeps the grades; sorting by grade puts the best first.
    model.set_response(response(w_fts=0.1, w_vec=0.9), compare=True)
    proxy = ResultsProxy()
    proxy.setSourceModel(model)
    proxy.sort(Column.GRADE, Qt.SortOrder.DescendingOrder)
    assert proxy.index(0, Column.GRADE).data() == "2"
    model.set_grades({}, judged=False)
    assert all(model.index(r, Column.GRADE).data() == "" for r in range(model.rowCount()))


def open_judging(
    qtbot: QtBot, make_window: WindowFactory, provider: EmbedderProvider, vault: Path
) -> MainWindow:
    window = make_window(provider, vault)
    wait_indexed(qtbot, window)
    drive(window).check(Action.QUALITY_PANEL, True)
    drive(window).set_query(QUERY)
    wait_for_results(qtbot, window, QUERY, lambda w: _at_least(w.proxy.rowCount(), 3))
    drive(window).focus_results()
    return window


def test_keys_grade_the_selected_hit_into_the_tsv_and_the_panel_scores_it(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
) -> None:
    window = open_judging(qtbot, make_window, fake_provider, sample_copy)
    tsv = judgments_path(sample_copy.resolve(), str(data_dir))
    assert drive(window).quality_panel().path_label.text() == f"Judgments: {tsv}"
    assert drive(window).quality_panel().status.text() == EMPTY_TEXT
    assert not tsv.exists()

    drive(window).select(1)
    second = drive(window).rows()[1]
    with qtbot.waitSignal(
        drive(window).quality_panel().judging.saved, timeout=SAFETY_MS
    ):  # written off the GUI thread
        drive(window).press_in_results("2")

    assert tsv.read_text("utf-8") == f"{QUERY}\t{second}\t2\n"
    assert load_judgments(tsv) == {QUERY: {second: 2}}  # what eval --judgments reads
    assert cell(window, 1, Column.GRADE) == "2"
    message = drive(window).status()
    assert message.startswith("graded ") and f" 2 for '{QUERY}' — saved to {tsv}" in message
    # The other hits of the top 10 are flagged as not judged yet; below the top 10, nothing.
    others = [cell(window, r, Column.GRADE) for r in range(drive(window).row_count()) if r != 1]
    assert others[:9] == [UNJUDGED] * min(9, len(others))
    assert set(others[9:]) <= {""}

    # The panel lists the query with the scores eval gives for the same judgments.
    reports: list[QualityReport] = []
    drive(window).quality_panel().updated.connect(reports.append)

    def scored() -> None:
        rows = drive(window).quality_rows()
        assert len(rows) == 2 and rows[1][0] == QUERY, rows

    qtbot.waitUntil(scored, timeout=SAFETY_MS)
    rows = drive(window).quality_rows()
    settings = EvalSettings(search=replace(drive(window).options(), mode="hybrid", limit=100))
    judged = {QUERY: {second: 2}}
    expected = evaluate_vault(sample_copy, judged, settings, fake_provider, str(data_dir))
    for column, mode in enumerate(MODES, start=2):
        ndcg = expected.metrics[mode]["ndcg@10"]
        assert rows[0][column] == rows[1][column] == f"{ndcg:.3f}", (mode, rows)
    hybrid_rank = expected.rows[0]["rank_hybrid"]
    assert rows[1][2 + len(MODES) + MODES.index("hybrid")] == str(hybrid_rank)
    assert hybrid_rank == 2  # the graded hit sits second in the window's (hybrid) order

    # A change of the fusion settings re-scores from the kept lists, without a search.
    service = drive(window).quality_panel().service
    assert service is not None
    fetched = service.fetched
    with qtbot.waitSignal(drive(window).quality_panel().updated, timeout=SAFETY_MS):
        drive(window).set_control("w_fts", 0.0)
    assert service.fetched == fetched

    # Delete removes the grade: the file, the cell and the panel say so.
    drive(window).select(row_of(window, second))
    with qtbot.waitSignal(drive(window).quality_panel().judging.saved, timeout=SAFETY_MS):
        drive(window).press_in_results(Qt.Key.Key_Delete)
    assert load_judgments(tsv) == {}
    assert cell(window, row_of(window, second), Column.GRADE) == ""
    assert UNJUDGED not in [cell(window, r, Column.GRADE) for r in range(drive(window).row_count())]
    qtbot.waitUntil(lambda: _equal(drive(window).quality_rows(), []), timeout=SAFETY_MS)
    assert drive(window).quality_panel().status.text() == EMPTY_TEXT


def test_clicking_a_judged_query_runs_it_and_the_menu_grades(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
) -> None:
    tsv = judgments_path(sample_copy.resolve(), str(data_dir))
    tsv.parent.mkdir(parents=True, exist_ok=True)
    tsv.write_text("tar backup\tnotes/none.md\t1\n", "utf-8")
    window = open_judging(qtbot, make_window, fake_provider, sample_copy)
    qtbot.waitUntil(lambda: _equal(len(drive(window).quality_rows()), 2), timeout=SAFETY_MS)

    hit = drive(window).current_hit()
    assert isinstance(hit, Hit)
    grade_menu = next(a.menu() for a in drive(window).hit_menu(hit) if a.text() == "&Grade")
    assert isinstance(grade_menu, QMenu)
    with qtbot.waitSignal(drive(window).quality_panel().judging.saved, timeout=SAFETY_MS):
        next(a for a in grade_menu.actions() if a.text().startswith("&3")).trigger()
    assert load_judgments(tsv)[QUERY] == {hit.path: 3}
    qtbot.waitUntil(lambda: _equal(len(drive(window).quality_rows()), 3), timeout=SAFETY_MS)

    table = drive(window).quality_panel().table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "tar backup")
    rect = table.visualItemRect(table.item(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    wait_for_results(qtbot, window, "tar backup")
    assert drive(window).query() == "tar backup"


def test_a_damaged_judgments_file_is_reported_and_left_alone(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
) -> None:
    tsv = judgments_path(sample_copy.resolve(), str(data_dir))
    tsv.parent.mkdir(parents=True, exist_ok=True)
    damaged = f"{QUERY}\tnotes/a.md\t7\n"
    tsv.write_text(damaged, "utf-8")
    window = open_judging(qtbot, make_window, fake_provider, sample_copy)
    assert "damaged" in drive(window).quality_panel().status.text()
    assert "out of range" in drive(window).quality_panel().status.text()

    drive(window).select(0)
    drive(window).press_in_results(Qt.Key.Key_1)
    assert tsv.read_text("utf-8") == damaged  # not overwritten
    assert drive(window).status().startswith("Not graded:")
    assert cell(window, 0, Column.GRADE) == ""


@pytest.mark.parametrize("key", ["0", "3"])
def test_grading_the_recent_notes_listing_is_refused(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
    key: str,
) -> None:
    window = make_window(fake_provider, sample_copy)
    wait_for_results(qtbot, window, "", lambda w: _at_least(w.proxy.rowCount(), 1))
    drive(window).focus_results()
    drive(window).select(0)
    drive(window).press_in_results(key)
    assert not judgments_path(sample_copy.resolve(), str(data_dir)).exists()
    assert drive(window).status().startswith("Type a query first")


def _at_least(value: int, least: int) -> None:
    assert value >= least, value


def _equal(a: object, b: object) -> None:
    assert a == b, (a, b)


class GatedEmbedder(FakeEmbedder):
    """A FakeEmbedder that holds the embedding of one chosen text until released."""

    def __init__(self) -> None:
        super().__init__()
        self.gated: str | None = None
        self.entered = threading.Event()
        self.released = threading.Event()

    def embed(self, texts: list[str]) -> Matrix:
        if self.gated is not None and self.gated in texts:
            self.gated = None
            self.entered.set()
            self.released.wait(SAFETY_MS / 1000)
        return super().embed(texts)


def test_the_window_s_query_is_answered_while_the_dock_scores_a_large_judged_set(
    qtbot: QtBot, make_window: WindowFactory, sample_copy: Path, data_dir: Path
) -> None:
    """The Quality dock's questions and the window's query share one reader: the window's goes
    in between two judged queries, not after the last of them."""
    judged = [f"deploy step {i}" for i in range(300)]
    tsv = judgments_path(sample_copy.resolve(), str(data_dir))
    tsv.parent.mkdir(parents=True, exist_ok=True)
    tsv.write_text("".join(f"{q}\tnotes/a.md\t1\n" for q in judged), "utf-8")
    embedder = GatedEmbedder()
    window = make_window(EmbedderProvider.of(embedder), sample_copy)
    wait_indexed(qtbot, window)
    drive(window).set_query(QUERY)
    wait_for_results(qtbot, window, QUERY)

    order: list[str] = []
    drive(window).quality_panel().updated.connect(lambda _report: order.append("quality"))
    window.resultsShown.connect(lambda response: order.append(f"search: {response.query}"))
    embedder.gated = judged[0]  # the dock's first question waits in the model
    drive(window).check(Action.QUALITY_PANEL, True)
    qtbot.waitUntil(embedder.entered.is_set, timeout=SAFETY_MS)
    drive(window).set_query("cdn purge")  # asked while the dock is scoring
    embedder.released.set()
    qtbot.waitUntil(lambda: _equal("quality" in order, True), timeout=SAFETY_MS)
    assert order.index("search: cdn purge") < order.index("quality"), order
    report = drive(window).quality_panel().report
    assert report is not None and len(report.rows) == len(judged)


def test_a_grade_shows_at_once_and_reaches_the_file_off_the_gui_thread(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
) -> None:
    window = open_judging(qtbot, make_window, fake_provider, sample_copy)
    tsv = judgments_path(sample_copy.resolve(), str(data_dir))
    busy, release = threading.Event(), threading.Event()

    def hold() -> None:  # the grading thread is busy with an earlier grade
        busy.set()
        release.wait(SAFETY_MS / 1000)

    run_in_pool(hold, pool=drive(window).quality_panel().judging.pool)
    assert busy.wait(SAFETY_MS / 1000)
    drive(window).select(0)
    first = drive(window).rows()[0]
    drive(window).press_in_results(Qt.Key.Key_3)
    assert cell(window, 0, Column.GRADE) == "3"  # shown at once …
    assert not tsv.exists()  # … while the file waits for the grading thread
    with qtbot.waitSignal(drive(window).quality_panel().judging.saved, timeout=SAFETY_MS) as saved:
        release.set()
    assert load_judgments(tsv) == {QUERY: {first: 3}}
    assert str(saved.args[0]).startswith("graded ")
