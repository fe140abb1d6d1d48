"""How much better could the candidates be ordered?  Two ceilings over the calibrate pickles.

    python benchmarks/ceiling.py --data-dir DATA [--model NAME] [--sets de,fr,es,ja,zh]

Reads the candidates ``benchmarks/calibrate.py collect`` kept (both lists, no floors), each list
cut to the search's depth (50) as the fusion cuts it, and prints, per set and half, nDCG@10 of:

- **fused**: the default ranking (the calibrated fusion), as ``calibrate.py report`` scores it;
- **oracle**: every candidate of either list ordered by its judgment: what a perfect reranker
  of these candidates would score (the notes neither list found are out of its reach);
- **fit**: a logistic model over 16 features of each candidate (both lists' calibrated
  evidence, their ranks, the lexical pass, coverage, bm25 against the pass's best, σ above the
  vault's bulk, the fused rank), fitted on the dev questions of every set given and scored on
  those same dev questions.  In-sample, so it flatters the fit: a fusion of these signals
  that is chosen on the dev halves cannot be expected to beat it there.

A set whose *fit* is close to *fused* while *oracle* is far above is limited by its signals,
not by how they are weighed.  Only the dev halves are fitted on; the test column of *fit* is
what the in-sample model gives on questions it never saw.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

# JudgedSet: the pickles name it as the script that wrote them saw it (``__main__``).
from calibrate import JudgedSet, _load

from explorer.evaluate.metrics import ndcg_at_k
from explorer.search.fusion import fusion
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import PRESETS

OPTIONS = PRESETS["default"]
Matrix = npt.NDArray[np.float64]


def features(found: Candidates) -> tuple[list[str], Matrix]:
    """The candidates of ``found`` (either list at the search's depth, lexical first) and their
    feature rows."""
    depth = min(OPTIONS.depth, found.depth)
    lexical, vector = found.lexical[:depth], found.vector[:depth]
    evidence = fusion.calibrated_scores(found, OPTIONS, lexical, vector)
    fused = {p: i for i, p in enumerate(fusion.ranked(found, replace(OPTIONS, limit=100)))}
    lex_rank = {p: i for i, (p, _, _) in enumerate(lexical)}
    lex_score = {p: s for p, s, _ in lexical}
    best: dict[int, float] = {}
    for path, score, _ in lexical:
        tier = found.lexical_tiers.get(path, 0)
        best[tier] = max(best.get(tier, 0.0), score)
    vec_rank = {v.path: i for i, v in enumerate(vector)}
    cosine = {v.path: v.score for v in vector}
    top = vector[0].score if vector else 0.0
    spread = found.spread
    candidates = list(dict.fromkeys([p for p, _, _ in lexical] + [v.path for v in vector]))
    rows = []
    for path in candidates:
        ev = evidence.get(path, {})
        e_fts, e_vec = ev.get("fts", 0.0), ev.get("vector", 0.0)
        tier = found.lexical_tiers.get(path)
        in_lex, in_vec = path in lex_rank, path in vec_rank
        bm25 = lex_score[path] / best[tier] if in_lex and tier is not None and best[tier] else 0.0
        sigmas = spread.sigmas(cosine[path]) if in_vec and spread else 0.0
        std = spread.std if spread and spread.std else 1.0
        gap = min(10.0, (top - cosine[path]) / std) if in_vec else 10.0
        rows.append(
            [
                e_fts,
                e_vec,
                1 - (1 - e_fts) * (1 - e_vec),
                float(in_lex),
                float(tier == 0),
                float(tier == 1),
                float(tier == 2),
                found.lexical_coverage.get(path, 1.0) if in_lex else 0.0,
                bm25,
                1 / (1 + lex_rank[path]) if in_lex else 0.0,
                float(in_vec),
                sigmas,
                gap,
                1 / (1 + vec_rank[path]) if in_vec else 0.0,
                float(in_lex and in_vec),
                1 / (1 + fused.get(path, 100)),
            ]
        )
    return candidates, np.array(rows, dtype=np.float64).reshape(len(candidates), 16)


def fit_logistic(x: Matrix, y: Matrix, weight: Matrix, l2: float = 0.1) -> Matrix:
    """Weighted L2-regularised logistic regression by Newton's method: the coefficients, the
    intercept last (features standardised inside, coefficients returned for raw features)."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    z = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(z @ beta)))
        gradient = z.T @ (weight * (p - y)) + penalty * beta
        hessian = (z.T * (weight * p * (1 - p))) @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    coef = beta[:-1] / std
    return np.append(coef, beta[-1] - (mean * coef).sum())


def grade(s: JudgedSet, query: str, path: str) -> int:
    return s.qrels[query].get(s.to_doc.get(path, path), 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--model", help="the pickles collected with this --model")
    parser.add_argument("--sets", help="these sets only (default: every pickle found)")
    args = parser.parse_args()
    sets = [
        s
        for s in _load(args.data_dir, args.model)
        if not args.sets or s.name in args.sets.split(",")
    ]
    table = {
        s.name: [(q, s.half(q), *features(found)) for q, found in s.judged.items()] for s in sets
    }
    xs, ys, ws = [], [], []
    for s in sets:
        for query, half, paths, x in table[s.name]:
            if half != "dev" or not paths:
                continue
            grades = np.array([grade(s, query, p) for p in paths], dtype=np.float64)
            relevant = (grades > 0).astype(np.float64)
            xs.append(x)
            ys.append(relevant)
            ws.append(np.maximum(grades, 1.0) / max(1.0, relevant.sum()))
    beta = fit_logistic(np.vstack(xs), np.concatenate(ys), np.concatenate(ws))
    print("| set | fused dev / test | oracle dev / test | fit (in-sample on dev) dev / test |")
    print("| --- | --- | --- | --- |")
    for s in sets:
        scores: dict[str, dict[str, list[float]]] = {
            k: {"dev": [], "test": []} for k in ("fused", "oracle", "fit")
        }
        for query, half, paths, x in table[s.name]:
            qrels = s.qrels[query]
            fused = [paths[i] for i in np.argsort(-x[:, 15], kind="stable")]
            oracle = sorted(paths, key=lambda p: -grade(s, query, p))
            fit = [paths[i] for i in np.lexsort((np.arange(len(paths)), -(x @ beta[:-1])))]
            for name, ranked in (("fused", fused), ("oracle", oracle), ("fit", fit)):
                docs = [s.to_doc.get(p, p) for p in ranked[:10]]
                scores[name][half].append(ndcg_at_k(docs, qrels, 10))
        cells = [
            " / ".join(f"{sum(v[h]) / max(1, len(v[h])):.3f}" for h in ("dev", "test"))
            for v in scores.values()
        ]
        print(f"| {s.name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
