"""What the embedding's resource controls cost: throughput at each thread setting, and the look
at the battery the live embedder takes between batches.

``vault-explorer bench --embed-threads-sweep`` embeds the same chunks, :data:`EMBED_BATCH` a
call as the live index does, with 1, 2, … ``os.cpu_count()`` threads (torch's setting, which
``--embed-threads`` and ``VAULT_EXPLORER_EMBED_THREADS`` choose), each setting twice in an
A-B-B-A order so that a neighbour's load drifting during the run weighs on every setting alike;
and it times :func:`explorer.live.power.on_battery`.  A pause costs nothing while it is off (an
event looked at between two batches) and all of the throughput while it is on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from explorer.embed.base import Embedder
from explorer.embed.threads import torch_threads, use_threads
from explorer.live.embedder import EMBED_BATCH
from explorer.live.power import BATTERY_EVERY, on_battery

#: Chunks embedded at each thread setting (each of its two rounds).
SWEEP_CHUNKS = 256
#: Looks at the battery timed.
BATTERY_CALLS = 200


def thread_settings(cpus: int | None = None) -> list[int]:
    """1, 2, … the machine's cores."""
    return list(range(1, (cpus if cpus is not None else os.cpu_count() or 1) + 1))


def _round(embedder: Embedder, passages: list[str]) -> tuple[float, float]:
    """Seconds of wall clock and of this process's CPU time to embed ``passages``."""
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(passages), EMBED_BATCH):
        embedder.embed(passages[start : start + EMBED_BATCH])
    return time.perf_counter() - wall, time.process_time() - cpu


def sweep_threads(
    embedder: Embedder,
    passages: list[str],
    settings: list[int] | None = None,
    set_threads: Callable[[int], object] = use_threads,
) -> dict[str, Any]:
    """Chunks a second for ``passages`` at each thread count of ``settings`` (default
    :func:`thread_settings`), set with ``set_threads``; the setting in force before is given
    back.  Returns the figures ``bench --json`` prints under ``embedThreads``."""
    if not passages:
        raise ValueError("no chunks to embed")
    counts = settings or thread_settings()
    before = torch_threads()
    seconds: dict[int, list[float]] = {n: [] for n in counts}
    cpu: dict[int, list[float]] = {n: [] for n in counts}
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    try:
        set_threads(counts[-1])
        embedder.embed(passages[:EMBED_BATCH])  # warm the model's first-call paths
        for order in (counts, counts[::-1]):  # A-B-B-A
            for n in order:
                set_threads(n)
                wall, used = _round(embedder, passages)
                seconds[n].append(wall)
                cpu[n].append(used)
    finally:
        if before is not None:
            set_threads(before)
    rows = []
    for n in counts:
        wall = sum(seconds[n])
        rows.append(
            {
                "threads": n,
                "chunksPerSecond": round(len(passages) * len(seconds[n]) / wall, 1),
                "rounds": [round(len(passages) / s, 1) for s in seconds[n]],
                "seconds": round(wall, 2),
                "cpuSeconds": round(sum(cpu[n]), 2),
            }
        )
    return {
        "chunks": len(passages),
        "batch": EMBED_BATCH,
        "settings": rows,
        "loadAverage": {
            "before": load_before,
            "after": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        },
        "batteryCheckMicroseconds": battery_check_us(),
        "batteryCheckEverySeconds": BATTERY_EVERY,
    }


def battery_check_us(check: Callable[[], object] = on_battery, calls: int = BATTERY_CALLS) -> float:
    """Microseconds one look at the battery takes (the mean of ``calls``)."""
    started = time.perf_counter()
    for _ in range(calls):
        check()
    return round((time.perf_counter() - started) / calls * 1e6, 1)


def format_sweep(figures: dict[str, Any]) -> list[str]:
    """The lines ``bench`` prints: one per thread setting, then the battery's look."""
    rows = figures["settings"]
    first = rows[0]["chunksPerSecond"] or 1e-9
    lines = [
        f"embedding throughput by thread setting ({figures['chunks']} chunks, "
        f"{figures['batch']} a call as the live index embeds, two rounds each)"
    ]
    for row in rows:
        n = row["threads"]
        rounds = " / ".join(f"{r:,.1f}" for r in row["rounds"])
        lines.append(
            f"  {n:>3} thread{'s' if n != 1 else ' '} {row['chunksPerSecond']:>9,.1f} chunks/s "
            f"({row['chunksPerSecond'] / first:.2f}x one thread; rounds {rounds}; "
            f"{row['cpuSeconds']:.1f} s of CPU)"
        )
    load = figures.get("loadAverage") or {}
    if load.get("before") is not None:
        lines.append(f"  machine load (1-min average): {load['before']:.1f} -> {load['after']:.1f}")
    lines.append(
        f"  a look at the battery: {figures['batteryCheckMicroseconds']:,.1f} µs, at most every "
        f"{figures['batteryCheckEverySeconds']:g} s while embedding"
    )
    return lines
