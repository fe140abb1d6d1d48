"""Speed and memory of the engine, measured in one run on a vault or on a generated one.

What is measured, in order (each figure is one key of :func:`run_bench`'s result):

* ``indexing``: a full lexical sync into a fresh index (notes/s), then a sync of the unchanged
  vault (the cost of starting on a vault already indexed), then embedding (chunks/s with the real
  model, and the precision it ran in: ``VAULT_EXPLORER_PRECISION=fp32`` gives the float32 rate to
  compare; ``--embed-sample N`` embeds only N chunks for the rate and fills the other vectors with
  random unit vectors through the same storage path, so 50k notes stays feasible; ``--no-embed``
  uses random vectors for everything, query vectors included).
* ``latencyMs``: p50/p95/max per mode, each query searched as the product searches it
  (:meth:`Searcher.search`).  ``fts`` is the whole search; ``semantic`` and ``hybrid`` are timed
  twice: as a user waits (``…Total``, the query embedded) and with the query's vector ready
  (:class:`PrecomputedEmbedder`: the search without the query embedding, the budget's
  definition); ``semanticEmbed`` is the embedding's own time.  ``stages``: where each mode's
  time went, p50/p95/max of each stage the search path records (:mod:`explorer.stages`: parse,
  filters, each lexical pass, the vector top-k beside them, rows, titles, fusion, snippets,
  sort), ``other`` what no stage covered, ``total`` the whole.
* ``questionLatencyMs``: hybrid p50/p95/max (the query's vector ready, as ``latencyMs``) for
  the short queries above and for as many long questions of 12-16 words, stopwords kept
  (:func:`generate_questions`), timed interleaved so load hits both alike: a long question must
  not be slower than a short query for its words alone.
* ``refusionMs``: :func:`fuse` on cached candidates with new weights (what the window does when a
  slider moves).
* ``vectorTopK``: :meth:`VectorIndex.top_notes` against a bare ``matrix @ q`` + ``argpartition``
  over the same matrix, and against reading every vector BLOB from SQLite for each query (as the
  seed web app's local mode does), as ratios of medians measured in this run.
* ``indexBytes`` and ``peakRssBytes`` (the process's high-water mark with the model loaded,
  taken before the BLOB-read baseline, whose extra copies are not the product's).
* ``embedThreads`` (``--embed-threads-sweep``): embedding throughput at 1, 2, … cores threads on
  the same chunks, and the cost of a look at the battery (:mod:`.threads`).
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from explorer.embed.base import Embedder, FakeEmbedder, Matrix, embed_queries, normalize_rows
from explorer.embed.precision import precision_of
from explorer.embed.provider import EmbedderProvider
from explorer.errors import UserError
from explorer.evaluate.contention import format_contention, query_while_embedding
from explorer.evaluate.freshness import run_freshness
from explorer.evaluate.renames import FOLDER_NOTES, format_renames, rename_costs
from explorer.evaluate.startup import format_startup, measure_startup
from explorer.evaluate.stats import percentiles, time_ms
from explorer.evaluate.synth import generate_queries, generate_questions, generate_vault
from explorer.evaluate.threads import SWEEP_CHUNKS, format_sweep, sweep_threads
from explorer.index.db import IndexDB, data_dir
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.sync import sync_vault
from explorer.index.vectors import VectorIndex
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import MODES, Mode, SearchOptions
from explorer.search.query.query import parse_query
from explorer.stages import Stages, recording

#: Depth of the vector top-k comparisons (the search's default candidate depth).
TOPK_DEPTH = SearchOptions().depth
#: Weight settings cycled through by the re-fusion measurement (then the defaults).
REFUSION_WEIGHTS = ((0.5, 0.5), (0.9, 0.1), (0.1, 0.9))
#: Queries timed with the per-query BLOB-read baseline (it is slow by design).
BLOB_QUERIES = 10
#: Questions timed by ``--while-embedding``, idle and busy.
CONTENTION_QUESTIONS = 30
RANDOM_MODEL = "bench-random-384"


class BenchError(UserError, RuntimeError):
    """The benchmark cannot run as asked; one line for the user."""


@dataclass(frozen=True, slots=True)
class BenchSettings:
    vault: Path | None = None
    notes: int = 1000
    seed: int = 0
    queries: int = 100
    embed: bool = True
    embed_sample: int | None = None
    freshness: bool = False
    freshness_samples: int = 20
    keep: bool = False
    #: Also time question embeddings while the vault's chunks embed (:mod:`.contention`).
    while_embedding: bool = False
    #: Also time embedding at each thread setting (:mod:`.threads`).
    embed_threads_sweep: bool = False
    #: Also time start-up, cold and warm, and search with a watch running (:mod:`.startup`).
    startup: bool = False
    #: Also time renaming a note and a folder of 100 notes (:mod:`.renames`).
    renames: bool = False


class RandomEmbedder(FakeEmbedder):
    """Seeded random unit vectors under a given name and dimension.

    Stands in for the model where only the storage and search paths are measured: the vectors
    go through :func:`embed_pending` and the vector index exactly as the model's would.
    """

    def __init__(self, name: str, dimension: int, seed: int = 0) -> None:
        super().__init__(dimension=dimension, name=name)
        self._rng = np.random.default_rng(seed)

    def embed(self, texts: list[str]) -> Matrix:
        self.calls += len(texts)
        raw = self._rng.standard_normal((len(texts), self.dimension)).astype(np.float32)
        return normalize_rows(raw)


# ----------------------------------------------------------------------------- helpers


def peak_rss_bytes() -> int:
    """The process's peak resident set size so far (``getrusage``; psutil's RSS as a floor)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak = peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB
    return max(int(peak), int(psutil.Process().memory_info().rss))


