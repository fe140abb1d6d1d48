"""Retrieval quality of the engine: a BEIR data set, or a vault with the user's judgments.

A BEIR corpus is indexed through exactly the path a vault takes: every document is written as a
markdown note ``<_id>.md`` (``# title``, a blank line, the text) into a folder under the data
directory, which is then synced, chunked and embedded like any vault.  The notes and the index
are cached (``<data dir>/evals/``): the folder is keyed by the corpus file, the database by
everything that shapes an index (chunking budget, FTS5 tokenizer, schema version and model), so
a second run costs only the queries, and a change to any of those builds a fresh index.

Each query runs once: :meth:`Searcher.candidates` in ``hybrid`` mode gives both lists, fetched
without a similarity floor (:func:`explorer.search.cached.fetch_options`), and :func:`fuse`
derives the ``fts``, ``semantic`` and ``hybrid`` rankings from them after the floors
(:func:`~explorer.search.cached.with_floor`; ``fuse`` with a single-list mode reads only that
list, so this is identical to three searches, and cheaper).  A sweep
(:mod:`explorer.evaluate.sweep`) re-fuses the same lists for every setting of a grid.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from explorer.embed.base import EmbedderUnavailable
from explorer.embed.precision import precision_of
from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.datasets import BeirDataset, DatasetError, Doc
from explorer.evaluate.metrics import evaluate_run, first_relevant_rank, per_query_metrics
from explorer.index import migrations
from explorer.index.db import IndexDB, data_dir
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.sync import sync_vault
from explorer.search.cached import fetch_options, with_floor
from explorer.search.hybrid import (
    Candidates,
    Searcher,
    SearchOptions,
)
from explorer.search.hybrid import ranked as ranked_paths
from explorer.search.options import MODES
from explorer.search.query import QueryError
from explorer.vault import chunk

EVALS_DIR = "evals"
RECALL_KS = (1, 3, 10, 100)
CUTOFF = 10
#: Hits kept per query: recall@100 needs a hundred (the most ``SearchOptions.limit`` allows).
RUN_LIMIT = 100
#: Layout of the notes written for a corpus; bump it when :func:`note_text` changes.
NOTES_FORMAT = 1
#: An evaluation waits for each query embedding; the interactive 3 s limit would make a busy
#: machine's scores depend on its load.
EVAL_EMBED_TIMEOUT_S = 120.0

#: (phase, done, total, note) — the signature of ``explorer.console.TerminalProgress``.
Progress = Callable[..., None]
Log = Callable[[str], None]


class EvalError(RuntimeError):
    """The evaluation cannot run as asked; the message is one line for the user."""


#: What an evaluation searches with unless told otherwise: the search defaults, with lists and
#: hits as long as recall@100 needs.
EVAL_OPTIONS = SearchOptions(depth=RUN_LIMIT, limit=RUN_LIMIT)


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """What is evaluated: the search options (the mode aside) and the modes."""

    search: SearchOptions = EVAL_OPTIONS
    modes: tuple[str, ...] = MODES

    def options(self, mode: str) -> SearchOptions:
        return replace(self.search, mode=mode, limit=RUN_LIMIT)

    def validate(self) -> None:
        unknown = [m for m in self.modes if m not in MODES]
        if unknown or not self.modes:
            raise EvalError(f"--modes takes a comma-separated subset of {','.join(MODES)}")
        for mode in self.modes:
            self.options(mode).validate()

    @property
    def candidate_mode(self) -> str:
        """The one mode whose candidates serve every requested mode."""
        needs_fts = bool({"fts", "hybrid"} & set(self.modes))
        needs_vec = bool({"semantic", "hybrid"} & set(self.modes))
        return "hybrid" if needs_fts and needs_vec else ("fts" if needs_fts else "semantic")

    @property
    def needs_model(self) -> bool:
        return self.candidate_mode != "fts"

    def to_json(self) -> dict[str, Any]:
        from explorer.search.hybrid import CONVEX_LOWER_BOUNDS

        o = self.search
        bounds = {"convexLowerBounds": dict(CONVEX_LOWER_BOUNDS)} if o.fusion == "convex" else {}
        return {
            **bounds,
            "fusion": o.fusion,
            "k": o.to_json()["k"],
            "weights": o.weights,
            "depth": o.depth,
            "minSim": o.min_sim,
            "minRel": o.min_rel,
            "modes": list(self.modes),
        }


# ----------------------------------------------------------------------------- corpus as a vault


def note_text(doc: Doc) -> str:
    """The markdown note of a corpus document: its title as the heading, then its text."""
    title = " ".join(doc.title.split())
    return f"# {title}\n\n{doc.text}\n" if title else f"{doc.text}\n"


_PLAIN_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")


def note_names(doc_ids: Iterable[str]) -> dict[str, str]:
    """Document id -> note path, one file per document, safe on every file system.

    Plain ids are used as they are (``4983`` -> ``4983.md``); others are percent-encoded.  Two
    ids differing only in case would share a file on macOS and Windows, so the later one (in
    ``doc_ids`` order) gets ``~N`` appended.  Deterministic for a given order.
    """
    names: dict[str, str] = {}
    taken: set[str] = set()
    for doc_id in doc_ids:
        stem = doc_id if _PLAIN_ID.fullmatch(doc_id) else quote(doc_id, safe="").replace(".", "%2E")
        name, suffix = f"{stem}.md", 1
        while name.lower() in taken:
            suffix += 1
            name = f"{stem}~{suffix}.md"
        taken.add(name.lower())
        names[doc_id] = name
    return names


def _short_hash(*parts: object) -> str:
    return hashlib.sha256("\n".join(map(str, parts)).encode()).hexdigest()[:12]


def corpus_key(folder: Path) -> str:
    """Cache key of a corpus's notes: the corpus file's path, size and mtime (instant to get).

    Only ``corpus.jsonl`` shapes the notes, so every split of a data set shares one index.
    """
    corpus = folder / "corpus.jsonl"
    try:
        stat = corpus.stat()
    except FileNotFoundError:
        raise DatasetError(f"{corpus}: file not found") from None
    return _short_hash(corpus.resolve(), stat.st_size, stat.st_mtime_ns, NOTES_FORMAT)


def index_key(model: str | None) -> str:
    """Cache key of an index over the notes: everything that shapes what gets indexed."""
    return _short_hash(
        f"chunk={chunk.MAX_COST}/{chunk.MIN_COST_BEFORE_HEADING}",
        f"tokenizer={migrations.FTS_TOKENIZER}",
        f"schema={migrations.LATEST_VERSION}",
        f"model={model or '-'}",
    )


@dataclass(slots=True)
class IndexInfo:
    database: str
    notes: int
    chunks: int
    vectors: int
    written_notes: int = 0
    synced_notes: int = 0
    embedded_chunks: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "notes": self.notes,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "cached": self.written_notes == 0
            and self.synced_notes == 0
            and self.embedded_chunks == 0,
            "builtSeconds": round(self.seconds, 2),
        }


def _quiet(_: str) -> None:
    """A log that says nothing (library use; the CLI passes ``stderr_log``)."""


def _no_progress(*_: object) -> None:
    """A progress callback that shows nothing."""


def write_corpus_notes(dataset: BeirDataset, notes_dir: Path, names: Mapping[str, str]) -> int:
    """Write each document as a note (only the files whose bytes differ); returns how many."""
    notes_dir.mkdir(parents=True, exist_ok=True)
    written = 0
    for doc_id, doc in dataset.corpus.items():
        path = notes_dir / names[doc_id]
        data = note_text(doc).encode("utf-8")
        try:
            if path.read_bytes() == data:
                continue
        except FileNotFoundError:
            pass
        path.write_bytes(data)
        written += 1
    return written


def open_beir_index(
    dataset: BeirDataset,
    folder: Path,
    data: str | None,
    provider: EmbedderProvider | None,
    progress: Progress = _no_progress,
    log: Log = _quiet,
) -> tuple[IndexDB, dict[str, str], IndexInfo]:
    """The cached index of ``dataset``'s corpus, built or brought up to date as needed.

    Returns the open index, note path -> document id, and what was done.  With ``provider``,
    every chunk is embedded; without, the index is lexical only (and keyed as such).
    """
    started = time.perf_counter()
    names = note_names(dataset.corpus)
    root = data_dir(data) / EVALS_DIR / f"{_slug(folder.name)}-{corpus_key(folder)}"
    notes_dir = root / "notes"
    marker = root / "notes.complete"
    written = 0
    if not marker.is_file() or marker.read_text() != str(len(names)):
        log(f"writing {len(names):,} documents as notes under {notes_dir}")
        written = write_corpus_notes(dataset, notes_dir, names)
        marker.write_text(str(len(names)))
    model = provider.name if provider is not None else None
    db = IndexDB.open(notes_dir, path=root / f"index-{index_key(model)}.sqlite")
    try:
        info = _bring_up_to_date(db, provider, progress, log)
    except BaseException:
        db.close()
        raise
    info.written_notes = written
    info.seconds = time.perf_counter() - started
    return db, {name: doc_id for doc_id, name in names.items()}, info


def open_vault_index(
    vault: Path,
    data: str | None,
    provider: EmbedderProvider | None,
    progress: Progress = _no_progress,
    log: Log = _quiet,
) -> tuple[IndexDB, IndexInfo]:
    """The vault's own index (as ``search`` uses it), synced and, with ``provider``, embedded."""
    started = time.perf_counter()
    db = IndexDB.open(vault, data)
    for notice in db.notices:
        log(notice)
    try:
        info = _bring_up_to_date(db, provider, progress, log)
    except BaseException:
        db.close()
        raise
    info.seconds = time.perf_counter() - started
    return db, info


