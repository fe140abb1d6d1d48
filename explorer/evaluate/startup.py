"""Start-up figures for ``bench --startup``: how long a person waits for the first window and
the first results, cold and warm, and a command-line search with and without a running
``watch`` — each a real ``vault-explorer`` in a child process, timed from its start.

- **cold**: a first start on a fresh data folder — a new index is made (the vault read and
  indexed) and the model loaded;
- **warm**: a second start on the same vault — its index exists, every chunk embedded (the
  bench's own index, copied into the data folder), so what is left is the program's start, the
  model's load and an unchanged re-sync;
- **with a watcher**: warm, with a ``watch`` of the vault running, which answers the search
  over its socket (:mod:`explorer.commands.warm`); timed after one untimed search, by which
  the watch has its model loaded.

The window (``gui --query Q --screenshot PNG`` on the ``offscreen`` Qt platform) is timed to
its first turn of the event loop, the window on screen (its ``window shown`` log line); to the
first results drawn (``first results shown``: by words alone on a cold start, the vault not yet
embedded); and to its exit once it has settled (every note embedded, the results by words and
meaning drawn and saved).  Each figure is checked against a budget (:data:`BUDGETS`, seconds;
none for the settled window, which grows with the vault): the figures say pass or fail,
``bench`` does not change its exit status for them.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from explorer.index.db import index_path
from explorer.jobs import PriorityExecutor

#: The budgets, in seconds, of each figure (measured on a 2-core laptop-class machine);
#: ``None``: reported without one.
BUDGETS: dict[str, float | None] = {
    "cliColdSeconds": 30.0,
    "cliWarmSeconds": 3.0,  # a first search alone (issue 45: ≤ 3 s)
    "cliWithWatcherSeconds": 0.5,
    "windowColdFirstWindowSeconds": 5.0,
    "windowColdFirstResultsSeconds": 30.0,
    "windowColdSettledSeconds": None,
    "windowWarmFirstWindowSeconds": 3.0,
    "windowWarmFirstResultsSeconds": 15.0,
    "windowWarmSettledSeconds": None,
}

#: What each figure is, as ``bench`` prints it.
LABELS = {
    "cliColdSeconds": "search, cold (new index)",
    "cliWarmSeconds": "search, warm, alone",
    "cliWithWatcherSeconds": "search, warm, watch running",
    "windowColdFirstWindowSeconds": "window, cold: first window",
    "windowColdFirstResultsSeconds": "window, cold: first results",
    "windowColdSettledSeconds": "window, cold: all embedded",
    "windowWarmFirstWindowSeconds": "window, warm: first window",
    "windowWarmFirstResultsSeconds": "window, warm: first results",
    "windowWarmSettledSeconds": "window, warm: settled",
}

#: Searches timed through the watcher (the median is the figure).
WARM_RUNS = 5

#: Seconds any one child may take.
CHILD_TIMEOUT = 900.0

#: Where a child's standard error is read while it runs.
_PIPES = PriorityExecutor("bench-child-stderr")


def _program(*args: str) -> list[str]:
    return [sys.executable, "-m", "explorer", *args]


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


def _timed(argv: list[str], env: dict[str, str]) -> float:
    """Seconds ``argv`` takes to run to its end (it must succeed)."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{argv[3]} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return seconds


