"""The hybrid search orchestrator: both lists, fusion, stale demotion, degradation.

One :class:`Searcher` per open index.  :meth:`Searcher.candidates` runs the lists once;
:func:`fuse` turns cached candidates into ranked hits for any fusion settings, so the window can
re-fuse on a weight change without a new query.  Degradation is absolute: if the vector list
cannot be had (no model, load failure, embed error, a query embedding slower than the timeout),
``hybrid`` returns exactly the lexical result and says why.
"""

from __future__ import annotations

import concurrent.futures
import functools
import html
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.embed.base import Embedder, EmbedderUnavailable, Matrix, embed_queries
from explorer.embed.provider import EmbedderProvider, model_languages
from explorer.index.db import IndexDB
from explorer.index.status import vault_languages
from explorer.index.vectors import CosineSpread, VectorHit, VectorIndex
from explorer.search import evidence, fusion
from explorer.search.chunk_scores import ChunkScore
from explorer.search.lexical import PASSES, filter_clause, lap, lexical_list, make_snippets
from explorer.search.options import FUSION_METHODS, MODES, Fusion, Mode, SearchOptions
from explorer.search.query import Query, QueryError, parse_query, split_compounds
from explorer.search.query_embedding import EXECUTOR, NORMAL
from explorer.search.snippet import body_start

#: Lower bounds of the convex fusion's normalisation, per list (a list not named here is
#: min-max normalised over its own candidates).  0 for both: bm25 cannot go below 0, and a cosine
#: at or below 0 means "unrelated" for sentence embeddings, so each list's scores count as a
#: fraction of its best one.  Measured on SciFact train (nDCG@10, w_fts 0.2..0.7): min-max over
#: the candidates 0.702-0.736, these bounds 0.727-0.737 (flattest across weights), Bruch et al.'s
#: theoretical minima (0 for bm25, -1 for cosine) 0.719-0.736, best at the lowest w_fts.
CONVEX_LOWER_BOUNDS: dict[str, float] = {"fts": 0.0, "vector": 0.0}
EMBED_TIMEOUT_S = 3.0
#: An empty query lists this many recently modified notes (fewer if the limit is lower).
LISTING_SIZE = 20


#: The ``status`` (frontmatter, lower case) of a note that goes after every other hit.
DEMOTED_STATUS = "stale"


class SemanticUnavailable(RuntimeError):
    """``semantic`` mode was asked for and there is no vector list; the message says why."""


@dataclass(frozen=True, slots=True)
class SemanticStatus:
    available: bool
    reason: str | None
    model: str | None


#: What the vector list's ranking gives: the best chunks and the model's name, or why none.
_Ranked = SemanticStatus | tuple[list[VectorHit], str]
#: Where a hybrid search ranks its vector list while its lexical list is made (per process;
#: a thread waits mostly on the model or numpy, so two are plenty).
_BESIDE = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="vector-list")


@dataclass(frozen=True, slots=True)
class NoteInfo:
    path: str
    title: str
    status: str | None
    tags: tuple[str, ...]
    mtime_ns: int

    @property
    def demoted(self) -> bool:
        """Stale notes go after every other hit, whatever their score."""
        return self.status == DEMOTED_STATUS


def is_demoted(notes: dict[str, NoteInfo], path: str) -> bool:
    """Whether the note ``path`` (its row in ``notes``, if loaded) goes after every other hit."""
    info = notes.get(path)
    return info is not None and info.demoted


@dataclass(frozen=True, slots=True)
class VectorCandidate:
    path: str
    score: float
    chunk: tuple[int, int]
    chunk_text: str
    #: The best chunk's number in the note, and the note's second-best chunk (``None``: unknown,
    #: or the note has one chunk).
    seq: int | None = None
    runner_up: ChunkScore | None = None


