"""A BEIR corpus indexed through exactly the path a vault takes, and the index of a vault that is
evaluated.

Every document is written as a markdown note ``<_id>.md`` (``# title``, a blank line, the text)
into a folder under the data directory, which is then synced, chunked and embedded like any
vault.  The notes and the index are cached (``<data dir>/evals/``): the folder is keyed by the
corpus file, the database by everything that shapes an index (chunking budget, FTS5 tokenizer,
schema version and model), so a second run costs only the queries, and a change to any of those
builds a fresh index.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from explorer.embed.precision import precision_of
from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.datasets import BeirDataset, DatasetError, Doc
from explorer.evaluate.settings import (
    EvalError,
    Log,
    Progress,
    no_progress,
    quiet,
)
from explorer.index import migrations
from explorer.index.db import IndexDB, data_dir
from explorer.index.sync import SyncReport
from explorer.index.update import bring_up_to_date
from explorer.vault import chunk

EVALS_DIR = "evals"
#: Layout of the notes written for a corpus; bump it when :func:`note_text` changes.
NOTES_FORMAT = 1


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


def write_corpus_notes(dataset: BeirDataset, notes_dir: Path, names: Mapping[str, str]) -> int:
    """Write each document as a note (only the files whose bytes differ); returns how many."""
    notes_dir.mkdir(parents=True, exist_ok=True)
    written = 0
    for doc_id, doc in dataset.corpus.items():
        path = notes_dir / names[doc_id]
        data = note_text(doc).encode("utf-8")
        try:
            unchanged = path.read_bytes() == data
        except FileNotFoundError:
            unchanged = False  # not written yet
        if unchanged:
            continue
        path.write_bytes(data)
        written += 1
    return written


def open_beir_index(
    dataset: BeirDataset,
    folder: Path,
    data: str | None,
    provider: EmbedderProvider | None,
    progress: Progress = no_progress,
    log: Log = quiet,
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
    progress: Progress = no_progress,
    log: Log = quiet,
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
    def synced(report: SyncReport) -> None:
        if _changes(report):
            log(f"indexed {db.vault}: {report.summary()}")

    def embedding(done: int, total: int, note: str) -> None:
        if done == 0 and total and provider is not None:
            log(f"embedding {total:,} chunks with {provider.name} (cached for the next run)")
        progress("embed", done, total, note)

    update = bring_up_to_date(db, provider, progress, synced=synced, embed_progress=embedding)
    if update.unavailable is not None:
        raise EvalError(
            f"semantic search is unavailable ({update.unavailable}); evaluate lexical search "
            "only with --modes fts"
        ) from update.unavailable
    done = update.embedded
    embedded = done.chunks if done is not None else 0
    if done is not None and done.chunks:
        precision = precision_of(provider.peek() if provider is not None else None)
        label = f", {precision.name}: {precision.reason}" if precision else ""
        log(f"embedded {done.chunks:,} chunks in {done.seconds:.0f}s ({done.rate:.1f}/s{label})")
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
    return IndexInfo(str(db.path), notes, chunks, vectors, 0, _changes(update.synced), embedded)


def _changes(report: SyncReport) -> int:
    return len(report.added) + len(report.changed) + len(report.deleted)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:40] or "dataset"
