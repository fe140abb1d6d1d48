"""``bench --startup``'s report: every figure against its budget, pass or FAIL, and a figure
that could not be taken said as such (the measurement itself runs the real program: see
``docs/benchmarks.md``)."""

from __future__ import annotations

import pytest

from explorer.evaluate.bench import BenchError, BenchSettings, run_bench
from explorer.evaluate.startup import BUDGETS, LABELS, format_startup


def _figure(seconds: float | None, budget: float) -> dict[str, object]:
    return {
        "seconds": seconds,
        "budgetSeconds": budget,
        "pass": seconds is not None and seconds <= budget,
    }


def test_each_figure_is_printed_with_its_budget_and_verdict() -> None:
    figures = {
        "query": "cache purge",
        "servedByWatcher": True,
        "figures": {
            "cliWithWatcherSeconds": _figure(0.31, 0.5),
            "cliWarmSeconds": _figure(16.2, 15.0),
            "windowWarmFirstWindowSeconds": _figure(None, 3.0),
        },
    }
    lines = format_startup(figures)
    assert "cache purge" in lines[0]
    watcher, alone, window = lines[1:]
    assert LABELS["cliWithWatcherSeconds"] in watcher
    assert "0.31 s" in watcher and "budget 0.5 s" in watcher and watcher.endswith("pass")
    assert "16.20 s" in alone and alone.endswith("FAIL")
    assert "—" in window and window.endswith("FAIL")


def test_a_search_the_watch_did_not_answer_is_said() -> None:
    lines = format_startup({"query": "q", "servedByWatcher": False, "figures": {}})
    assert "did not answer" in lines[-1]


def test_every_figure_has_a_label_and_a_budget() -> None:
    assert set(BUDGETS) == set(LABELS)
    assert BUDGETS["cliWithWatcherSeconds"] == 0.5  # the goal
    assert BUDGETS["cliWarmSeconds"] == 3.0  # issue 45's first search alone


def test_startup_needs_the_model() -> None:
    with pytest.raises(BenchError, match="--startup"):
        run_bench(BenchSettings(notes=5, embed=False, startup=True))


def test_a_figure_without_a_budget_and_what_the_first_results_were_found_by() -> None:
    first = _figure(2.4, 30.0) | {"foundBy": "words"}
    figures = {
        "query": "q",
        "servedByWatcher": True,
        "figures": {
            "windowColdFirstResultsSeconds": first,
            "windowColdSettledSeconds": {"seconds": 81.2, "budgetSeconds": None, "pass": None},
        },
    }
    results, settled = format_startup(figures)[1:]
    assert results.endswith("pass (by words)") and "2.40 s" in results
    assert "81.20 s" in settled and "no budget" in settled
    assert "pass" not in settled and "FAIL" not in settled
    assert BUDGETS["windowColdSettledSeconds"] is None
