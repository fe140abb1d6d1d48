"""benchmarks/ceiling.py: its logistic fit recovers what generated the labels."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from ceiling import fit_logistic


def test_the_fit_recovers_the_coefficients_of_generated_labels() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20_000, 3)) * [1.0, 5.0, 0.1] + [0.0, 2.0, 1.0]
    truth = np.array([1.5, -0.4, 0.0])
    p = 1 / (1 + np.exp(-(x @ truth - 0.5)))
    y = (rng.random(len(x)) < p).astype(np.float64)
    beta = fit_logistic(x, y, np.ones(len(x)), l2=0.0)
    assert np.allclose(beta[:3], truth, atol=0.1)
    assert abs(beta[3] + 0.5) < 0.15


def test_weights_count_as_repeated_rows() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, 2))
    y = (x[:, 0] + rng.normal(size=500) > 0).astype(np.float64)
    twice = fit_logistic(
        np.vstack([x, x[:100]]), np.concatenate([y, y[:100]]), np.ones(600), l2=0.0
    )
    weighted = np.concatenate([np.full(100, 2.0), np.ones(400)])
    assert np.allclose(fit_logistic(x, y, weighted, l2=0.0), twice, atol=1e-6)