@dataclass(slots=True)
class Candidates:
    """The two lists of one query, before fusion (what the window caches for re-fusion)."""

    query: Query
    mode: str
    depth: int
    lexical: list[tuple[str, float, str]] = field(default_factory=list)  # path, score, snippet
    #: The lexical pass that found each path (0 the first; see :mod:`explorer.search.lexical`).
    lexical_tiers: dict[str, int] = field(default_factory=dict)
    #: The share of the query's content words each any-word-pass note holds.
    lexical_coverage: dict[str, float] = field(default_factory=dict)
    #: The lexical notes whose snippet is still to be made (``""`` in :attr:`lexical`): path to
    #: (note id, what the snippet marks).  Only :meth:`Searcher.search` leaves any.
    unsnipped: dict[str, tuple[int, str]] = field(default_factory=dict)
    vector: list[VectorCandidate] = field(default_factory=list)
    #: How the query's cosines spread over every note (``None``: no vector list was made).
    spread: CosineSpread | None = None
    notes: dict[str, NoteInfo] = field(default_factory=dict)
    semantic: SemanticStatus = SemanticStatus(False, "not requested", None)
    listing: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    #: Milliseconds per step of the search (``fts``, ``snippets``, ``coverage``, ``vector
    #: refresh``, ``vector top-k``, ``vector rows``, ``note rows``): where ``timings`` went.
    stages: dict[str, float] = field(default_factory=dict, compare=False)
    #: The query's vector (``None``: no vector list was made), kept so that a note's every
    #: chunk can be scored later without the model (:mod:`explorer.search.chunk_scores`).
    query_vector: Matrix | None = field(default=None, compare=False)
    #: The indexes of the query's content parts each any-word-pass note holds.
    lexical_held: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: How many notes hold each of the query's content parts, and the notes they are among
    #: (what the coverage weighs words by: :func:`explorer.search.evidence.weighted_coverage`).
    term_notes: tuple[int, ...] = ()
    note_count: int = 0


@dataclass(frozen=True, slots=True)
class Hit:
    path: str
    title: str
    snippet: str
    fused_score: float
    contributions: dict[str, float]
    fts_rank: int | None
    vector_rank: int | None
    fts_score: float | None
    vector_score: float | None
    source: str | None
    best_chunk: tuple[int, int] | None
    status: str | None = None
    tags: tuple[str, ...] = ()
    fts_pass: str | None = None  # the lexical pass that found it (lexical.PASSES)
    #: Calibrated evidence per list (0..1; :mod:`explorer.search.evidence`), whatever the
    #: fusion method: what "close match" is decided on.
    evidence: dict[str, float] = field(default_factory=dict)
    #: How many standard deviations its cosine stands above the query's vault mean.
    vector_sigmas: float | None = None
    #: The share of the query's content words it holds (lexical hits only).
    coverage: float | None = None
    #: That share with each word weighed by its rarity in the vault: what the lexical evidence
    #: reads (:func:`lexical_coverage`; lexical hits only).
    weighted_coverage: float | None = None
    #: The best chunk's number in the note, and the note's second-best chunk.
    best_chunk_seq: int | None = None
    runner_up_chunk: ChunkScore | None = None

    @property
    def demoted(self) -> bool:
        """Stale notes go after every other hit, whatever their score."""
        return self.status == DEMOTED_STATUS

    def to_json(self) -> dict[str, Any]:
        return {
            "noteId": self.path,
            "path": self.path,
            "title": self.title,
            "snippet": self.snippet,
            "fusedScore": self.fused_score,
            "contributions": dict(self.contributions),
            "ftsRank": self.fts_rank,
            "vectorRank": self.vector_rank,
            "ftsScore": self.fts_score,
            "ftsPass": self.fts_pass,
            "vectorScore": self.vector_score,
            "source": self.source,
            "evidence": {name: round(value, 5) for name, value in self.evidence.items()},
            "vectorSigmas": None if self.vector_sigmas is None else round(self.vector_sigmas, 3),
            "coverage": None if self.coverage is None else round(self.coverage, 3),
            "weightedCoverage": (
                None if self.weighted_coverage is None else round(self.weighted_coverage, 3)
            ),
            "demoted": DEMOTED_STATUS if self.demoted else None,
            "bestChunk": self._best_chunk_json(),
            "runnerUpChunk": (
                self.runner_up_chunk.to_json() if self.runner_up_chunk is not None else None
            ),
        }

    def _best_chunk_json(self) -> dict[str, Any] | None:
        if not self.best_chunk:
            return None
        start, end = self.best_chunk
        cosine = None if self.vector_score is None else round(self.vector_score, 6)
        return {"start": start, "end": end, "seq": self.best_chunk_seq, "cosine": cosine}


