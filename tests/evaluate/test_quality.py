"""The Quality dock's numbers: each judged query's nDCG@10 and first relevant rank, the means."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.quality import score
from explorer.evaluate.runner import collect_candidates
from explorer.evaluate.settings import EvalSettings
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.fusion.hybrid import Searcher


def test_each_judged_query_gets_its_scores_and_the_means_count_the_relevant_ones(
    vault: Path, write: Callable[[str, str], Path], data_dir: Path
) -> None:
    write("a.md", "# A\n\ncache purge on deploy\n")
    write("b.md", "# B\n\nsourdough starter, fed daily\n")
    judgments = {"cache purge": {"a.md": 2, "b.md": 0}, "starter": {"a.md": 0}}
    settings = EvalSettings(modes=("fts",))
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        searcher = Searcher(db, EmbedderProvider.disabled())
        run = collect_candidates(searcher, {q: q for q in judgments}, settings)
    finally:
        db.close()
    report = score(judgments, run, settings)
    rows = {row.query: row for row in report.rows}
    assert (rows["cache purge"].ndcg["fts"], rows["cache purge"].first["fts"]) == (1.0, 1)
    assert (rows["cache purge"].judged, rows["cache purge"].relevant) == (2, 1)
    assert rows["starter"].ndcg["fts"] is None and rows["starter"].first["fts"] is None
    assert (report.scored, report.mean, report.in_top) == (1, {"fts": 1.0}, {"fts": 1})
