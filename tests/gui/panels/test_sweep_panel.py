"""The Tune panel: a sweep over the window's fusion settings on the vault's judged queries,
drawn with pyqtgraph, with the best setting applied to the fusion controls on request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.datasets import load_judgments
from explorer.evaluate.judgments import judgments_path
from explorer.evaluate.runner import evaluate_vault
from explorer.evaluate.settings import EVAL_EMBED_TIMEOUT_S, RUN_LIMIT, EvalSettings
from explorer.evaluate.sweep import DEFAULT_GRID, OBJECTIVE, grid, parse_grid, share, sweep
from explorer.gui.panels.sweep_panel import SweepPanel, TuneResult, run_tune, summary_html
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import MainWindow
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending
from explorer.index.sync import sync_vault
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import RANKING, SearchOptions
from tests.gui.conftest import SAFETY_MS, WindowFactory, wait_indexed
from tests.gui.driver import drive

SAMPLE_JUDGMENTS = Path(__file__).parents[3] / "resources" / "judgments" / "sample-vault.tsv"


def write_judgments(vault: Path, data_dir: Path, queries: int | None = None) -> Path:
    """The sample vault's judged questions (the first ``queries`` of them) as the vault's own
    judgments file."""
    judged = load_judgments(SAMPLE_JUDGMENTS)
    chosen = list(judged.items())[:queries]
    path = judgments_path(vault, str(data_dir))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(f"{q}\t{p}\t{g}\n" for q, notes in chosen for p, g in notes.items()),
        encoding="utf-8",
    )
    return path


def ranking(options: SearchOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in RANKING if name != "mode"}


def open_panel(qtbot: QtBot, window: MainWindow) -> SweepPanel:
    drive(window).trigger(Action.TUNE)
    panel = drive(window).tune_panel()
    assert panel is not None and panel.isVisible()
    return panel


def plotted(panel: SweepPanel) -> list[tuple[float, float]]:
    points = []
    for item in panel.series_items.values():
        xs, ys = item.getData()
        points += list(zip(map(float, xs), map(float, ys), strict=True))
    return points


@pytest.mark.slow
def test_a_sweep_draws_every_setting_marks_best_and_current_and_applies_the_best(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
) -> None:
    write_judgments(sample_copy, data_dir, queries=6)
    window = make_window(fake_provider, sample_copy)
    wait_indexed(qtbot, window)
    # A poor start (the vector list alone, by score) so that the best is somewhere else.
    start = replace(SearchOptions(), fusion="convex", w_fts=0.0, w_vec=1.0)
    window.fusion.apply_preset(start)
    current = drive(window).options()

    panel = open_panel(qtbot, window)  # starts the sweep on a pool thread
    assert panel.running
    qtbot.waitUntil(lambda: _finished(panel), timeout=SAFETY_MS)
    result = panel.tuned
    assert isinstance(result, TuneResult)

    expected = grid(replace(current, mode="hybrid"), parse_grid(DEFAULT_GRID))
    points = plotted(panel)
    assert len(points) == len(expected) == len(result.sweep.points)
    assert set(panel.series_items) == {"RRF k=20", "RRF k=40", "RRF k=60", "RRF k=100", "convex"}
    assert result.sweep.queries == 6
    assert all(0.0 <= y <= 1.0 for _, y in points)

    best = result.best
    bx, by = (float(v[0]) for v in panel.best_item.getData())
    assert (bx, by) == pytest.approx((share(best.options), max(y for _, y in points)))
    cx, cy = (float(v[0]) for v in panel.current_item.getData())
    assert cx == 0.0  # the window's lexical share
    assert cy == pytest.approx(result.current.metrics[OBJECTIVE])
    assert any(x == 0.0 and y == pytest.approx(cy) for x, y in points)  # a grid point
    assert "6</b> judged queries" in panel.status.text()
    assert f"{best.metrics[OBJECTIVE]:.3f}" in panel.status.text()
    assert ranking(best.options) != ranking(current), "the start was meant to be a poor one"

    with qtbot.waitSignal(window.fusion.changed, timeout=SAFETY_MS):
        panel.apply_button.click()
    assert ranking(window.fusion.options()) == ranking(best.options)
    assert drive(window).mode() == current.mode  # the mode switch is the user's
    # The star follows the fusion controls: it now sits in the best point's ring.
    assert panel.tuned is not None and panel.tuned.current.options == best.options
    cx, cy = (float(v[0]) for v in panel.current_item.getData())
    assert (cx, cy) == pytest.approx((bx, by))
    assert "Applied the best setting" in panel.status.text()

    # A setting off the grid is scored from the same lists, at once (no search).
    searches = window.session.calls if window.session else 0
    window.fusion.w_fts_box.setValue(0.55)
    window.fusion.w_vec_box.setValue(0.45)
    assert panel.tuned.current.options.w_fts == 0.55
    assert panel.tuned.sweep.point(panel.tuned.current.options) is None
    cx, _ = (float(v[0]) for v in panel.current_item.getData())
    assert cx == pytest.approx(0.55)
    assert window.session is not None and window.session.calls == searches


def _finished(panel: SweepPanel) -> None:
    assert not panel.running
    assert panel.tuned is not None, panel.status.text()


def test_without_judgments_the_panel_says_where_the_file_goes(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
) -> None:
    window = make_window(fake_provider, sample_copy)
    qtbot.waitUntil(lambda: _open(window), timeout=SAFETY_MS)
    panel = open_panel(qtbot, window)
    path = judgments_path(sample_copy, str(data_dir))
    assert not path.exists()
    text = panel.status.text()
    assert "no judgments yet" in text
    assert str(path) in text
    assert "--judgments" in text
    assert not panel.apply_button.isEnabled()
    assert panel.plot is None  # nothing drawn, pyqtgraph not even needed

    # Graded later: "Run again" finds the file and sweeps, the queries first, then the settings.
    write_judgments(sample_copy, data_dir, queries=2)
    steps: list[tuple[str, int, int]] = []
    panel._signals.progress.connect(lambda _request, *step: steps.append(step))
    with qtbot.waitSignal(panel.finished_sweep, timeout=SAFETY_MS):
        panel.run_button.click()
    assert panel.tuned is not None and panel.tuned.sweep.queries == 2
    assert panel.apply_button.isEnabled()
    settings = len(panel.tuned.sweep.points)
    assert steps[:2] == [("queries", 1, 2), ("queries", 2, 2)]
    assert steps[2:] == [("sweep", n, settings) for n in range(1, settings + 1)]
    assert panel.progress.isHidden()


def test_a_damaged_judgments_file_is_named_with_its_line(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    data_dir: Path,
) -> None:
    path = judgments_path(sample_copy, str(data_dir))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("a query\tinbox/welcome.md\t2\nno tabs on this line\n", encoding="utf-8")
    window = make_window(fake_provider, sample_copy)
    qtbot.waitUntil(lambda: _open(window), timeout=SAFETY_MS)
    panel = open_panel(qtbot, window)
    # The worker's error reaches the panel through the event loop; wait on what it shows
    # (a signal could have come while the panel was opening).
    qtbot.waitUntil(lambda: "could not run" in panel.status.text(), timeout=SAFETY_MS)
    assert "could not run" in panel.status.text() and f"{path}:2" in panel.status.text()
    assert not panel.apply_button.isEnabled() and not panel.running


def _open(window: MainWindow) -> None:
    assert window.session is not None and window.session.is_open


@pytest.mark.model
def test_the_panel_scores_the_sample_vault_as_eval_sweep_does(
    qtbot: QtBot,
    make_window: WindowFactory,
    real_provider: EmbedderProvider,
    seeded_sample: Path,
    data_dir: Path,
) -> None:
    """With the real model, on all of the sample vault's judged questions: the panel's chart is
    the sweep ``vault-explorer eval VAULT --sweep`` computes (its own index connection, the
    window's settings as the base)."""
    write_judgments(seeded_sample, data_dir)
    window = make_window(real_provider, seeded_sample)
    wait_indexed(qtbot, window)
    panel = open_panel(qtbot, window)
    qtbot.waitUntil(lambda: _finished(panel), timeout=SAFETY_MS)
    result = panel.tuned
    assert result is not None and not result.degraded and not result.rejected

    judged = load_judgments(judgments_path(seeded_sample, str(data_dir)))
    base = replace(drive(window).options(), mode="hybrid", limit=RUN_LIMIT)
    report = evaluate_vault(
        seeded_sample, judged, EvalSettings(search=base), real_provider, str(data_dir)
    )
    expected = sweep(report.run.candidates, report.qrels, base, parse_grid(DEFAULT_GRID))
    assert result.sweep.queries == len(judged) == expected.queries
    assert [p.options for p in result.sweep.points] == [p.options for p in expected.points]
    got = [p.metrics[OBJECTIVE] for p in result.sweep.points]
    assert got == pytest.approx([p.metrics[OBJECTIVE] for p in expected.points])
    assert result.best.options == expected.best.options
    assert len(plotted(panel)) == len(expected.points)


@pytest.mark.slow
def test_opening_another_vault_closes_the_panel_of_the_old_one(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    sample_copy: Path,
    vault: Path,
    data_dir: Path,
) -> None:
    write_judgments(sample_copy, data_dir, queries=2)
    (vault / "note.md").write_text("# A note\n\nAbout nothing in particular.\n", encoding="utf-8")
    window = make_window(fake_provider, sample_copy)
    qtbot.waitUntil(lambda: _open(window), timeout=SAFETY_MS)
    old = open_panel(qtbot, window)
    qtbot.waitUntil(lambda: _finished(old), timeout=SAFETY_MS)

    drive(window).open_vault(vault)
    assert not old.isVisible()  # its best setting is not this vault's to apply
    new = open_panel(qtbot, window)
    assert new is not old and new.vault == vault.resolve()
    assert str(judgments_path(vault, str(data_dir))) in new.status.text()


def test_a_sweep_before_the_vectors_are_in_says_the_semantic_list_was_incomplete(
    vault: Path, write: Callable[[str, str], Path], data_dir: Path
) -> None:
    write("cdn.md", "# CDN purge\n\nPurge the CDN after a deploy, or the styles stay stale.\n")
    write("soup.md", "# Soup\n\nLentils, onion, cumin. Simmer for forty minutes.\n")
    judgments = judgments_path(vault, str(data_dir))
    judgments.parent.mkdir(parents=True, exist_ok=True)
    judgments.write_text("stale styles\tcdn.md\t3\nlentil soup\tsoup.md\t3\n", encoding="utf-8")
    db = IndexDB.open(vault, str(data_dir))
    sync_vault(db)  # the notes are in, their vectors are not
    provider = EmbedderProvider.of(FakeEmbedder())

    def tune() -> TuneResult:
        current = SearchOptions(limit=100)
        reader = IndexDB.open_reader(vault, str(data_dir))
        try:
            searcher = Searcher(reader, provider, embed_timeout=EVAL_EMBED_TIMEOUT_S)
            return run_tune(searcher, judgments, current, _ignore, lambda: False)
        finally:
            reader.close()

    early = tune()
    assert early.pending == 2 and early.sweep.queries == 2
    assert "2 passages were still waiting for their vectors" in summary_html(early)
    embed_pending(db, provider.get())
    db.close()
    later = tune()
    assert later.pending == 0
    assert "waiting for their vectors" not in summary_html(later)


def _ignore(*_: object) -> None:
    return None