@dataclass(slots=True)
class SearchResponse:
    query: str
    options: SearchOptions
    semantic: SemanticStatus
    hits: list[Hit]
    listing: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    #: Whether any note clears the calibrated bar (``None`` for a listing of recent notes).
    close_match: bool | None = None
    #: The lists whose evidence judged :attr:`close_match` (``("fts",)``: words alone).
    judged_on: tuple[str, ...] = ()
    spread: CosineSpread | None = None
    #: The candidates' steps (:attr:`Candidates.stages`) and ``fusion`` (this response's).
    stages: dict[str, float] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        o = self.options
        out: dict[str, Any] = {
            "query": self.query,
            "mode": o.mode,
            "fusion": {
                "method": o.fusion,
                "k": int(o.k) if float(o.k).is_integer() else o.k,
                "weights": o.weights,
                "depth": o.depth,
            },
            "semantic": {
                "available": self.semantic.available,
                "reason": self.semantic.reason,
                "model": self.semantic.model,
                **query_language_json(self.query, self.semantic.model),
            },
            "closeMatch": self.close_match,
            "closeMatchJudgedOn": list(self.judged_on),
            "vectorSpread": self.spread.to_json() if self.spread is not None else None,
            "hits": [h.to_json() for h in self.hits],
        }
        if self.listing:
            out["listing"] = "recent"
        return out


def model_reads(query: Query, model: str | None) -> bool | None:
    """Whether ``model`` reads the language of ``query`` (``None``: either is not known)."""
    reads = model_languages(model) if model else None
    if reads is None or not query.language:
        return None
    return query.language in reads


def query_language_json(raw: str, model: str | None) -> dict[str, Any]:
    """``queryLanguage`` (ISO 639-1, ``null`` when it cannot be told) and ``modelReadsQuery``
    (``false`` when the model does not read that language, ``null`` when either is unknown)."""
    query = parse_query(raw)
    return {"queryLanguage": query.language or None, "modelReadsQuery": model_reads(query, model)}