def index_bytes(path: Path) -> int:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            total += Path(str(path) + suffix).stat().st_size
    return total


def log(message: str) -> None:
    """A benchmark's line of progress on standard error."""
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _progress() -> Callable[..., None]:
    from explorer.console import TerminalProgress

    return TerminalProgress()


@contextlib.contextmanager
def workspace(
    keep: bool, data: str | None, name: str = "bench", holds: str = "the generated vault and index"
) -> Iterator[Path]:
    """A scratch folder (``vault-explorer-NAME-…``, under the data folder's ``bench/`` when one
    is given) for what a benchmark generates, removed unless ``keep`` (then said: what it
    ``holds``, and where)."""
    parent = data_dir(data) / "bench" if data else None
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"vault-explorer-{name}-", dir=parent))
    try:
        yield root
    finally:
        if keep:
            log(f"kept {holds} under {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


# ----------------------------------------------------------------------------- the phases


def _embed(
    db: IndexDB, settings: BenchSettings, model: str | None, progress: Callable[..., None]
) -> tuple[EmbedderProvider, Embedder, dict[str, Any]]:
    """Vectors for every chunk; returns the provider searches use, its embedder, the figures."""
    figures: dict[str, Any] = {}
    if not settings.embed:
        fake = RandomEmbedder(RANDOM_MODEL, 384, settings.seed)
        report = embed_pending(db, fake, lambda d, t, n: progress("vectors", d, t, n))
        figures.update(
            model=None,
            note="--no-embed: random unit vectors for every chunk and query (no model)",
            randomVectors=report.chunks,
            randomFillSeconds=round(report.seconds, 2),
        )
        return EmbedderProvider.of(fake), fake, figures

    from explorer.embed.provider import shared_provider

    provider = shared_provider(model)
    started = time.perf_counter()
    try:
        embedder = provider.get()
    except Exception as exc:
        raise BenchError(f"the embedding model is unavailable ({exc}); try --no-embed") from exc
    figures["model"] = embedder.name
    figures["modelLoadSeconds"] = round(time.perf_counter() - started, 2)
    pending = pending_count(db, embedder.name)
    sample = settings.embed_sample
    done = [0]

    def count(d: int, t: int, n: str) -> None:
        done[0] = d
        progress("embed", d, min(t, sample) if sample is not None else t, n)

    log(
        f"embedding {min(pending, sample) if sample is not None else pending:,} "
        f"of {pending:,} chunks with {embedder.name}"
    )
    cpu_before = time.process_time()
    report = embed_pending(
        db,
        embedder,
        count,
        batch_size=128 if sample is None else max(1, min(128, sample)),
        should_stop=(lambda: done[0] >= sample) if sample is not None else None,
    )
    cpu_seconds = time.process_time() - cpu_before
    figures["embeddedChunks"] = report.chunks
    figures["embedSeconds"] = round(report.seconds, 2)
    figures["embedChunksPerSecond"] = round(report.rate, 1)
    # On a shared machine the wall-clock rate follows the neighbours' load; the rate per second
    # of this process's CPU time (all its threads) follows it less.
    figures["embedCpuSeconds"] = round(cpu_seconds, 2)
    figures["embedChunksPerCpuSecond"] = (
        round(report.chunks / cpu_seconds, 1) if cpu_seconds else None
    )
    precision = precision_of(embedder)
    if precision is not None:
        figures["precision"] = precision.name
        figures["precisionReason"] = precision.reason
    rest = pending_count(db, embedder.name)
    if rest:
        filler = RandomEmbedder(embedder.name, embedder.dimension, settings.seed)
        log(f"filling {rest:,} more chunks with random unit vectors (--embed-sample)")
        fill = embed_pending(db, filler, lambda d, t, n: progress("fill", d, t, n))
        figures["randomVectors"] = fill.chunks
        figures["randomFillSeconds"] = round(fill.seconds, 2)
        figures["note"] = (
            f"--embed-sample {sample}: the model embedded {report.chunks:,} chunks for the rate; "
            f"{fill.chunks:,} chunks got random unit vectors through the same storage path"
        )
    return provider, embedder, figures


class PrecomputedEmbedder:
    """``embedder``'s query vectors for known texts, embedded beforehand: the searches a bench
    times with it cost everything but the query embedding.

    A hybrid search embeds its query beside the lexical list (:meth:`Searcher.search`), so its
    time minus the embedding's is not the search without the embedding: the lexical list ran
    during the embedding (that minus counts it short), and the two shared the CPU (which it
    counts in).  A text not given here is embedded as it comes.
    """

    def __init__(self, embedder: Embedder, texts: list[str]) -> None:
        self._inner = embedder
        texts = list(dict.fromkeys(texts))
        vectors = embed_queries(embedder, texts) if texts else np.zeros((0, 0), np.float32)
        self._vectors = dict(zip(texts, vectors, strict=True))

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: list[str]) -> Matrix:
        return self._inner.embed(texts)

    def embed_query(self, texts: list[str]) -> Matrix:
        missing = [t for t in texts if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, embed_queries(self._inner, missing), strict=True))
        return np.stack([self._vectors[t] for t in texts])