def _bring_up_to_date(
    db: IndexDB, provider: EmbedderProvider | None, progress: Progress, log: Log
) -> IndexInfo:
    report = sync_vault(db, progress)
    synced = len(report.added) + len(report.changed) + len(report.deleted)
    if synced:
        log(f"indexed {db.vault}: {report.summary()}")
    embedded = 0
    if provider is not None:
        try:
            embedder = provider.get()
        except EmbedderUnavailable as exc:
            raise EvalError(
                f"semantic search is unavailable ({exc}); evaluate lexical search only "
                "with --modes fts"
            ) from exc
        pending = pending_count(db, embedder.name)
        if pending:
            log(f"embedding {pending:,} chunks with {embedder.name} (cached for the next run)")
            done = embed_pending(db, embedder, lambda d, t, n: progress("embed", d, t, n))
            embedded = done.chunks
            precision = precision_of(embedder)
            label = f", {precision.name}: {precision.reason}" if precision else ""
            log(
                f"embedded {done.chunks:,} chunks in {done.seconds:.0f}s ({done.rate:.1f}/s{label})"
            )
    conn = db.conn
    notes = int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    chunks = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    vectors = 0
    if provider is not None:
        vectors = int(
            conn.execute(
                "SELECT count(*) FROM chunks c JOIN vectors v ON v.hash = c.hash AND v.model = ?",
                (provider.name,),
            ).fetchone()[0]
        )
    return IndexInfo(str(db.path), notes, chunks, vectors, 0, synced, embedded)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:40] or "dataset"