class Searcher:
    """Runs searches over one open index, with the model of ``provider`` (or none)."""

    def __init__(
        self,
        db: IndexDB,
        provider: EmbedderProvider,
        *,
        wait_for_model: bool = True,
        embed_timeout: float = EMBED_TIMEOUT_S,
        vectors: VectorIndex | None = None,
        priority: int = NORMAL,
    ) -> None:
        """``priority``: where the query's embedding queues
        (:mod:`explorer.search.query_embedding`: the window's own query goes first)."""
        self.db = db
        self.provider = provider
        self.wait_for_model = wait_for_model
        self.embed_timeout = embed_timeout
        #: The vector matrix, reloaded when the index changes.  A long-lived caller that makes a
        #: searcher per request hands in its own, so the matrix is read once, not per request.
        self._vectors = vectors
        self.priority = priority

    def search(self, raw: str, options: SearchOptions | None = None) -> SearchResponse:
        """Parse, run both lists as the mode needs, fuse, demote stale notes, cut to limit."""
        options = options or SearchOptions()
        options.validate()
        candidates = self.candidates(raw, options, snippets=False)
        response = fuse(candidates, options)
        self._snip_shown(candidates, response)
        return response

    def candidates(self, raw: str, options: SearchOptions, *, snippets: bool = True) -> Candidates:
        """Both lists of ``raw``, before fusion.  Every lexical note gets its snippet, so that
        any fusion of them can be shown; ``snippets=False`` leaves them to be made for the hits
        shown (:attr:`Candidates.unsnipped`)."""
        options.validate()
        query = parse_query(raw, vault_languages(self.db.conn))
        counted = self.db.term_counts.current(self.db.conn)
        split_compounds(query, counted)
        result = Candidates(query=query, mode=options.mode, depth=options.depth)
        started = time.perf_counter()
        if query.is_listing:
            result.listing = True
            result.semantic = SemanticStatus(False, "no words to search", self.provider.name)
            self._listing(result, options)
            return result
        early = self._begin_vector(result, options) if options.mode == Mode.HYBRID else None
        if options.mode != Mode.SEMANTIC:
            found = lexical_list(
                self.db.conn,
                query,
                options.depth,
                result.stages,
                snippets=snippets,
                counted=counted,
            )
            for hit in found:
                result.lexical.append((hit.path, hit.score, hit.snippet))
                if not snippets:
                    result.unsnipped[hit.path] = (hit.note_id, hit.marks)
                result.lexical_tiers[hit.path] = hit.tier
                if hit.coverage < 1.0:
                    result.lexical_coverage[hit.path] = hit.coverage
                if hit.held is not None:
                    result.lexical_held[hit.path] = hit.held
            if result.lexical_held:
                result.term_notes = tuple(counted(part) for part in query.content_parts())
                result.note_count = counted.rows()
        result.timings["lexical_ms"] = (time.perf_counter() - started) * 1000
        if options.mode != Mode.FTS:
            result.semantic = self._vector_list(result, options, early)
            if options.mode == Mode.SEMANTIC and not result.semantic.available:
                raise SemanticUnavailable(
                    f"semantic search is unavailable: {result.semantic.reason}"
                )
        else:
            result.semantic = SemanticStatus(False, "lexical mode", self.provider.name)
        started = time.perf_counter()
        self._load_notes(result, [p for p, _, _ in result.lexical])
        lap(result.stages, "note rows", started)
        return result

    def _snip_shown(self, candidates: Candidates, response: SearchResponse) -> None:
        """Make the snippets of the lexical hits shown that were left without one."""
        started = time.perf_counter()
        shown = [
            (i, candidates.unsnipped[hit.path])
            for i, hit in enumerate(response.hits)
            if hit.fts_rank is not None and hit.path in candidates.unsnipped
        ]
        texts = make_snippets(self.db.conn, [note for _, note in shown])
        for (i, _), text in zip(shown, texts, strict=True):
            response.hits[i] = replace(response.hits[i], snippet=text)
        lap(response.stages, "snippets", started)

    def _vector_list(
        self,
        result: Candidates,
        options: SearchOptions,
        early: concurrent.futures.Future[_Ranked] | None = None,
    ) -> SemanticStatus:
        """The vector list of ``result``'s query: ranked by ``early`` (begun beside the lexical
        list, :meth:`_begin_vector`) when given, else here."""
        if early is not None:
            ranked = early.result()
        else:
            name = self.provider.name
            try:
                embedder = self.provider.get(None if self.wait_for_model else 0)
            except EmbedderUnavailable as exc:
                return SemanticStatus(False, str(exc), name)
            ranked = self._ranking(embedder, result, options)()
        if isinstance(ranked, SemanticStatus):
            return ranked
        hits, name = ranked
        started = time.perf_counter()
        if hits:  # best first: the relative floor keeps a prefix
            floor = options.vector_floor(hits[0].score)
            hits = [h for h in hits if h.score >= floor]
        paths = self._paths([h.note_id for h in hits])
        keys = [(h.note_id, h.chunk_start) for h in hits]
        keys += [(h.note_id, h.runner_up[0]) for h in hits if h.runner_up is not None]
        chunk_texts, seqs = self._chunk_texts(keys)
        started = lap(result.stages, "vector rows", started)
        for hit in hits:
            path = paths.get(hit.note_id)
            if path is None:
                continue
            second = hit.runner_up
            result.vector.append(
                VectorCandidate(
                    path,
                    hit.score,
                    (hit.chunk_start, hit.chunk_end),
                    chunk_texts.get((hit.note_id, hit.chunk_start), ""),
                    seqs.get((hit.note_id, hit.chunk_start)),
                    None
                    if second is None or (hit.note_id, second[0]) not in seqs
                    else ChunkScore(seqs[(hit.note_id, second[0])], *second),
                )
            )
        result.timings["vector_ms"] = (
            result.timings.get("vector_ms", 0.0) + (time.perf_counter() - started) * 1000
        )
        started = time.perf_counter()
        self._load_notes(result, [v.path for v in result.vector])
        lap(result.stages, "note rows", started)
        return SemanticStatus(True, None, name)

    def _begin_vector(
        self, result: Candidates, options: SearchOptions
    ) -> concurrent.futures.Future[_Ranked] | None:
        """Start the query's embedding and vector top-k on another thread, to run while this
        one makes the lexical list (both wait on C code that lets go of the GIL: the model,
        numpy, SQLite).  Only the matrix is read there; every statement stays on this thread.
        ``None`` (the vector list is then made after the lexical one) while the model is not
        loaded: a search never waits for it before its words are searched."""
        embedder = self.provider.peek()
        if embedder is None:
            return None
        return _BESIDE.submit(self._ranking(embedder, result, options))

    def _ranking(
        self, embedder: Embedder, result: Candidates, options: SearchOptions
    ) -> Callable[[], _Ranked]:
        """:meth:`_rank` with what it needs read from the index here and now (the matrix
        brought up to date, the notes the filters allow): the call itself reads no table."""
        started = time.perf_counter()
        vectors = self._vector_index(embedder.name)
        lap(result.stages, "vector refresh", started)
        allowed = self._allowed(result.query)
        return functools.partial(self._rank, embedder, vectors, allowed, result, options)

    def _rank(
        self,
        embedder: Embedder,
        vectors: VectorIndex,
        allowed: set[int] | None,
        result: Candidates,
        options: SearchOptions,
    ) -> _Ranked:
        """Embed the query and rank the matrix: the best chunk hits and the model's name, or
        why there is no vector list.  Reads no table (it may run beside the lexical list)."""
        name = embedder.name
        started = time.perf_counter()
        future = EXECUTOR.submit(
            embed_queries, embedder, [result.query.free_text], priority=self.priority
        )
        try:
            query_vec = future.result(timeout=self.embed_timeout)
        except concurrent.futures.TimeoutError:
            return SemanticStatus(
                False, f"query embedding took longer than {self.embed_timeout:g} s", name
            )
        except Exception as exc:
            return SemanticStatus(
                False, f"query embedding failed: {type(exc).__name__}: {exc}", name
            )
        result.timings["embed_ms"] = (time.perf_counter() - started) * 1000
        result.query_vector = query_vec[0]
        if vectors.size == 0:
            return SemanticStatus(False, "no note has a vector yet (embedding pending)", name)
        started = time.perf_counter()
        hits, result.spread = vectors.search(
            query_vec[0], options.depth, allowed=allowed, min_sim=options.min_sim
        )
        lap(result.stages, "vector top-k", started)
        result.timings["vector_ms"] = (time.perf_counter() - started) * 1000
        return hits, name

    def vector_index(self) -> VectorIndex | None:
        """The loaded vector matrix (benchmarks and the status panel look at it)."""
        return self._vectors

    def _vector_index(self, model: str) -> VectorIndex:
        if self._vectors is None or self._vectors.model != model:
            self._vectors = VectorIndex(model)
        self._vectors.refresh(self.db)
        return self._vectors

    def _allowed(self, query: Query) -> set[int] | None:
        if not (query.has_filters or query.excluded):
            return None
        where, params = filter_clause(query)
        rows = self.db.conn.execute(f"SELECT id FROM notes n WHERE {where}", params)
        return {int(r[0]) for r in rows}

    def _paths(self, ids: list[int]) -> dict[int, str]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.conn.execute(f"SELECT id, path FROM notes WHERE id IN ({marks})", ids)
        return {int(i): str(p) for i, p in rows}

    def _chunk_texts(
        self, keys: list[tuple[int, int]]
    ) -> tuple[dict[tuple[int, int], str], dict[tuple[int, int], int]]:
        """Texts and numbers (``seq``) of the given (note id, chunk start) chunks, in one
        query."""
        if not keys:
            return {}, {}
        # By the key's prefix (note_id), then the starts asked for: a row-value IN made SQLite
        # scan every chunk of the vault (6 ms at 8k chunks, linear in the vault).
        wanted = set(keys)
        notes = sorted({n for n, _ in keys})
        marks = ",".join("?" * len(notes))
        rows = self.db.conn.execute(
            f"SELECT note_id, start, seq, text FROM chunks WHERE note_id IN ({marks})", notes
        ).fetchall()
        texts = {(n, s): str(t) for n, s, _, t in rows if (n, s) in wanted}
        return texts, {(n, s): int(q) for n, s, q, _ in rows if (n, s) in wanted}

    def _load_notes(self, result: Candidates, paths: list[str]) -> None:
        missing = [p for p in paths if p not in result.notes]
        for start in range(0, len(missing), 500):
            part = missing[start : start + 500]
            marks = ",".join("?" * len(part))
            for path, title, status, tags, mtime in self.db.conn.execute(
                f"SELECT path, title, status, tags, mtime_ns FROM notes WHERE path IN ({marks})",
                part,
            ):
                result.notes[path] = NoteInfo(
                    path, title, status, tuple(tags.split()) if tags else (), mtime
                )

    def _listing(self, result: Candidates, options: SearchOptions) -> None:
        where, params = filter_clause(result.query)
        rows = self.db.conn.execute(
            f"SELECT n.id, n.path FROM notes n WHERE {where} ORDER BY n.mtime_ns DESC, n.path "
            "LIMIT ?",
            (*params, min(options.limit, LISTING_SIZE)),
        ).fetchall()
        marked = _marked_words(result.query)
        for note_id, path in rows:
            body = body_start(self.db.conn, int(note_id), 240)
            result.lexical.append((str(path), 0.0, _plain_snippet(body, marked)))
        self._load_notes(result, [p for p, _, _ in result.lexical])


