"""The vector side of one note for one query, chunk by chunk: what the cosine was taken of.

The vector list scores a note by its best chunk's cosine.  :func:`note_chunks` shows the rest:
every chunk of the note (where the note was cut), the query's cosine to each, each chunk's rank
among every chunk of the vault for the query, which one matched best and which came second, and
the exact text that was embedded for each, with what was left out of the note's own characters:

- the frontmatter, before the body, which no chunk covers;
- links written as the words a reader sees (``[[Note|shown]]`` → ``shown``), image embeds
  dropped;
- the note's title, added in front of a chunk that does not start with it;
- the end of a chunk longer than the model reads (all-MiniLM-L6-v2 reads 256 word pieces), when
  the embedder's tokenizer is known (:func:`word_pieces_of`).

Code blocks are *not* left out: a fenced block is embedded as it is written.

The cosines are the vector list's own: the note's rows of the loaded matrix
(:class:`~explorer.index.vectors.VectorIndex`) times the query's vector, which the search keeps
(:attr:`explorer.search.fusion.results.Candidates.query_vector`).  No model call, no Qt.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from explorer.index.vectors import VectorIndex


@dataclass(frozen=True, slots=True)
class ChunkScore:
    """One chunk of a note and the query's cosine to it (``seq``: its number in the note)."""

    seq: int
    start: int
    end: int
    cosine: float

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "seq": self.seq,
            "cosine": round(self.cosine, 6),
        }


class WordPieces(Protocol):
    """How many word pieces a text is to the model, and how much of it the model reads."""

    @property
    def limit(self) -> int:
        """The most word pieces the model reads of one text (special tokens included)."""
        ...

    def read(self, text: str) -> tuple[int, int]:
        """``(word pieces of text, characters of text the model reads)``."""
        ...


class _TokenizerPieces:
    """:class:`WordPieces` over a Hugging Face fast tokenizer (offsets say where it stopped)."""

    def __init__(self, tokenizer: Any, limit: int) -> None:
        self._tokenizer = tokenizer
        self.limit = limit

    def read(self, text: str) -> tuple[int, int]:
        whole = self._tokenizer(text, truncation=False, add_special_tokens=True)["input_ids"]
        if len(whole) <= self.limit:
            return len(whole), len(text)
        cut = self._tokenizer(
            text,
            truncation=True,
            max_length=self.limit,
            return_offsets_mapping=True,
        )["offset_mapping"]
        ends = [end for start, end in cut if end > start]
        return len(whole), ends[-1] if ends else 0


def word_pieces_of(embedder: object) -> WordPieces | None:
    """The word pieces of ``embedder``'s model, when it says what its tokenizer and input limit
    are (the sentence-transformers backend does); ``None``: whether a chunk is cut by the model
    is not known (the fake embedder, a backend without a tokenizer)."""
    tokenizer = getattr(embedder, "tokenizer", None) or getattr(embedder, "_tokenizer", None)
    limit = getattr(embedder, "max_tokens", None) or getattr(embedder, "_max_tokens", None)
    if tokenizer is None or not isinstance(limit, int) or limit <= 0:
        return None
    if not getattr(tokenizer, "is_fast", False):
        return None  # offsets need a fast tokenizer
    return _TokenizerPieces(tokenizer, limit)


@dataclass(frozen=True, slots=True)
class ChunkView:
    """One chunk as the vector list saw it."""

    seq: int
    start: int  # its span of the note's text
    end: int
    #: The query's cosine to it (``None``: the chunk has no vector of the model yet).
    cosine: float | None
    #: Its rank among every chunk vector of the vault for this query (1 = the best chunk).
    rank: int | None
    #: Exactly what was embedded.
    embedded: str
    #: Where the chunk stands (its note's title, the headings above it), the line added in
    #: front of the chunk's text (``None``: nothing added).
    title_added: str | None = None
    #: Word pieces of :attr:`embedded`, and how many the model reads (``None``: not known).
    pieces: int | None = None
    limit: int | None = None
    #: Characters of :attr:`embedded` the model read (the rest was cut by the model).
    read: int | None = None
    #: What of the note's own characters in the span is not in :attr:`embedded`, one sentence
    #: each (empty when the source was not given or nothing was left out).
    left_out: tuple[str, ...] = ()

    @property
    def cut_by_model(self) -> bool:
        return self.read is not None and self.read < len(self.embedded)

    def score(self) -> ChunkScore | None:
        if self.cosine is None:
            return None
        return ChunkScore(self.seq, self.start, self.end, self.cosine)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "start": self.start,
            "end": self.end,
            "cosine": None if self.cosine is None else round(self.cosine, 6),
            "rank": self.rank,
            "embedded": self.embedded,
            "titleAdded": self.title_added,
            "wordPieces": self.pieces,
            "modelLimit": self.limit,
            "cutByModel": self.cut_by_model if self.read is not None else None,
            "readChars": self.read,
            "leftOut": list(self.left_out),
        }