@contextlib.contextmanager
def _embedded_beforehand(searcher: Searcher, queries: list[str]) -> Iterator[None]:
    """``searcher`` with the query vectors of ``queries`` ready (:class:`PrecomputedEmbedder`)."""
    provider = searcher.provider
    embedder = provider.get()
    texts = [parse_query(q).free_text for q in queries]
    searcher.provider = EmbedderProvider.of(PrecomputedEmbedder(embedder, texts))
    try:
        yield
    finally:
        searcher.provider = provider


def _latency(
    searcher: Searcher, queries: list[str], progress: Callable[..., None]
) -> dict[str, Any]:
    """Each query in each mode; semantic and hybrid twice: as a user waits for them (the query
    embedded, ``semanticTotal``, ``hybridTotal``), and with the query's vector ready (the rest:
    ``semantic``, ``hybrid``, and the steps)."""
    samples: dict[str, list[float]] = {
        "fts": [],
        "semanticEmbed": [],
        "semantic": [],
        "semanticTotal": [],
        "hybrid": [],
        "hybridTotal": [],
    }
    stages: dict[str, dict[str, list[float]]] = {mode: {} for mode in MODES}
    total = 5 * len(queries)
    done = 0

    def timed(mode: Mode) -> Iterator[tuple[float, SearchResponse, Stages]]:
        nonlocal done
        options = SearchOptions(mode=mode)
        for query in queries:
            with recording() as steps:
                response = searcher.search(query, options)
            if mode != Mode.FTS and not response.semantic.available:
                raise BenchError(f"{mode} search degraded: {response.semantic.reason}")
            done += 1
            progress("queries", done, total, "")
            yield steps.total_ms, response, steps

    for elapsed, _, steps in timed(Mode.FTS):
        samples["fts"].append(elapsed)
        _add_stages(stages["fts"], steps)
    for mode in (Mode.SEMANTIC, Mode.HYBRID):
        for elapsed, response, _ in timed(mode):
            samples[f"{mode}Total"].append(elapsed)
            if mode == Mode.SEMANTIC:
                samples["semanticEmbed"].append(response.timings.get("embed_ms", 0.0))
        with _embedded_beforehand(searcher, queries):
            for elapsed, _, steps in timed(mode):
                samples[mode].append(elapsed)
                _add_stages(stages[mode], steps)
    out: dict[str, Any] = {name: percentiles(values) for name, values in samples.items()}
    out["stages"] = {mode: _stage_percentiles(by_stage) for mode, by_stage in stages.items()}
    return out


