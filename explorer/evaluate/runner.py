"""Retrieval quality of the engine: a BEIR data set (indexed as a vault,
:mod:`explorer.evaluate.corpus`), or a vault with the user's judgments.

Each query runs once: :meth:`Searcher.candidates` in ``hybrid`` mode gives both lists, fetched
without a similarity floor (:func:`explorer.search.fusion.cached.fetch_options`), and :func:`fuse`
derives the ``fts``, ``semantic`` and ``hybrid`` rankings from them after the floors
(:func:`~explorer.search.fusion.cached.with_floor`; ``fuse`` with a single-list mode reads only that
list, so this is identical to three searches, and cheaper).  A sweep
(:mod:`explorer.evaluate.sweep`) re-fuses the same lists for every setting of a grid.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.corpus import IndexInfo, open_beir_index, open_vault_index
from explorer.evaluate.datasets import BeirDataset
from explorer.evaluate.scoring import comparison, per_query_rows, summarise
from explorer.evaluate.settings import (
    EVAL_EMBED_TIMEOUT_S,
    EvalSettings,
    Log,
    Progress,
    no_progress,
    quiet,
)
from explorer.search.fusion.cached import fetch_options, with_floor
from explorer.search.fusion.fusion import ranked as ranked_paths
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import Mode
from explorer.search.query.query import QueryError


@dataclass(slots=True)
class QueryRun:
    """Each query's candidates, and what went wrong with any of them."""

    candidates: dict[str, Candidates] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)  # query id -> reason
    degraded: dict[str, str] = field(default_factory=dict)  # query id -> semantic reason
    seconds: float = 0.0


def collect_candidates(
    searcher: Searcher,
    queries: Mapping[str, str],
    settings: EvalSettings,
    progress: Progress = no_progress,
) -> QueryRun:
    """Both lists of every query, once (in the one mode that serves all requested modes), with no
    similarity floor: :func:`rankings` applies each setting's floors."""
    options = fetch_options(settings.options(settings.candidate_mode))
    if settings.candidate_mode == Mode.SEMANTIC:
        options = replace(options, mode=Mode.SEMANTIC)
    run = QueryRun()
    started = time.perf_counter()
    total = len(queries)
    for done, (qid, text) in enumerate(queries.items(), start=1):
        try:
            found = searcher.candidates(text, options)
        except QueryError as exc:
            run.rejected[qid] = str(exc)
        else:
            if found.listing:
                run.rejected[qid] = "no searchable words"
            else:
                if options.mode != Mode.FTS and not found.semantic.available:
                    run.degraded[qid] = found.semantic.reason or "semantic unavailable"
                run.candidates[qid] = found
        progress("queries", done, total, "")
    run.seconds = time.perf_counter() - started
    return run


def rankings(
    run: QueryRun,
    settings: EvalSettings,
    to_doc: Callable[[str], str] | None = None,
) -> dict[str, dict[str, list[str]]]:
    """mode -> query id -> ranked document ids (note paths mapped through ``to_doc``)."""
    out: dict[str, dict[str, list[str]]] = {}
    for mode in settings.modes:
        options = settings.options(mode)
        ranked: dict[str, list[str]] = {}
        for qid, found in run.candidates.items():
            paths = ranked_paths(with_floor(found, options), options)
            ranked[qid] = [to_doc(path) for path in paths] if to_doc else paths
        out[mode] = ranked
    return out


@dataclass(slots=True)
class EvalReport:
    """Everything ``eval`` prints."""

    name: str
    kind: str  # "beir" or "judgments"
    split: str | None
    documents: int
    queries: int
    settings: EvalSettings
    model: str | None
    index: IndexInfo
    metrics: dict[str, dict[str, float]]
    comparison: dict[str, Any]
    rows: list[dict[str, Any]]
    run: QueryRun
    #: The relevance the run was scored against, and how a hit's path becomes a document id
    #: (what a sweep needs to score the same run again).
    qrels: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    to_doc: Callable[[str], str] | None = None

    @property
    def evaluated(self) -> int:
        return len(self.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "dataset": self.name,
            "kind": self.kind,
            "split": self.split,
            "documents": self.documents,
            "queries": self.queries,
            "evaluatedQueries": self.evaluated,
            "model": self.model,
            "settings": self.settings.to_json(),
            "index": self.index.to_json(),
            "metrics": {
                mode: {name: round(value, 4) for name, value in values.items()}
                for mode, values in self.metrics.items()
            },
            "hybridVersus": self.comparison,
            "rejectedQueries": dict(self.run.rejected),
            "degradedQueries": len(self.run.degraded),
            "querySeconds": round(self.run.seconds, 2),
        }


