"""The hybrid search orchestrator: both lists, fusion, stale demotion, degradation.

One :class:`Searcher` per open index.  :meth:`Searcher.candidates` runs the lists once;
:func:`explorer.search.fusion.fusion.fuse` turns cached candidates into ranked hits for any fusion
settings, so the window can re-fuse on a weight change without a new query; what both return is
in :mod:`explorer.search.fusion.results`.  Degradation is absolute: if the vector list
cannot be had (no model, load failure, embed error, a query embedding slower than the timeout),
``hybrid`` returns exactly the lexical result and says why.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import functools
import time
from collections.abc import Callable

from explorer.embed.base import Embedder, EmbedderUnavailable, embed_queries
from explorer.embed.provider import EmbedderProvider
from explorer.index.counts import Counted
from explorer.index.db import IndexDB
from explorer.index.status import vault_languages
from explorer.index.vectors import NoteMask, VectorHit, VectorIndex
from explorer.jobs import NORMAL, PriorityExecutor
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.order import sort_hits
from explorer.search.fusion.results import (
    Candidates,
    NoteInfo,
    SearchResponse,
    SemanticStatus,
    SemanticUnavailable,
    VectorCandidate,
)
from explorer.search.lists.chunk_scores import ChunkScore
from explorer.search.lists.lexical import lexical_list, snippets_of
from explorer.search.lists.snippet import body_start, marked_words, plain_snippet
from explorer.search.lists.titles import title_matches
from explorer.search.query.compounds import split_compounds
from explorer.search.query.options import Mode, SearchOptions
from explorer.search.query.query import parse_query
from explorer.search.query.restriction import Restriction, restriction, where_passing
from explorer.stages import stage

EMBED_TIMEOUT_S = 3.0


#: What the vector list's ranking gives: the best chunks and the model's name, or why none.
_Ranked = SemanticStatus | tuple[list[VectorHit], str]


#: Where a hybrid search ranks its vector list while its lexical list is made (per process;
#: a thread waits mostly on the model or numpy, so two are plenty).
_BESIDE = PriorityExecutor("vector-list", workers=2)

#: The process's query embeddings, on one thread: the model embeds one query at a time, and a
#: query's timeout starts when it is asked for.  The window's own query is
#: :data:`~explorer.jobs.URGENT`: it goes ahead of whatever questions a panel queued
#: (:data:`~explorer.jobs.NORMAL`), so it waits at most for the one embedding under way.
QUERY_EMBEDDINGS = PriorityExecutor("embed-query")


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
        """``priority``: where the query's embedding queues (:data:`QUERY_EMBEDDINGS`: the
        window's own query goes first)."""
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
        with stage("fusion"):
            response = fuse(candidates, options)
        with stage("snippets"):
            self._snip_shown(candidates, response)
        with stage("sort"):
            response.hits = sort_hits(self.db.conn, response.hits, options.sort)
        return response

    def candidates(self, raw: str, options: SearchOptions, *, snippets: bool = True) -> Candidates:
        """Both lists of ``raw``, before fusion.  Every lexical note gets its snippet, so that
        any fusion of them can be shown; ``snippets=False`` leaves them to be made for the hits
        shown (:attr:`Candidates.unsnipped`)."""
        options.validate()
        with stage("parse"):
            query = parse_query(raw, vault_languages(self.db.conn))
            counted = self.db.term_counts.current(self.db.conn)
            split_compounds(query, counted)
        result = Candidates(query=query, mode=options.mode, depth=options.depth)
        started = time.perf_counter()
        if query.is_listing:
            result.listing = True
            result.semantic = SemanticStatus(False, "no words to search", self.provider.name)
            with stage("listing"):
                self._listing(result, options)
            return result
        with stage("filters"):
            restricted = restriction(self.db.conn, query)
        with stage("vector hand-off"):
            early = (
                self._begin_vector(result, options, restricted)
                if options.mode == Mode.HYBRID
                else None
            )
        if options.mode != Mode.SEMANTIC:
            with stage("lexical: other"):  # the passes are stages of their own
                self._lexical_list(result, options, counted, restricted, snippets=snippets)
        result.timings["lexical_ms"] = (time.perf_counter() - started) * 1000
        if options.mode != Mode.FTS:
            result.semantic = self._vector_list(result, options, early, restricted)
            if options.mode == Mode.SEMANTIC and not result.semantic.available:
                raise SemanticUnavailable(
                    f"semantic search is unavailable: {result.semantic.reason}"
                )
        else:
            result.semantic = SemanticStatus(False, "lexical mode", self.provider.name)
        with stage("note rows"):
            self._load_notes(result, [p for p, _, _ in result.lexical])
        if options.mode != Mode.SEMANTIC:
            with stage("titles"):
                self._titles(result, restricted)
        return result

    def _titles(self, result: Candidates, restricted: Restriction | None) -> None:
        """The notes whose title or alias matches the query (:mod:`explorer.search.lists.titles`),
        looked for among every note and, for a typo, among those the lists found."""
        seen = {path: info.title for path, info in result.notes.items()}
        result.titles = title_matches(self.db.conn, result.query, restricted, seen)
        self._load_notes(result, list(result.titles))

    def _snip_shown(self, candidates: Candidates, response: SearchResponse) -> None:
        """Make the snippets of the lexical hits shown that were left without one."""
        response.hits = response.snipped_hits(
            snippets_of(self.db.conn, candidates.unsnipped_of(response))
        )

    def _vector_list(
        self,
        result: Candidates,
        options: SearchOptions,
        early: concurrent.futures.Future[_Ranked] | None = None,
        restricted: Restriction | None = None,
    ) -> SemanticStatus:
        """The vector list of ``result``'s query: ranked by ``early`` (begun beside the lexical
        list, :meth:`_begin_vector`) when given, else here."""
        if early is not None:
            with stage("vector list (waited for)"):
                ranked = early.result()
        else:
            name = self.provider.name
            try:
                embedder = self.provider.get(None if self.wait_for_model else 0)
            except EmbedderUnavailable as exc:
                return SemanticStatus(False, str(exc), name)
            ranked = self._ranking(embedder, result, options, restricted)()
        if isinstance(ranked, SemanticStatus):
            return ranked
        hits, name = ranked
        started = time.perf_counter()
        with stage("vector rows"):
            self._vector_rows(result, options, hits)
        result.timings["vector_ms"] = (
            result.timings.get("vector_ms", 0.0) + (time.perf_counter() - started) * 1000
        )
        with stage("note rows"):
            self._load_notes(result, [v.path for v in result.vector])
        return SemanticStatus(True, None, name)

    def _lexical_list(
        self,
        result: Candidates,
        options: SearchOptions,
        counted: Counted,
        restricted: Restriction | None,
        *,
        snippets: bool,
    ) -> None:
        """``result``'s lexical list (:func:`lexical_list`) and what fusion reads of it."""
        query = result.query
        found = lexical_list(
            self.db.conn,
            query,
            options.depth,
            snippets=snippets,
            counted=counted,
            restricted=restricted,
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

    def _vector_rows(
        self, result: Candidates, options: SearchOptions, hits: list[VectorHit]
    ) -> None:
        """``result``'s vector list from the ranked ``hits``: those above the floor, with
        their notes' paths and their best and second-best chunks' texts and numbers."""
        hits = options.above_floor(hits)
        paths = self._paths([h.note_id for h in hits])
        keys = [(h.note_id, h.chunk_start) for h in hits]
        keys += [(h.note_id, h.runner_up[0]) for h in hits if h.runner_up is not None]
        chunk_texts, seqs = self._chunk_texts(keys)
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

    def _begin_vector(
        self, result: Candidates, options: SearchOptions, restricted: Restriction | None
    ) -> concurrent.futures.Future[_Ranked] | None:
        """Start the query's embedding and vector top-k on another thread, to run while this
        one makes the lexical list (both wait on C code that lets go of the GIL: the model,
        numpy, SQLite).  Only the matrix is read there; every statement stays on this thread.
        ``None`` (the vector list is then made after the lexical one) while the model is not
        loaded: a search never waits for it before its words are searched."""
        embedder = self.provider.peek()
        if embedder is None:
            return None
        ranking = self._ranking(embedder, result, options, restricted)
        # In a copy of this thread's context: its stages are recorded with this search's.
        return _BESIDE.submit(
            functools.partial(contextvars.copy_context().run, ranking), priority=self.priority
        )

    def _ranking(
        self,
        embedder: Embedder,
        result: Candidates,
        options: SearchOptions,
        restricted: Restriction | None,
    ) -> Callable[[], _Ranked]:
        """:meth:`_rank` with what it needs read from the index here and now (the matrix
        brought up to date, the ids of the notes the filters pass or remove, read once per
        filter and index generation: :meth:`VectorIndex.filter`): the call itself reads no
        table, and works out which of the matrix's notes pass only the first time."""
        with stage("vector refresh"):
            vectors = self._vector_index(embedder.name)
        allowed: NoteMask | None = None
        if restricted is not None:
            conn = self.db.conn
            with stage("filters"):
                allowed = vectors.filter(restricted, lambda: restricted.note_ids(conn).mask)
        result.allowed = allowed
        return functools.partial(self._rank, embedder, vectors, allowed, result, options)

    def _rank(
        self,
        embedder: Embedder,
        vectors: VectorIndex,
        allowed: NoteMask | None,
        result: Candidates,
        options: SearchOptions,
    ) -> _Ranked:
        """Embed the query and rank the matrix: the best chunk hits and the model's name, or
        why there is no vector list.  Reads no table (it may run beside the lexical list)."""
        name = embedder.name
        started = time.perf_counter()
        future = QUERY_EMBEDDINGS.submit(
            embed_queries, embedder, [result.query.free_text], priority=self.priority
        )
        try:
            with stage("query embedding"):
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
        with stage("vector top-k"):
            hits, result.spread = vectors.search(
                query_vec[0], options.depth, allowed=allowed, min_sim=options.min_sim
            )
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
        """The most recently modified notes that pass the filters, as many as the limit, and
        how many pass."""
        where, params = where_passing(restriction(self.db.conn, result.query))
        rows = self.db.conn.execute(
            f"SELECT n.id, n.path FROM notes n WHERE {where} ORDER BY n.mtime_ns DESC, n.path "
            "LIMIT ?",
            (*params, options.limit),
        ).fetchall()
        if len(rows) < options.limit:
            result.matched = len(rows)
        else:
            sql = f"SELECT count(*) FROM notes n WHERE {where}"
            result.matched = int(self.db.conn.execute(sql, params).fetchone()[0])
        marked = marked_words(result.query)
        for note_id, path in rows:
            body = body_start(self.db.conn, int(note_id), 240)
            result.lexical.append((str(path), 0.0, plain_snippet(body, marked)))
        self._load_notes(result, [p for p, _, _ in result.lexical])