#: The search's stages that ran beside it (:attr:`Stages.beside`) are named with this suffix;
#: what no stage covered, and the whole search, under these names.
BESIDE = " (beside)"
OTHER = "other"
TOTAL = "total"


def _add_stages(into: dict[str, list[float]], steps: Stages) -> None:
    """One search's stages (:mod:`explorer.stages`), appended to each stage's samples: a stage
    it did not run counts as 0 for it."""
    count = max((len(v) for v in into.values()), default=0)
    named = {name + (BESIDE if name in steps.beside else ""): ms for name, ms in steps.ms.items()}
    named[OTHER] = steps.other_ms
    named[TOTAL] = steps.total_ms
    for name, ms in named.items():
        into.setdefault(name, [0.0] * count).append(ms)
    for values in into.values():
        values.extend([0.0] * (count + 1 - len(values)))


def _stage_percentiles(by_stage: dict[str, list[float]]) -> dict[str, Any]:
    """p50/p95/max of each stage of a search, the stages of the search's own thread first in
    the order they ran, then those beside it, what no stage covered, and the whole."""
    last = [name for name in by_stage if name.endswith(BESIDE)] + [OTHER, TOTAL]
    names = [name for name in by_stage if name not in last] + [n for n in last if n in by_stage]
    return {name: percentiles(by_stage[name]) for name in names}


def _question_latency(
    searcher: Searcher, queries: list[str], questions: list[str]
) -> dict[str, Any]:
    """Hybrid, the query vectors ready (as ``latencyMs``'s ``hybrid``), a short query and a long
    question in turn."""
    samples: dict[str, list[float]] = {"short": [], "long": []}
    stages: dict[str, dict[str, list[float]]] = {"short": {}, "long": {}}
    options = SearchOptions(mode=Mode.HYBRID)
    with _embedded_beforehand(searcher, queries + questions):
        for short, long in zip(queries, questions, strict=False):
            for name, text in (("short", short), ("long", long)):
                with recording() as steps:
                    searcher.search(text, options)
                samples[name].append(steps.total_ms)
                _add_stages(stages[name], steps)
    out: dict[str, Any] = {name: percentiles(values) for name, values in samples.items()}
    out["stages"] = {name: _stage_percentiles(by_stage) for name, by_stage in stages.items()}
    lengths = [len(q.split()) for q in questions]
    out["longWords"] = [min(lengths), max(lengths)] if lengths else None
    if out["short"]["p50"] > 0:
        out["longOverShortP50"] = round(out["long"]["p50"] / out["short"]["p50"], 2)
    return out


def _refusion(searcher: Searcher, queries: list[str]) -> dict[str, float]:
    samples = []
    for query in queries:
        candidates = searcher.candidates(query, SearchOptions(mode=Mode.HYBRID))
        for w_fts, w_vec in REFUSION_WEIGHTS:
            options = SearchOptions(mode=Mode.HYBRID, w_fts=w_fts, w_vec=w_vec)
            samples.append(time_ms(partial(fuse, candidates, options)))
        samples.append(time_ms(partial(fuse, candidates, SearchOptions(mode=Mode.HYBRID))))
    return percentiles(samples)


#: The filters whose cost over the same query unfiltered is measured, and the budget of each
#: (issue 35: at 50,000 notes, a third with properties, at most 5 ms more at p95).
FILTERS = {"property": "[status:open]", "date": "modified:<3650d"}
FILTER_BUDGET_MS = 5.0


def _filter_cost(searcher: Searcher, queries: list[str]) -> dict[str, Any]:
    """Each query in fts and hybrid mode, unfiltered and with each of :data:`FILTERS`: the p95
    of each, and what a filter adds at p95 (``overP95``) against :data:`FILTER_BUDGET_MS`."""
    out: dict[str, Any] = {"budgetMs": FILTER_BUDGET_MS}
    with _embedded_beforehand(searcher, queries):
        for mode in (Mode.FTS, Mode.HYBRID):
            options = SearchOptions(mode=mode)
            plain = percentiles([time_ms(partial(searcher.search, q, options)) for q in queries])
            row: dict[str, Any] = {"unfiltered": plain}
            for name, text in FILTERS.items():
                timed: dict[str, Any] = dict(
                    percentiles(
                        [time_ms(partial(searcher.search, f"{q} {text}", options)) for q in queries]
                    )
                )
                timed["overP95"] = round(timed["p95"] - plain["p95"], 3)
                timed["withinBudget"] = timed["overP95"] <= FILTER_BUDGET_MS
                row[name] = timed
            out[str(mode)] = row
    return out