# ----------------------------------------------------------------------------- running queries


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
    progress: Progress = _no_progress,
) -> QueryRun:
    """Both lists of every query, once (in the one mode that serves all requested modes), with no
    similarity floor: :func:`rankings` applies each setting's floors."""
    options = fetch_options(settings.options(settings.candidate_mode))
    if settings.candidate_mode == "semantic":
        options = replace(options, mode="semantic")
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
                if options.mode != "fts" and not found.semantic.available:
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


# ----------------------------------------------------------------------------- the report


def _versus(better_than: Callable[[Any, Any], bool], hybrid: Any, single: Any) -> str:
    if better_than(hybrid, single):
        return "helped"
    if better_than(single, hybrid):
        return "hurt"
    return "same"


def _rank_better(a: int | None, b: int | None) -> bool:
    """Rank ``a`` is better than ``b`` (None: no relevant document in the whole ranking)."""
    return a is not None and (b is None or a < b)


def _float_better(a: float, b: float) -> bool:
    return a > b + 1e-12


def per_query_rows(
    ranked: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
    texts: Mapping[str, str],
) -> list[dict[str, Any]]:
    """One row a judged query: first relevant rank and nDCG@10 per mode, hybrid's verdicts."""
    modes = list(ranked)
    metrics = {mode: per_query_metrics(ranked[mode], qrels, RECALL_KS, CUTOFF) for mode in modes}
    rows = []
    for qid, judgments in qrels.items():
        if not any(grade > 0 for grade in judgments.values()):
            continue
        row: dict[str, Any] = {
            "query_id": qid,
            "query": texts.get(qid, qid),
            "relevant": sum(1 for grade in judgments.values() if grade > 0),
        }
        for mode in modes:
            row[f"rank_{mode}"] = first_relevant_rank(ranked[mode].get(qid, ()), judgments)
        for mode in modes:
            row[f"ndcg_{mode}"] = round(metrics[mode][qid][f"ndcg@{CUTOFF}"], 6)
        if "hybrid" in modes:
            for single in ("fts", "semantic"):
                if single in modes:
                    row[f"vs_{single}"] = _versus(
                        _rank_better, row["rank_hybrid"], row[f"rank_{single}"]
                    )
        rows.append(row)
    return rows


def comparison(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """How often hybrid helped or hurt against each single list, by first relevant rank (the
    per-query file's verdicts), by first relevant rank within the top 10, and by nDCG@10."""
    out: dict[str, Any] = {}
    for single in ("fts", "semantic"):
        if not rows or f"vs_{single}" not in rows[0]:
            continue
        by_rank = {"helped": 0, "hurt": 0, "same": 0}
        by_top10 = dict(by_rank)
        by_ndcg = dict(by_rank)
        for row in rows:
            by_rank[row[f"vs_{single}"]] += 1
            cut = [
                r if r is not None and r <= CUTOFF else None
                for r in (row["rank_hybrid"], row[f"rank_{single}"])
            ]
            by_top10[_versus(_rank_better, cut[0], cut[1])] += 1
            by_ndcg[_versus(_float_better, row["ndcg_hybrid"], row[f"ndcg_{single}"])] += 1
        out[single] = {
            "firstRelevantRank": by_rank,
            f"firstRelevantRank@{CUTOFF}": by_top10,
            f"ndcg@{CUTOFF}": by_ndcg,
        }
    return out


def summarise(
    ranked: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
) -> dict[str, dict[str, float]]:
    """Mean metrics per mode."""
    try:
        return {mode: evaluate_run(ranked[mode], qrels, RECALL_KS, CUTOFF) for mode in ranked}
    except ValueError as exc:
        raise EvalError(str(exc)) from None


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
    progress: Progress = _no_progress,
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
    progress: Progress = _no_progress,
    log: Log = _quiet,
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
    progress: Progress = _no_progress,
    log: Log = _quiet,
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