def fuse(candidates: Candidates, options: SearchOptions) -> SearchResponse:
    """Ranked hits from cached candidates: fusion, stale demotion, limit.  Pure over its input."""
    started = time.perf_counter()
    options = options.validate().in_effect()
    semantic = candidates.semantic
    depth = min(options.depth, candidates.depth)
    lexical = candidates.lexical[:depth]
    vector = candidates.vector[:depth]
    if candidates.listing:
        hits = [
            _hit(candidates, path, snippet, 0.0, {}, None, None, None, None, None, None)
            for path, _, snippet in lexical
        ]
        return SearchResponse(
            candidates.query.raw,
            options,
            semantic,
            hits[: options.limit],
            listing=True,
            timings=dict(candidates.timings),
        )
    fused, lists, weighed = _ranked(candidates, options, lexical, vector)
    lex_by_path = {p: (s, snip) for p, s, snip in lexical}
    vec_by_path = {v.path: v for v in vector}
    strength = (
        _by_note(weighed)
        if weighed is not None
        else calibrated_scores(candidates, options, lexical, vector)
    )
    # Hits (and snippets, the costly part) are made only for what is shown.
    marked = _marked_words(candidates.query)
    weighted = lexical_coverage(candidates)
    hits = []
    for item in fused[: options.limit]:
        lex = lex_by_path.get(item.id) if "fts" in lists else None
        vec = vec_by_path.get(item.id) if "vector" in lists else None
        contributions = {"fts": item.contributions.get("fts", 0.0)}
        contributions["vector"] = item.contributions.get("vector", 0.0)
        snippet = lex[1] if lex else _plain_snippet(vec.chunk_text if vec else "", marked)
        hits.append(
            _hit(
                candidates,
                item.id,
                snippet,
                item.score,
                contributions,
                item.ranks.get("fts"),
                item.ranks.get("vector"),
                lex[0] if lex else None,
                vec.score if vec else None,
                item.source,
                vec.chunk if vec else None,
                strength.get(item.id, {}),
                vec,
                weighted,
            )
        )
    stages = dict(candidates.stages)
    lap(stages, "fusion", started)
    return SearchResponse(
        candidates.query.raw,
        options,
        semantic,
        hits,
        timings=dict(candidates.timings),
        close_match=close_match(strength, [f.id for f in fused], options, lists),
        judged_on=judged_on(lists, options),
        spread=candidates.spread if options.mode != Mode.FTS and semantic.available else None,
        stages=stages,
    )