def _format_filter_cost(result: dict[str, Any]) -> list[str]:
    f = result.get("filterCostMs")
    if not f:
        return []
    lines = ["", f"filters, ms over the same query unfiltered (budget {f['budgetMs']:g} at p95)"]
    for mode in (Mode.FTS, Mode.HYBRID):
        row = f[str(mode)]
        lines.append(f"  {mode}: unfiltered p95 {row['unfiltered']['p95']:.2f}")
        for name, text in FILTERS.items():
            r = row[name]
            verdict = "within budget" if r["withinBudget"] else "OVER BUDGET"
            lines.append(
                f"    {name:<9}{text:<18} p95 {r['p95']:>7.2f}  {r['overP95']:+.2f}  {verdict}"
            )
    return lines


def _bare_topk(matrix: Matrix, query: Matrix, depth: int) -> np.ndarray:
    sims = matrix @ query
    k = min(depth, sims.shape[0])
    top = np.argpartition(-sims, k - 1)[:k] if k < sims.shape[0] else np.arange(sims.shape[0])
    return top[np.argsort(-sims[top])]


def _blob_topk(db: IndexDB, model: str, query: Matrix, depth: int) -> list[int]:
    """The seed web app's local vector search, in Python: read and decode every vector BLOB of
    the model from SQLite for this query, cosine against each, best chunk per note, top ``depth``.
    (Decoding is vectorised after the read, which flatters the baseline.)"""
    rows = db.conn.execute(
        "SELECT c.note_id, v.vec FROM chunks c JOIN vectors v ON v.hash = c.hash AND v.model = ?",
        (model,),
    ).fetchall()
    if not rows:
        return []
    matrix = np.stack([np.frombuffer(blob, dtype="<f4") for _, blob in rows])
    sims = matrix @ query
    best: dict[int, float] = {}
    for (note_id, _), sim in zip(rows, sims.tolist(), strict=True):
        if sim > best.get(note_id, -2.0):
            best[note_id] = sim
    return sorted(best, key=lambda n: (-best[n], n))[:depth]


def _vector_topk(
    db: IndexDB, vectors: VectorIndex, query_vectors: Matrix, model: str
) -> dict[str, Any]:
    matrix = vectors.matrix
    ours: list[float] = []
    bare: list[float] = []
    # Interleaved and repeated, so that neither side gets the warmer cache.
    for _ in range(3):
        for q in query_vectors:
            ours.append(time_ms(partial(vectors.top_notes, q, TOPK_DEPTH)))
            bare.append(time_ms(partial(_bare_topk, matrix, q, TOPK_DEPTH)))
    out: dict[str, Any] = {
        "chunks": int(matrix.shape[0]),
        "dimension": int(matrix.shape[1]) if matrix.ndim == 2 else 0,
        "matrixBytes": int(matrix.nbytes),
        "depth": TOPK_DEPTH,
        "engineMs": percentiles(ours),
        "bareNumpyMs": percentiles(bare),
    }
    out["ratioToBareNumpy"] = round(
        out["engineMs"]["p50"] / max(out["bareNumpyMs"]["p50"], 1e-6), 2
    )
    return out


def _blob_baseline(db: IndexDB, model: str, query_vectors: Matrix, figures: dict[str, Any]) -> None:
    blob: list[float] = []
    for q in query_vectors[:BLOB_QUERIES]:
        blob.append(time_ms(partial(_blob_topk, db, model, q, TOPK_DEPTH)))
    figures["blobReadMs"] = percentiles(blob)
    figures["blobReadOverEngine"] = round(
        figures["blobReadMs"]["p50"] / max(figures["engineMs"]["p50"], 1e-6), 1
    )


# ----------------------------------------------------------------------------- the run


