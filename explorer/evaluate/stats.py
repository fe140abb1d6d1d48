"""Summaries of timing samples, shared by the benchmarks (``bench`` and its freshness part)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def time_ms(fn: Callable[[], object]) -> float:
    """Milliseconds ``fn()`` took."""
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    """p50 / p95 / max / mean of a list of milliseconds (numpy's linear interpolation)."""
    if not samples_ms:
        return {"p50": 0.0, "p95": 0.0, "max": 0.0, "mean": 0.0, "n": 0}
    values = np.asarray(samples_ms, dtype=np.float64)
    return {
        "p50": round(float(np.percentile(values, 50)), 3),
        "p95": round(float(np.percentile(values, 95)), 3),
        "max": round(float(values.max()), 3),
        "mean": round(float(values.mean()), 3),
        "n": len(samples_ms),
    }