@dataclass(frozen=True, slots=True)
class NoteChunks:
    """Every chunk of one note for one query, in the note's order."""

    path: str
    chunks: tuple[ChunkView, ...]
    #: Where the body starts (the frontmatter before it is never embedded).
    body_start: int
    #: The length of the note's text as indexed (the end of its last chunk).
    length: int
    #: The note's rank in the vector list over the whole vault (by its best chunk), of ``notes``.
    note_rank: int | None
    notes: int
    #: Chunk vectors of the vault the ranks are counted among.
    vault_chunks: int
    #: The source given differs from what was indexed (what was left out is then not said).
    changed: bool = False

    def ranked(self) -> list[ChunkView]:
        """The chunks with a cosine, best first (ties: the earlier chunk)."""
        scored = [c for c in self.chunks if c.cosine is not None]
        return sorted(scored, key=lambda c: (-(c.cosine or 0.0), c.seq))

    @property
    def best(self) -> ChunkView | None:
        ranked = self.ranked()
        return ranked[0] if ranked else None

    @property
    def runner_up(self) -> ChunkView | None:
        ranked = self.ranked()
        return ranked[1] if len(ranked) > 1 else None

    def to_json(self) -> dict[str, Any]:
        best, second = self.best, self.runner_up
        return {
            "path": self.path,
            "bodyStart": self.body_start,
            "length": self.length,
            "noteRank": self.note_rank,
            "notes": self.notes,
            "vaultChunks": self.vault_chunks,
            "changed": self.changed,
            "bestChunk": best.seq if best is not None else None,
            "runnerUpChunk": second.seq if second is not None else None,
            "chunks": [c.to_json() for c in self.chunks],
        }


#: ``(text, body_start)`` of a note's source, or ``None`` when it cannot be read.
Source = tuple[str, int]


def note_chunks(
    conn: sqlite3.Connection,
    vectors: VectorIndex,
    query_vector: npt.ArrayLike,
    path: str,
    *,
    source: Source | None = None,
    pieces: WordPieces | None = None,
) -> NoteChunks | None:
    """The chunks of the note ``path`` for the query whose vector is ``query_vector`` (the
    vectors of ``vectors``' model, brought up to date by the caller); ``None`` when the index
    has no such note.  ``source`` (the note's text and where its body starts, as parsed now)
    lets each chunk say what of its span was left out; ``pieces`` whether the model cut it."""
    row = conn.execute(
        "SELECT id, title, body_start, hash FROM notes WHERE path = ?", (path,)
    ).fetchone()
    if row is None:
        return None
    note_id, title, body_start = int(row[0]), str(row[1]), int(row[2])
    rows = conn.execute(
        "SELECT seq, start, end, text FROM chunks WHERE note_id = ? ORDER BY seq", (note_id,)
    ).fetchall()
    ranks = _Ranks(vectors, query_vector)
    cosines = ranks.of_note(note_id)
    text = source[0] if source is not None else None
    changed = source is not None and (
        source[1] != body_start or (bool(rows) and int(rows[-1][2]) != len(source[0]))
    )
    views = []
    for seq, start, end, embedded in rows:
        cosine = cosines.get(int(start))
        span = text[int(start) : int(end)] if text is not None and not changed else None
        added = _context_added(title, str(embedded), span)
        count = read = None
        if pieces is not None:
            count, read = pieces.read(str(embedded))
        left: tuple[str, ...] = ()
        if text is not None and not changed:
            shown = str(embedded)[len(added) + 1 :] if added is not None else str(embedded)
            left = _left_out(text, int(start), int(end), shown)
            if int(start) == body_start and body_start > 0:
                front = f"the frontmatter before it ({_count(body_start, 'character')}): no chunk"
                left = (f"{front} covers it, so it is never embedded", *left)
        views.append(
            ChunkView(
                seq=int(seq),
                start=int(start),
                end=int(end),
                cosine=cosine,
                rank=ranks.chunk_rank(cosine) if cosine is not None else None,
                embedded=str(embedded),
                title_added=added,
                pieces=count,
                limit=pieces.limit if pieces is not None else None,
                read=read,
                left_out=left,
            )
        )
    best = max((v.cosine for v in views if v.cosine is not None), default=None)
    return NoteChunks(
        path=path,
        chunks=tuple(views),
        body_start=body_start,
        length=int(rows[-1][2]) if rows else body_start,
        note_rank=ranks.note_rank(note_id, best) if best is not None else None,
        notes=ranks.notes,
        vault_chunks=ranks.chunks,
        changed=changed,
    )


