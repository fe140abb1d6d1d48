"""The per-query breakdown written as TSV or JSON."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.evaluate.report import write_per_query


def test_per_query_files(tmp_path: Path) -> None:
    rows = [
        {"query_id": "q1", "query": "tab\there", "rank_fts": 1, "rank_hybrid": None},
        {"query_id": "q2", "query": "plain", "rank_fts": None, "rank_hybrid": 3},
    ]
    write_per_query(tmp_path / "out.tsv", rows)
    lines = (tmp_path / "out.tsv").read_text("utf-8").splitlines()
    assert lines == [
        "query_id\tquery\trank_fts\trank_hybrid",
        "q1\ttab here\t1\t",
        "q2\tplain\t\t3",
    ]
    write_per_query(tmp_path / "out.json", rows)
    assert json.loads((tmp_path / "out.json").read_text("utf-8")) == rows