def calibrated_scores(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
) -> dict[str, dict[str, float]]:
    """Each candidate's calibrated evidence per list (:mod:`explorer.search.evidence`),
    whatever method ranks the hits: what "close match" is decided on, and what explain shows."""
    scored = scored_lists(candidates, options, lexical, vector)
    return _by_note(evidence_lists(candidates, scored))


def _by_note(weighed: dict[str, list[tuple[str, float]]]) -> dict[str, dict[str, float]]:
    """Evidence lists (:func:`evidence_lists`) as each note's evidence per list."""
    out: dict[str, dict[str, float]] = {}
    for name, items in weighed.items():
        for doc, value in items:
            out.setdefault(doc, {})[name] = max(value, out.get(doc, {}).get(name, 0.0))
    return out


def judged_on(lists: Iterable[str], options: SearchOptions) -> tuple[str, ...]:
    """The lists that judge whether a search has a close match: those that answered, and that
    the search weighs (a weight of 0 ranks nothing)."""
    return tuple(name for name in lists if options.weights.get(name, 0.0) > 0)


def close_match(
    strength: dict[str, dict[str, float]],
    listed: list[str],
    options: SearchOptions,
    lists: Iterable[str],
) -> bool | None:
    """Whether a note the search lists is close to the query: its calibrated evidence, at full
    weight, from the lists that judge (:func:`judged_on`), reaches the bar.  The weights order
    the hits; whether a note is close is what the lists say of it.  No hit, no close match.

    ``None`` (not judged) when a hybrid search has only its words to judge by (the meaning
    model still loading, or no vectors yet) and they fall short: a note that holds half of
    "Erstattung meines Abos" may be the refund policy or may be nothing, and only the meaning
    list could tell; it is not said to be far for want of that list."""
    judges = judged_on(lists, options)
    best = max(
        (
            combined({n: e for n, e in strength.get(path, {}).items() if n in judges})
            for path in listed
        ),
        default=0.0,
    )
    if best >= evidence.CALIBRATION.close:
        return True
    if listed and options.mode == Mode.HYBRID and judges == ("fts",):
        return None
    return False


