"""What ``eval`` writes: the report as text, and the per-query breakdown as TSV or JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from explorer.evaluate.runner import EvalReport


def write_per_query(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """``.json`` writes a JSON list; anything else a tab-separated file with a header line.

    In the TSV an empty rank means no relevant document anywhere in the ranking (top 100).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".json":
        path.write_text(json.dumps(list(rows), indent=1, ensure_ascii=False) + "\n", "utf-8")
        return
    columns = list(rows[0]) if rows else ["query_id", "query"]
    lines = ["\t".join(columns)]
    for row in rows:
        cells = []
        for column in columns:
            value = row.get(column)
            text = "" if value is None else str(value)
            cells.append(" ".join(text.split()))  # no tab or newline inside a cell
        lines.append("\t".join(cells))
    path.write_text("\n".join(lines) + "\n", "utf-8")


METRIC_COLUMNS = (
    ("nDCG@10", "ndcg@10"),
    ("MRR@10", "mrr@10"),
    ("R@1", "recall@1"),
    ("R@3", "recall@3"),
    ("R@10", "recall@10"),
    ("R@100", "recall@100"),
)


def format_report(report: EvalReport) -> str:
    """The readable form: one line of context, a table of metrics per mode, hybrid's tally."""
    s = report.settings.search
    split = f" ({report.split})" if report.split else ""
    what = "documents" if report.kind == "beir" else "notes"
    lines = [
        f"{report.name}{split}: {report.evaluated:,} queries, {report.documents:,} {what}; "
        f"fusion {s.fusion} k={s.k:g} w_fts={s.w_fts:g} w_vec={s.w_vec:g} depth={s.depth}"
        + (f" min_sim={s.min_sim:g}" if s.min_sim else "")
        + (f" min_rel={s.min_rel:g}" if s.min_rel else "")
        + (f"; model {report.model}" if report.model else ""),
        "",
        f"{'mode':<9}" + "".join(f"{label:>9}" for label, _ in METRIC_COLUMNS),
    ]
    for mode, values in report.metrics.items():
        lines.append(f"{mode:<9}" + "".join(f"{values[key]:>9.4f}" for _, key in METRIC_COLUMNS))
    if report.comparison:
        lines.append("")
        lines.append("hybrid against each list (queries helped / hurt / same):")
        for single, tallies in report.comparison.items():
            for basis, t in tallies.items():
                label = {"firstRelevantRank": "first relevant rank"}.get(basis, basis)
                label = label.replace("firstRelevantRank@", "first relevant rank in top ")
                lines.append(
                    f"  vs {single:<9} by {label:<27} {t['helped']:>5} / {t['hurt']:>5} / "
                    f"{t['same']:>5}"
                )
    if report.run.rejected:
        lines.append(f"\n{len(report.run.rejected)} queries could not run (scored 0)")
    if report.run.degraded:
        lines.append(f"{len(report.run.degraded)} queries had no vector list (scored lexically)")
    info = report.index.to_json()
    lines.append(
        f"\nindex {info['database']}: {info['notes']:,} notes, {info['chunks']:,} chunks, "
        f"{info['vectors']:,} vectors ({'cached' if info['cached'] else 'updated'}); "
        f"queries ran in {report.run.seconds:.1f}s"
    )
    return "\n".join(lines)


def stderr_log(message: str) -> None:
    print(f"vault-explorer: {message}", file=sys.stderr, flush=True)
