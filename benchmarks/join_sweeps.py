"""Join ``eval --sweep --json`` outputs of several judged sets: one row per setting.

    python benchmarks/join_sweeps.py sample.json tldr.json scifact.json [--top 20]

Each row gives hybrid nDCG@10 on every set and its margin over the better single list of that
set under the same floors and depth, best worst-margin first: a default must win on every set.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _key(settings: dict[str, Any]) -> str:
    keys = ["fusion", *(["k"] if settings["fusion"] == "rrf" else []), "w_fts", "w_vec"]
    return ",".join(f"{k}={settings[k]}" for k in [*keys, "min_sim", "min_rel", "depth"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    names = [f.stem for f in args.files]
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for name, path in zip(names, args.files, strict=True):
        sweep = json.loads(path.read_text())["sweep"]
        for point in sweep["points"]:
            ndcg = point["metrics"]["ndcg@10"]
            margin = ndcg - max(point["singles"].values())
            table.setdefault(_key(point["settings"]), {})[name] = (ndcg, margin)
    rows = [(key, scores) for key, scores in table.items() if len(scores) == len(names)]
    rows.sort(key=lambda r: (-min(m for _, m in r[1].values()), -sum(n for n, _ in r[1].values())))
    print(
        "  ".join(f"{n[:16]:>16}" for n in names) + "  setting (nDCG@10, margin over best single)"
    )
    for key, scores in rows[: args.top]:
        print("  ".join(f"{scores[n][0]:>8.4f} {scores[n][1]:+.4f}" for n in names) + "  " + key)


if __name__ == "__main__":
    main()