def best_two(chunks: NoteChunks | None) -> tuple[ChunkScore | None, ChunkScore | None]:
    """The best chunk and the runner-up of ``chunks``, as scores."""
    if chunks is None:
        return None, None
    best, second = chunks.best, chunks.runner_up
    return (
        best.score() if best is not None else None,
        second.score() if second is not None else None,
    )


class _Ranks:
    """The query's cosine to every chunk vector of the vault, and ranks among them."""

    def __init__(self, vectors: VectorIndex, query_vector: npt.ArrayLike) -> None:
        self._vectors = vectors
        if vectors.size == 0:
            self._sims = np.zeros(0, dtype=np.float32)
            self._note_best = np.zeros(0, dtype=np.float32)
        else:
            q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
            self._sims = vectors.matrix @ q
            self._note_best = np.maximum.reduceat(self._sims, vectors.segment_starts)
        self._sorted = np.sort(self._sims)
        self.chunks = int(self._sims.shape[0])
        self.notes = int(self._note_best.shape[0])

    def of_note(self, note_id: int) -> dict[int, float]:
        """The cosine of each of the note's chunks that has a vector, by the chunk's start."""
        v = self._vectors
        at = int(np.searchsorted(v.segment_notes, note_id))
        if at >= len(v.segment_notes) or int(v.segment_notes[at]) != note_id:
            return {}
        lo, hi = int(v.segment_starts[at]), int(v.segment_ends[at])
        return dict(
            zip(v.spans[lo:hi, 0].tolist(), self._sims[lo:hi].astype(float).tolist(), strict=True)
        )

    def chunk_rank(self, cosine: float) -> int:
        """1 + the chunks of the vault with a higher cosine."""
        above = self.chunks - int(np.searchsorted(self._sorted, np.float32(cosine), side="right"))
        return above + 1

    def note_rank(self, note_id: int, best: float) -> int:
        """The note's place in the vector list over the whole vault: notes with a better best
        chunk, then those with the same one and a lower id (as the list breaks ties)."""
        mine = np.float32(best)
        higher = int(np.count_nonzero(self._note_best > mine))
        tied = self._vectors.segment_notes[self._note_best == mine]
        return higher + int(np.count_nonzero(tied < note_id)) + 1


def _context_added(title: str, embedded: str, span: str | None) -> str | None:
    """The line the index put in front of the chunk's text, saying where it stands (its
    note's title and the headings above it: :meth:`~explorer.vault.parse.ParsedNote.embed_text`),
    if it did: a first line the note's span does not start with (``span``, when known), else
    one that starts with the title."""
    line, newline, _ = embedded.partition("\n")
    if not newline or not line:
        return None
    if span is not None:
        return None if span.lstrip().startswith(line) else line
    return line if title and line.casefold().startswith(title.casefold()) else None


def _left_out(text: str, start: int, end: int, shown: str) -> tuple[str, ...]:
    """What of ``text[start:end]`` is not in ``shown`` (the chunk's embedded text without an
    added title), one sentence each."""
    from explorer.vault.links import find_links, links_within, shown_text

    out: list[str] = []
    span = text[start:end]
    links = links_within(find_links(text), start, end)
    images = [link for link in links if link.embed and link.is_attachment]
    rewritten = [link for link in links if not (link.embed and link.is_attachment)]
    if images:
        out.append(
            f"{_count(len(images), 'embedded file')} left out "
            f"({', '.join(text[i.start : i.end] for i in images[:3])}"
            f"{', …' if len(images) > 3 else ''})"
        )
    changed = [link for link in rewritten if text[link.start : link.end] != shown_text(link)]
    if changed:
        first = changed[0]
        out.append(
            f"{_count(len(changed), 'link')} embedded as the words a reader sees "
            f"(“{text[first.start : first.end]}” as “{shown_text(first)}”"
            f"{', …' if len(changed) > 1 else ''})"
        )
    if not out and span.strip() != shown:
        out.append("the embedded text differs from the note's characters in this span")
    return tuple(out)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
