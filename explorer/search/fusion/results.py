"""What a search answers: its hits and the candidates they were ranked from.

The result types every layer above the search reads (the command line, MCP, the window): a
:class:`SearchResponse` of :class:`Hit` rows, each with its ranks, scores, calibrated evidence and
best chunk, and the :class:`Candidates` a search fetched, which
:func:`explorer.search.fusion.fusion.fuse` re-fuses without searching again.  Data only: no I/O.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.embed.base import Matrix
from explorer.embed.provider import model_languages
from explorer.errors import UserError
from explorer.index.vectors import CosineSpread, NoteMask
from explorer.search.lists.chunk_scores import ChunkScore
from explorer.search.lists.titles import TitleMatch
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import Query, parse_query

#: The ``status`` (frontmatter, lower case) of a note that goes after every other hit.
DEMOTED_STATUS = "stale"


class SemanticUnavailable(UserError, RuntimeError):
    """``semantic`` mode was asked for and there is no vector list; the message says why."""


@dataclass(frozen=True, slots=True)
class SemanticStatus:
    available: bool
    reason: str | None
    model: str | None


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
    #: The lexical pass that found each path (0 the first; see
    #: :mod:`explorer.search.lists.lexical`).
    lexical_tiers: dict[str, int] = field(default_factory=dict)
    #: The share of the query's content words each any-word-pass note holds.
    lexical_coverage: dict[str, float] = field(default_factory=dict)
    #: The lexical notes whose snippet is still to be made (``""`` in :attr:`lexical`): path to
    #: (note id, what the snippet marks); those shown get theirs (:meth:`unsnipped_of`).
    unsnipped: dict[str, tuple[int, str]] = field(default_factory=dict)
    vector: list[VectorCandidate] = field(default_factory=list)
    #: How the query's cosines spread over every note (``None``: no vector list was made).
    spread: CosineSpread | None = None
    notes: dict[str, NoteInfo] = field(default_factory=dict)
    semantic: SemanticStatus = SemanticStatus(False, "not requested", None)
    listing: bool = False
    #: A listing's count of the notes that pass its filters (``None``: not a listing).
    matched: int | None = None
    timings: dict[str, float] = field(default_factory=dict)
    #: The query's vector (``None``: no vector list was made), kept so that a note's every
    #: chunk can be scored later without the model (:mod:`explorer.search.lists.chunk_scores`).
    query_vector: Matrix | None = field(default=None, compare=False)
    #: The indexes of the query's content parts each any-word-pass note holds.
    lexical_held: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: How many notes hold each of the query's content parts, and the notes they are among
    #: (what the coverage weighs words by:
    #: :func:`explorer.search.fusion.evidence.weighted_coverage`).
    term_notes: tuple[int, ...] = ()
    note_count: int = 0
    #: When the lists were made (seconds since 1970): what a note's age, and so its recency,
    #: is counted from, however often they are fused again.
    now: float = field(default_factory=time.time, compare=False)
    #: The notes whose title or alias matches the query's words, by path
    #: (:mod:`explorer.search.lists.titles`): evidence of its own, the ``title`` list.
    titles: dict[str, TitleMatch] = field(default_factory=dict)
    #: Which notes the query's filters pass, as the vector list was restricted to them
    #: (``None``: no filter, or no vector list was ranked): what ``explain`` ranks by too.
    allowed: NoteMask | None = field(default=None, compare=False)

    def with_snippets(self, snippets: dict[str, str]) -> Candidates:
        """These lists with the snippets made for these lexical notes (path to snippet)."""
        lexical = [(path, score, snippets.get(path, text)) for path, score, text in self.lexical]
        waiting = {path: note for path, note in self.unsnipped.items() if path not in snippets}
        return replace(self, lexical=lexical, unsnipped=waiting)

    def unsnipped_of(self, *responses: SearchResponse | None) -> dict[str, tuple[int, str]]:
        """Which hits get a snippet made, for every path that shows hits (a search, the
        window's query on screen and its baseline): the lexical hits of ``responses`` whose
        snippet is still to be made, path to (note id, what the snippet marks)."""
        if not self.unsnipped:
            return {}
        return {
            hit.path: self.unsnipped[hit.path]
            for response in responses
            if response is not None
            for hit in response.hits
            if hit.fts_rank is not None and hit.path in self.unsnipped
        }


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
    #: Calibrated evidence per list (0..1; :mod:`explorer.search.fusion.evidence`), whatever the
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
    #: Its place in the fused (relevance) ranking, 1-based: what a reader of hits put in
    #: another order (``--sort``) still sees.
    fused_rank: int | None = None
    #: How recent it is, ½ every half-life since it was modified (0..1), when the recency
    #: prior is on (its contribution is ``contributions["recency"]``); else ``None``.
    recency: float | None = None
    #: Its title or an alias matching the query (:mod:`explorer.search.lists.titles`), else
    #: ``None``.
    title_match: TitleMatch | None = None

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
            "fusedRank": self.fused_rank,
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
            "titleMatch": self.title_match.closeness if self.title_match else None,
            "titleMatchName": self.title_match.name if self.title_match else None,
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
    #: One line for each part of the query not read as written (:attr:`Query.notes`).
    notes: tuple[str, ...] = ()
    #: A listing's count of the notes that pass its filters, of which :attr:`hits` are the
    #: most recently modified (``None``: not a listing).
    matched: int | None = None

    def snipped_hits(self, snippets: dict[str, str]) -> list[Hit]:
        """:attr:`hits` with the snippets made for these lexical notes (path to snippet)."""
        return [
            replace(hit, snippet=snippets[hit.path])
            if hit.fts_rank is not None and hit.path in snippets
            else hit
            for hit in self.hits
        ]

    def listing_text(self) -> str:
        """A listing's first line: how many notes are shown, of how many that pass."""
        shown = len(self.hits)
        filtered = parse_query(self.query).has_filters
        if self.matched is None or self.matched == shown:
            one = shown == 1
            which = f" that pass{'es' if one else ''} the filters" if filtered else ""
            return f"{shown} most recently modified note{'' if one else 's'}{which}"
        which = " that pass the filters" if filtered else ""
        return f"{shown} of {self.matched} notes{which}, the most recently modified"

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
                **(
                    {"recency": {"weight": o.recency, "halfLifeDays": o.half_life}}
                    if o.recency
                    else {}
                ),
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
            out["matched"] = self.matched
        if self.notes:
            out["notes"] = list(self.notes)
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