#: Times the warm path on the bench's vault (``vault, index file, scratch folder, queries,
#: provider``): a layer above this one serves (:func:`explorer.mcp.served_timing.time_served`).
ServedTiming = Callable[[Path, Path, Path, list[str], EmbedderProvider], dict[str, Any]]


def run_bench(
    settings: BenchSettings,
    data: str | None = None,
    model: str | None = None,
    served: ServedTiming | None = None,
) -> dict[str, Any]:
    """Measure everything in one process; returns the figures (what ``--json`` prints)."""
    if settings.vault is not None and not settings.vault.is_dir():
        raise BenchError(f"vault folder not found: {settings.vault}")
    if settings.while_embedding and not settings.embed:
        raise BenchError("--while-embedding times the model: it cannot go with --no-embed")
    if settings.startup and not settings.embed:
        raise BenchError("--startup times the model's load: it cannot go with --no-embed")
    if settings.embed_threads_sweep and not settings.embed:
        raise BenchError("--embed-threads-sweep times the model: it cannot go with --no-embed")
    progress = _progress()
    result: dict[str, Any] = {
        "settings": {
            "vault": str(settings.vault) if settings.vault else None,
            "notes": None if settings.vault else settings.notes,
            "seed": settings.seed,
            "queries": settings.queries,
            "embed": settings.embed,
            "embedSample": settings.embed_sample,
        }
    }
    try:
        with workspace(settings.keep, data) as scratch:
            _run(settings, scratch, model, progress, result, served)
    finally:
        close = getattr(progress, "close", None)
        if close:
            close()
    return result