def evaluate(
    searcher: Searcher,
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    settings: EvalSettings,
    *,
    to_doc: Callable[[str], str] | None = None,
    progress: Progress = no_progress,
) -> tuple[dict[str, dict[str, float]], list[dict[str, Any]], QueryRun]:
    """Run every query and score every requested mode: (metrics, per-query rows, the run)."""
    run = collect_candidates(searcher, queries, settings, progress)
    ranked = rankings(run, settings, to_doc)
    return summarise(ranked, qrels), per_query_rows(ranked, qrels, queries), run


def evaluate_beir(
    dataset: BeirDataset,
    folder: Path,
    split: str,
    settings: EvalSettings,
    provider: EmbedderProvider | None,
    data: str | None = None,
    *,
    limit_queries: int | None = None,
    progress: Progress = no_progress,
    log: Log = quiet,
) -> EvalReport:
    """Index (or reuse the cached index of) the corpus, run the split's queries, score them."""
    settings.validate()
    provider = provider if settings.needs_model else None
    queries = dict(dataset.queries)
    if limit_queries is not None:
        queries = dict(list(queries.items())[:limit_queries])
    qrels = {qid: dataset.qrels[qid] for qid in queries}
    db, to_doc, info = open_beir_index(dataset, folder, data, provider, progress, log)

    def doc_of(path: str) -> str:
        return to_doc.get(path, path)

    try:
        searcher = Searcher(
            db, provider or EmbedderProvider.disabled(), embed_timeout=EVAL_EMBED_TIMEOUT_S
        )
        metrics, rows, run = evaluate(
            searcher,
            queries,
            qrels,
            settings,
            to_doc=doc_of,
            progress=progress,
        )
    finally:
        db.close()
    return EvalReport(
        dataset.name,
        "beir",
        split,
        len(dataset.corpus),
        len(queries),
        settings,
        provider.name if provider else None,
        info,
        metrics,
        comparison(rows),
        rows,
        run,
        qrels=qrels,
        to_doc=doc_of,
    )


def evaluate_vault(
    vault: Path,
    judgments: Mapping[str, Mapping[str, int]],
    settings: EvalSettings,
    provider: EmbedderProvider | None,
    data: str | None = None,
    *,
    limit_queries: int | None = None,
    progress: Progress = no_progress,
    log: Log = quiet,
) -> EvalReport:
    """The same report over a vault's own index, with the user's judgments as relevance."""
    settings.validate()
    provider = provider if settings.needs_model else None
    queries = {query: query for query in judgments}
    if limit_queries is not None:
        queries = dict(list(queries.items())[:limit_queries])
    qrels = {query: judgments[query] for query in queries}
    db, info = open_vault_index(vault, data, provider, progress, log)
    try:
        known = {str(p) for (p,) in db.conn.execute("SELECT path FROM notes")}
        for query, notes in qrels.items():
            for note in sorted(set(notes) - known):
                log(f"warning: judged note {note!r} (query {query!r}) is not in the vault's index")
        searcher = Searcher(
            db, provider or EmbedderProvider.disabled(), embed_timeout=EVAL_EMBED_TIMEOUT_S
        )
        metrics, rows, run = evaluate(searcher, queries, qrels, settings, progress=progress)
    finally:
        db.close()
    return EvalReport(
        vault.name,
        "judgments",
        None,
        info.notes,
        len(queries),
        settings,
        provider.name if provider else None,
        info,
        metrics,
        comparison(rows),
        rows,
        run,
        qrels=qrels,
    )