def combined(strength: dict[str, float]) -> float:
    """Calibrated evidence of every list, combined as :func:`fusion.noisy_or` does (weights 1).
    One list's evidence is itself (``1 − (1 − 0.45)`` is 0.44999999999999996, under a bar of
    0.45 that the evidence reaches)."""
    values = list(strength.values())
    if len(values) == 1:
        return values[0]
    missing = 1.0
    for value in values:
        missing *= 1.0 - value
    return 1.0 - missing


def ranked(candidates: Candidates, options: SearchOptions) -> list[str]:
    """The note paths :func:`fuse` ranks, best first and cut to the limit, without building
    hits or snippets: what a sweep scores (:mod:`explorer.evaluate.sweep`)."""
    options = options.validate().in_effect()
    depth = min(options.depth, candidates.depth)
    if candidates.listing:
        return [path for path, _, _ in candidates.lexical[:depth]][: options.limit]
    fused, _, _ = _ranked(
        candidates, options, candidates.lexical[:depth], candidates.vector[:depth]
    )
    return [f.id for f in fused[: options.limit]]


def _ranked(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
) -> tuple[list[fusion.Fused], dict[str, list[str]], dict[str, list[tuple[str, float]]] | None]:
    """The fused list, stale notes after all others (keeping their order within each tier), the
    id lists it was fused from, by list name, and their calibrated evidence if the fusion used
    it (``None``: it did not)."""
    fused, scored, weighed = _fuse_lists(candidates, options, lexical, vector)
    fused = [f for f in fused if f.score > 0]  # a note worth nothing is not a hit
    fused.sort(key=lambda f: is_demoted(candidates.notes, f.id))
    return fused, {name: [p for p, _ in items] for name, items in scored.items()}, weighed


def fuse_lists(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
) -> tuple[list[fusion.Fused], dict[str, list[tuple[str, float]]]]:
    """The lists the mode uses, fused by the options' method, before stale demotion; and those
    lists as ``(id, score)`` by list name (what :mod:`explorer.search.explain` reasons over)."""
    fused, scored, _ = _fuse_lists(candidates, options, lexical, vector)
    return fused, scored


def _fuse_lists(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
) -> tuple[
    list[fusion.Fused],
    dict[str, list[tuple[str, float]]],
    dict[str, list[tuple[str, float]]] | None,
]:
    """:func:`fuse_lists`, and the evidence lists the calibrated fusion fused (else ``None``)."""
    weighed = None
    scored = scored_lists(candidates, options, lexical, vector)
    lists = {name: [p for p, _ in items] for name, items in scored.items()}
    if options.fusion == Fusion.CALIBRATED:
        weighed = evidence_lists(candidates, scored)
        if "vector" in weighed:  # a note that does not stand above the bulk was not found
            scored["vector"] = scored["vector"][: len(weighed["vector"])]
            lists["vector"] = lists["vector"][: len(weighed["vector"])]
        fused = fusion.noisy_or(weighed, options.weights)
        if len(lists) == 1:
            (only,) = lists  # one list fused is that list, in its own order (as convex)
            fused.sort(key=lambda f: f.ranks[only] or 0)
    elif options.fusion == Fusion.CONVEX:
        bounds, tiers = CONVEX_LOWER_BOUNDS, convex_tiers(candidates)
        fused = fusion.convex(scored, options.weights, lower_bounds=bounds, tiers=tiers)
        if len(lists) == 1:
            # One list fused is that list: fts mode (and hybrid without vectors) keep the
            # lexical list's order (phrase pass first), whatever the bm25 scores say.
            (only,) = lists
            fused.sort(key=lambda f: f.ranks[only] or 0)
    else:
        fused = fusion.rrf(lists, options.k, options.weights)
    return fused, scored, weighed


def scored_lists(
    candidates: Candidates,
    options: SearchOptions,
    lexical: list[tuple[str, float, str]],
    vector: list[VectorCandidate],
) -> dict[str, list[tuple[str, float]]]:
    """The lists the mode uses, as ``(id, raw score)`` by list name."""
    scored: dict[str, list[tuple[str, float]]] = {}
    if options.mode in (Mode.FTS, Mode.HYBRID):
        scored["fts"] = [(p, s) for p, s, _ in lexical]
    if options.mode in (Mode.SEMANTIC, Mode.HYBRID) and candidates.semantic.available:
        scored["vector"] = [(v.path, v.score) for v in vector]
    return scored