def _run(
    settings: BenchSettings,
    scratch: Path,
    model: str | None,
    progress: Callable[..., None],
    result: dict[str, Any],
    served: ServedTiming | None = None,
) -> None:
    if settings.vault is not None:
        vault = settings.vault.resolve()
    else:
        vault = scratch / "vault"
        log(f"generating a vault of {settings.notes:,} notes (seed {settings.seed})")
        started = time.perf_counter()
        generate_vault(vault, settings.notes, settings.seed, properties=True)
        result["generateSeconds"] = round(time.perf_counter() - started, 2)
    queries = generate_queries(vault, settings.queries, settings.seed)
    phases: dict[str, int] = {"start": peak_rss_bytes()}
    result["peakRssByPhase"] = phases

    # Lexical indexing into a fresh index, then the same vault again (nothing changed).
    db = IndexDB.open(vault, path=scratch / "index.sqlite")
    try:
        log(f"indexing {vault}")
        first = sync_vault(db, progress)
        notes = int(db.conn.execute("SELECT count(*) FROM notes").fetchone()[0])
        chunks = int(db.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        again = sync_vault(db)
        phases["lexicalIndex"] = peak_rss_bytes()
        indexing: dict[str, Any] = {
            "notes": notes,
            "chunks": chunks,
            "skipped": len(first.skipped),
            "lexicalSeconds": round(first.seconds, 2),
            "lexicalNotesPerSecond": round(notes / first.seconds, 1) if first.seconds else None,
            "unchangedResyncSeconds": round(again.seconds, 3),
        }
        result["indexing"] = indexing
        provider, embedder, embed_figures = _embed(db, settings, model, progress)
        indexing.update(embed_figures)
        phases["embedding"] = peak_rss_bytes()
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        result["indexBytes"] = index_bytes(db.path)

        searcher = Searcher(db, provider)
        started = time.perf_counter()
        searcher.search(queries[0], SearchOptions(mode=Mode.HYBRID))  # loads the vector matrix
        result["firstHybridSearchMs"] = round((time.perf_counter() - started) * 1000, 1)
        for query in queries[:5]:  # warm the caches of every path
            for mode in MODES:
                searcher.search(query, SearchOptions(mode=mode))
        log(f"timing {len(queries)} queries per mode")
        load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        result["latencyMs"] = _latency(searcher, queries, progress)
        result["loadAverage"] = {
            "beforeQueries": load_before,
            "afterQueries": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        }
        try:
            questions = generate_questions(vault, settings.queries, settings.seed)
        except ValueError as exc:  # notes too short for 12-word runs
            log(f"no long-question figures: {exc}")
        else:
            result["questionLatencyMs"] = _question_latency(searcher, queries, questions)
        result["refusionMs"] = _refusion(searcher, queries)
        result["filterCostMs"] = _filter_cost(searcher, queries)
        phases["queries"] = peak_rss_bytes()

        vectors = searcher.vector_index()
        assert vectors is not None
        query_vectors = embed_queries(embedder, queries)
        topk = _vector_topk(db, vectors, query_vectors, embedder.name)
        result["peakRssBytes"] = peak_rss_bytes()
        result["rssBytes"] = int(psutil.Process().memory_info().rss)
        log(f"timing the per-query BLOB-read baseline on {min(BLOB_QUERIES, len(queries))} queries")
        _blob_baseline(db, embedder.name, query_vectors, topk)
        result["vectorTopK"] = topk
        result["peakRssBytesWithBaseline"] = peak_rss_bytes()
        if served is not None:  # after the peaks: its server reads the vector matrix again
            log("timing the warm path: the same searches asked over a warm server's socket")
            db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            result["warmPath"] = served(vault, db.path, scratch, queries, provider)
        if settings.while_embedding:
            log("timing questions while the vault's chunks embed")
            passages = [
                text
                for (text,) in db.conn.execute(
                    "SELECT text FROM chunks ORDER BY note_id, seq LIMIT 2000"
                )
            ]
            result["queryWhileEmbedding"] = query_while_embedding(
                embedder, passages, queries[:CONTENTION_QUESTIONS]
            )
        if settings.embed_threads_sweep:
            result["embedThreads"] = _thread_sweep(db, embedder)
        if settings.renames:
            log(f"timing the rename of a note and of a folder of {FOLDER_NOTES} notes")
            result["renames"] = rename_costs(vault, scratch, embedder)
        if settings.startup:
            log("timing start-up: the command line and the window, cold and warm")
            db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            result["startup"] = measure_startup(
                vault, db.path, scratch, queries[0], model, window=_has_window()
            )
        if settings.freshness:
            log("measuring freshness")
            db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            result["freshness"] = run_freshness(
                vault,
                scratch / "freshness",
                settings.freshness_samples,
                provider,
                start_from=db.path,
            )
    finally:
        db.close()
    result["cpu"] = {
        "count": os.cpu_count(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
    }


def _has_window() -> bool:
    """Whether this installation has the window (PySide6) to time."""
    import importlib.util

    return importlib.util.find_spec("PySide6") is not None


def _thread_sweep(db: IndexDB, embedder: Embedder) -> dict[str, Any]:
    from explorer.embed.sbert import SentenceTransformerEmbedder

    if not isinstance(embedder, SentenceTransformerEmbedder):
        raise BenchError(
            f"--embed-threads-sweep sets torch's threads; {embedder.name} takes its threads "
            "when it loads: run bench once per VAULT_EXPLORER_EMBED_THREADS instead"
        )
    passages = [
        text
        for (text,) in db.conn.execute(
            "SELECT text FROM chunks ORDER BY note_id, seq LIMIT ?", (SWEEP_CHUNKS,)
        )
    ]
    log(f"timing {len(passages)} chunks at each thread setting, twice")
    return sweep_threads(embedder, passages)


# ----------------------------------------------------------------------------- output


def _format_stages(result: dict[str, Any]) -> list[str]:
    """Per step of a search, p50 / p95 in ms, for hybrid queries and for long questions."""
    columns = [("hybrid", result["latencyMs"].get("stages", {}).get("hybrid", {}))]
    q = result.get("questionLatencyMs") or {}
    if q.get("stages"):
        columns.append(("questions", q["stages"]["long"]))
    names = list(dict.fromkeys(name for _, by_stage in columns for name in by_stage))
    if not names:
        return []
    head = "".join(f"{label + ' p50':>16}{'p95':>8}" for label, _ in columns)
    lines = [f"{'where the time goes (ms)':<26}{head}"]
    for name in names:
        row = ""
        for _, by_stage in columns:
            p = by_stage.get(name)
            row += f"{p['p50']:>16.2f}{p['p95']:>8.2f}" if p else f"{'-':>16}{'-':>8}"
        lines.append(f"{name:<26}{row}")
    return lines


def format_bench(result: dict[str, Any]) -> str:
    """The readable form of :func:`run_bench`'s figures."""
    ix = result["indexing"]
    lines = []
    source = (
        result["settings"]["vault"] or f"generated vault of {result['settings']['notes']:,} notes"
    )
    lines.append(f"bench on {source}: {ix['notes']:,} notes, {ix['chunks']:,} chunks")
    lines.append(
        f"lexical indexing   {ix['lexicalNotesPerSecond']:>10,.0f} notes/s "
        f"({ix['lexicalSeconds']:.1f}s); unchanged re-sync {ix['unchangedResyncSeconds']:.2f}s"
    )
    if ix.get("embedChunksPerSecond") is not None:
        lines.append(
            f"embedding          {ix['embedChunksPerSecond']:>10,.1f} chunks/s "
            f"({ix['embeddedChunks']:,} chunks in {ix['embedSeconds']:.1f}s, {ix['model']}; "
            f"model load {ix['modelLoadSeconds']:.1f}s)"
        )
        if ix.get("precision"):
            lines.append(f"                   in {ix['precision']}: {ix['precisionReason']}")
        if ix.get("embedChunksPerCpuSecond"):
            lines.append(
                f"                   {ix['embedChunksPerCpuSecond']:,.1f} chunks per CPU second "
                f"({ix['embedCpuSeconds']:.1f}s of CPU time, all threads)"
            )
    if ix.get("note"):
        lines.append(f"                   {ix['note']}")
    lines.append("")
    lines.append(f"{'latency (ms)':<34}{'p50':>8}{'p95':>8}{'max':>8}")
    labels = {
        "fts": "fts",
        "semanticEmbed": "semantic: query embedding",
        "semantic": "semantic: search (excl. embedding)",
        "hybrid": "hybrid (excl. query embedding)",
        "hybridTotal": "hybrid (incl. query embedding)",
    }
    for key, label in labels.items():
        p = result["latencyMs"][key]
        lines.append(f"{label:<34}{p['p50']:>8.2f}{p['p95']:>8.2f}{p['max']:>8.2f}")
    q = result.get("questionLatencyMs")
    if q:
        words = q["longWords"]
        for key, label in (
            ("short", "hybrid, short queries (2-4 words)"),
            ("long", f"hybrid, questions ({words[0]}-{words[1]} words)"),
        ):
            p = q[key]
            lines.append(f"{label:<34}{p['p50']:>8.2f}{p['p95']:>8.2f}{p['max']:>8.2f}")
        if "longOverShortP50" in q:
            lines.append(f"{'  questions / short, p50':<34}{q['longOverShortP50']:>8.2f}x")
    lines.append("")
    lines.extend(_format_stages(result))
    r = result["refusionMs"]
    lines.append(
        f"{'re-fusion (weights only)':<34}{r['p50']:>8.3f}{r['p95']:>8.3f}{r['max']:>8.3f}"
    )
    lines.extend(_format_filter_cost(result))
    v = result["vectorTopK"]
    lines.append("")
    lines.append(
        f"vector top-{v['depth']} over {v['chunks']:,} x {v['dimension']} "
        f"({v['matrixBytes'] / 1e6:.0f} MB): engine p50 {v['engineMs']['p50']:.2f} ms, "
        f"bare numpy {v['bareNumpyMs']['p50']:.2f} ms (ratio {v['ratioToBareNumpy']:.2f}x); "
        f"BLOB reads per query {v['blobReadMs']['p50']:.0f} ms "
        f"({v['blobReadOverEngine']:.0f}x slower than the engine)"
    )
    lines.append(
        f"index on disk {result['indexBytes'] / 1e6:.1f} MB; peak RSS "
        f"{result['peakRssBytes'] / 2**20:.0f} MiB (with the BLOB baseline "
        f"{result['peakRssBytesWithBaseline'] / 2**20:.0f} MiB); first hybrid search "
        f"{result['firstHybridSearchMs']:.0f} ms (loads the vector matrix)"
    )
    load = result.get("loadAverage") or {}
    if load.get("beforeQueries") is not None:
        lines.append(
            f"machine load (1-min average) while timing queries: {load['beforeQueries']:.1f} -> "
            f"{load['afterQueries']:.1f} on {result['cpu']['count']} CPUs"
        )
    if "queryWhileEmbedding" in result:
        lines.append("")
        lines.extend(format_contention(result["queryWhileEmbedding"]))
    if "embedThreads" in result:
        lines.append("")
        lines.extend(format_sweep(result["embedThreads"]))
    if "startup" in result:
        lines.append("")
        lines.extend(format_startup(result["startup"]))
    if "renames" in result:
        lines.append("")
        lines.extend(format_renames(result["renames"]))
    if "freshness" in result:
        lines.append(f"freshness: {result['freshness']}")
    return "\n".join(lines)