def _window(
    vault: Path, data: Path, query: str, model: list[str], shot: Path
) -> tuple[float | None, float | None, str | None, float]:
    """Seconds to the window's first turn and to its first results (``None`` if it never said
    so), what those results were found by (``words`` or ``words and meaning``), and seconds to
    its exit once it settled and saved its picture."""
    argv = _program("gui", str(vault), "--query", query, "--screenshot", str(shot), "-v")
    argv += ["--data-dir", str(data), *model]
    shown: list[float] = []
    results: list[float] = []
    found_by: list[str] = []
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=_env(QT_QPA_PLATFORM="offscreen"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    tail: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if not shown and "window shown" in line:
                shown.append(time.perf_counter() - started)
            if not results and "first results shown" in line:
                results.append(time.perf_counter() - started)
                found_by.append(line.rsplit(" by ", 1)[-1].strip())
            tail[:] = [*tail[-4:], line]

    reading = _PIPES.submit(read)
    code = proc.wait(timeout=CHILD_TIMEOUT)
    total = time.perf_counter() - started
    reading.result()
    if code != 0:
        raise RuntimeError(f"the window failed ({code}): {''.join(tail).strip()[-300:]}")
    first_results = results[0] if results else None
    return (shown[0] if shown else None), first_results, next(iter(found_by), None), total


def _watch(vault: Path, data: Path, model: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            _program("watch", str(vault), "--data-dir", str(data), *model),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + CHILD_TIMEOUT
    while b"answering search" not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the watch did not serve: {log.read_text(errors='replace')}")
        time.sleep(0.1)
    return proc


def measure_startup(
    vault: Path,
    built: Path,
    scratch: Path,
    query: str,
    model: str | None,
    *,
    window: bool = True,
) -> dict[str, Any]:
    """The figures of this module's docstring; ``built`` is an index of ``vault`` with every
    chunk embedded by ``model`` (copied for the warm starts)."""
    given = ["--model", model] if model else []
    cold, warm = scratch / "startup-cold", scratch / "startup-warm"
    for folder in (cold, warm):
        shutil.rmtree(folder, ignore_errors=True)
    target = index_path(vault, warm)
    target.parent.mkdir(parents=True)
    shutil.copyfile(built, target)
    alone = _env(VAULT_EXPLORER_WARM="0")
    search = ["search", str(vault), query]
    seconds: dict[str, float | None] = {}
    found_by: dict[str, str | None] = {}  # the first results: by words, or words and meaning
    seconds["cliColdSeconds"] = _timed(_program(*search, "--data-dir", str(cold), *given), alone)
    seconds["cliWarmSeconds"] = _timed(_program(*search, "--data-dir", str(warm), *given), alone)
    watch = _watch(vault, warm, given, scratch / "startup-watch.log")
    try:
        _timed(_program(*search, "--data-dir", str(warm), *given), _env())  # its model loaded
        runs = sorted(
            _timed(_program(*search, "--data-dir", str(warm), *given), _env())
            for _ in range(WARM_RUNS)
        )
        seconds["cliWithWatcherSeconds"] = runs[len(runs) // 2]
        said = subprocess.run(
            _program(*search, "--data-dir", str(warm), *given, "-v"),
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT,
        ).stderr
        served = "answered by" in said
    finally:
        watch.send_signal(signal.SIGTERM)
        try:
            watch.wait(timeout=60)
        except subprocess.TimeoutExpired:
            watch.kill()
            watch.wait()
    out: dict[str, Any] = {"query": query, "servedByWatcher": served}
    if window:
        shutil.rmtree(cold, ignore_errors=True)  # the window's cold start: a fresh folder too
        for start, data in (("Cold", cold), ("Warm", warm)):
            shot = scratch / f"startup-{start.lower()}.png"
            first, results, by, settled = _window(vault, data, query, given, shot)
            seconds[f"window{start}FirstWindowSeconds"] = first
            seconds[f"window{start}FirstResultsSeconds"] = results
            seconds[f"window{start}SettledSeconds"] = settled
            found_by[f"window{start}FirstResultsSeconds"] = by
    out["figures"] = {
        key: _figure(value, BUDGETS[key], found_by.get(key)) for key, value in seconds.items()
    }
    return out


def _figure(seconds: float | None, budget: float | None, found_by: str | None) -> dict[str, Any]:
    """A figure as ``bench`` reports it: ``pass`` is ``None`` when it has no budget;
    ``foundBy`` (first results only) what found them."""
    verdict = None if budget is None else seconds is not None and seconds <= budget
    figure = {
        "seconds": None if seconds is None else round(seconds, 3),
        "budgetSeconds": budget,
        "pass": verdict,
    }
    return figure if found_by is None else {**figure, "foundBy": found_by}


def format_startup(figures: dict[str, Any]) -> list[str]:
    """The lines ``bench`` prints for :func:`measure_startup`'s figures."""
    lines = [f"start-up (query ‘{figures['query']}’; cold: a new index, warm: the index built)"]
    for key, figure in figures["figures"].items():
        value = figure["seconds"]
        shown = "     —" if value is None else f"{value:6.2f}"
        budget = figure["budgetSeconds"]
        if budget is None:
            lines.append(f"  {LABELS[key]:<32}{shown} s  (no budget: it grows with the vault)")
            continue
        verdict = "pass" if figure["pass"] else "FAIL"
        by = f" (by {figure['foundBy']})" if figure.get("foundBy") else ""
        lines.append(f"  {LABELS[key]:<32}{shown} s  budget {budget:g} s  {verdict}{by}")
    if not figures["servedByWatcher"]:
        lines.append("  (the watch did not answer the search: it worked alone)")
    return lines