def evidence_lists(
    candidates: Candidates, scored: dict[str, list[tuple[str, float]]]
) -> dict[str, list[tuple[str, float]]]:
    """The lists as calibrated evidence (:mod:`explorer.search.evidence`), by list name."""
    out: dict[str, list[tuple[str, float]]] = {}
    if "fts" in scored:
        out["fts"] = evidence.lexical_list_evidence(
            scored["fts"], candidates.lexical_tiers, lexical_coverage(candidates)
        )
    if "vector" in scored:
        unread = model_reads(candidates.query, candidates.semantic.model) is False
        cal = evidence.calibration_for(candidates.semantic.model)
        found = evidence.vector_list_evidence(
            scored["vector"], candidates.spread, cal, unread=unread
        )
        while found and found[-1][1] <= 0:  # best first: the notes worth nothing are a tail
            found.pop()
        out["vector"] = found
    return out


def lexical_coverage(candidates: Candidates) -> Mapping[str, float]:
    """The coverage the lexical evidence reads for each any-word-pass note: its content words
    weighed by their rarity in the vault (:func:`explorer.search.evidence.weighted_coverage`),
    or the plain share where the candidates carry no counts."""
    held = getattr(candidates, "lexical_held", None)
    term_notes = getattr(candidates, "term_notes", ())
    if not held or not term_notes:
        return candidates.lexical_coverage
    return evidence.weighted_coverage(held, term_notes, candidates.note_count)


def convex_tiers(candidates: Candidates) -> dict[str, dict[str, int]]:
    """The tiers the convex fusion normalises the lexical list by: its passes, so that a note
    the phrase pass found outscores, lexically, every note only the any-word pass found (bm25
    compares notes within one pass, not across passes)."""
    return {"fts": candidates.lexical_tiers}


def _hit(
    candidates: Candidates,
    path: str,
    snippet: str,
    score: float,
    contributions: dict[str, float],
    fts_rank: int | None,
    vector_rank: int | None,
    fts_score: float | None,
    vector_score: float | None,
    source: str | None,
    chunk: tuple[int, int] | None,
    strength: dict[str, float] | None = None,
    vec: VectorCandidate | None = None,
    weighted: Mapping[str, float] | None = None,
) -> Hit:
    info = candidates.notes.get(path)
    tier = candidates.lexical_tiers.get(path) if fts_rank is not None else None
    spread = candidates.spread
    return Hit(
        path=path,
        title=info.title if info else path,
        snippet=snippet,
        fused_score=score,
        contributions=contributions,
        fts_rank=fts_rank,
        vector_rank=vector_rank,
        fts_score=fts_score,
        vector_score=vector_score,
        source=source,
        best_chunk=chunk,
        status=info.status if info else None,
        tags=info.tags if info else (),
        fts_pass=PASSES[tier] if tier is not None else None,
        evidence=strength or {},
        vector_sigmas=(
            spread.sigmas(vector_score) if spread is not None and vector_score is not None else None
        ),
        coverage=candidates.lexical_coverage.get(path, 1.0) if tier is not None else None,
        weighted_coverage=(weighted or {}).get(path, 1.0) if tier is not None else None,
        best_chunk_seq=vec.seq if vec is not None else None,
        runner_up_chunk=vec.runner_up if vec is not None else None,
    )


def _marked_words(query: Query) -> tuple[str, ...]:
    """The words :func:`_plain_snippet` marks: those of three letters or more of the query's
    content terms."""
    return tuple(w for t in query.content_terms for w in re.findall(r"\w{3,}", t.text))


def _plain_snippet(text: str, words: tuple[str, ...], width: int = 200) -> str:
    """A snippet for a note the lexical list did not find: its best chunk, words marked."""
    from explorer.index.text import unspace_cjk

    text = " ".join(unspace_cjk(text).split())
    if len(text) > width:
        text = text[:width].rsplit(" ", 1)[0] + " …"
    escaped = html.escape(text, quote=False)
    marker = _marker(words)
    return escaped if marker is None else marker.sub(r"<mark>\1</mark>", escaped)


@functools.lru_cache(maxsize=64)
def _marker(words: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern marking any of ``words`` where it stands as a whole word (longest first)."""
    if not words:
        return None
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    alternatives = "|".join(re.escape(html.escape(w, quote=False)) for w in ordered)
    return re.compile(rf"(?<![\w>])({alternatives})(?![\w<])", re.IGNORECASE)


__all__ = [
    "FUSION_METHODS",
    "MODES",
    "Candidates",
    "Hit",
    "QueryError",
    "SearchOptions",
    "SearchResponse",
    "Searcher",
    "SemanticStatus",
    "SemanticUnavailable",
    "fuse",
    "replace",
]
