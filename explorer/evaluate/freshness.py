"""Freshness: how soon a saved file is found, with the live index running as the window runs it.

On a private copy of the vault, a :class:`~explorer.live.LiveIndex` (watcher, batches, background
embedding) is started and allowed to catch up.  Then, one note at a time, a new note is saved —
an existing note's text plus a word no note has — and two clocks run from the moment the file is
closed: until a lexical search (``fts`` mode, on another connection, as ``search --no-sync`` or
the window reads) finds the new word, and until a semantic search for the note's opening text
returns the note.  Finally a burst of files lands at once (a ``git checkout``), and the clock runs
until every one of them is lexically searchable.

Nothing is printed; :func:`run_freshness` returns the figures (milliseconds unless named
otherwise) with the budgets of the issue and whether each was met.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.evaluate.stats import percentiles
from explorer.index.db import IndexDB, index_path
from explorer.live import LiveEvent, LiveIndex
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import DEMOTED_STATUS, SemanticUnavailable
from explorer.search.query.options import Mode, SearchOptions
from explorer.vault.frontmatter import read_frontmatter
from explorer.vault.parse import note_status

#: The issue's budgets, in seconds.
BUDGETS = {
    "lexicalMedianS": 0.5,
    "lexicalP95S": 1.0,
    "vectorMedianS": 3.0,
    "burstLexicalS": 10.0,
}
PROBE_DIR = "freshness-probes"
BURST_DIR = "freshness-burst"
#: How long one probe may take to show up before it counts as a miss.
PROBE_TIMEOUT = 30.0
POLL = 0.01
#: Queries longer than this are refused (the spec's limit).
MAX_QUERY_CHARS = 1000


def run_freshness(
    vault: Path,
    data_dir: str | os.PathLike[str] | None,
    samples: int,
    provider: EmbedderProvider,
    *,
    burst: int = 1000,
    startup_timeout: float = 3600.0,
    start_from: Path | None = None,
) -> dict[str, Any]:
    """Measure freshness on a copy of ``vault`` (the vault itself is never written).

    The copy and its index live in a scratch folder under ``data_dir`` (or the system's temporary
    folder), removed at the end.  The start-up (indexing and embedding the copy) is waited for
    up to ``startup_timeout`` seconds and reported, not counted in the freshness figures.
    ``start_from`` is an index of ``vault`` (checkpointed) the copy starts with, so that a large
    vault is not indexed and embedded again (the bench hands in the one it measured)."""
    if samples < 1 or burst < 1:
        raise ValueError("samples and burst must be at least 1")
    with _scratch(data_dir) as scratch:
        copy = scratch / "vault"
        shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".*"))
        texts, picked = _templates(copy, samples)
        data = str(scratch / "data")
        if start_from is not None:
            target = index_path(copy, data)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(start_from, target)
        # Measured on battery too: the embedding does not hold for it (the window's would).
        live = LiveIndex(copy, data, provider, battery=lambda: None)
        batches: list[LiveEvent] = []
        live.subscribe(lambda e: batches.append(e) if e.kind == "sync" else None)
        started = time.perf_counter()
        live.start()
        try:
            caught_up = live.wait_idle(startup_timeout)
            result: dict[str, Any] = {
                "vault": str(vault),
                "notes": len(texts),
                "startupS": round(time.perf_counter() - started, 3),
                "startupCaughtUp": caught_up,
                "model": provider.name,
            }
            reader = IndexDB.open_existing(copy, data)
            try:
                searcher = Searcher(reader, provider)
                semantic = provider.state is ModelState.READY
                if semantic:  # the window's matrix is loaded before anyone saves: so is this one
                    _found(searcher, picked[0][:200], "semantic", "")
                result.update(_probes(live, copy, reader, searcher, picked, semantic))
                batches.clear()
                result["burst"] = _burst(copy, reader, texts, burst)
                live.wait_idle(PROBE_TIMEOUT)  # its sync events are published after the commit
                result["burst"]["batches"] = sum(
                    1 for e in batches if e.message.startswith("batch")
                )
            finally:
                reader.close()
        finally:
            live.stop()
    result["budgetsS"] = dict(BUDGETS)
    result["passed"] = _verdict(result)
    return result


def _templates(copy: Path, samples: int) -> tuple[list[str], list[str]]:
    """Texts of the vault's notes; ``samples`` of them spread evenly for the probes, each the
    first from its place on that is not marked stale (a stale note ranks below every fresh
    one, so a probe made of one would be searchable and yet not among the first hits)."""
    texts = []
    for path in sorted(copy.rglob("*.md")):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            texts.append(path.read_text(encoding="utf-8"))
    if not texts:
        raise ValueError(f"no notes in {copy}")
    step = max(1, len(texts) // samples)
    picked = []
    for i in range(samples):
        start = (i * step) % len(texts)
        fresh = (texts[(start + j) % len(texts)] for j in range(len(texts)))
        picked.append(next((t for t in fresh if not _stale(t)), texts[start]))
    return texts, picked


def _stale(text: str) -> bool:
    """Whether the note ``text`` is marked stale (its frontmatter's ``status``)."""
    return note_status(read_frontmatter(text).fields.get("status")) == DEMOTED_STATUS


def _probes(
    live: LiveIndex,
    copy: Path,
    reader: IndexDB,
    searcher: Searcher,
    templates: list[str],
    semantic: bool,
) -> dict[str, Any]:
    folder = copy / PROBE_DIR
    folder.mkdir()
    lexical: list[float] = []
    vector: list[float] = []
    misses = {"lexical": 0, "vector": 0}
    for i, template in enumerate(templates):
        word = f"fresh{secrets.token_hex(6)}"
        rel = f"{PROBE_DIR}/probe-{i:03}.md"
        (folder / f"probe-{i:03}.md").write_text(f"{template}\n\nProbe {word}.\n", encoding="utf-8")
        saved = time.perf_counter()
        found = _poll(partial(_found, searcher, word, "fts", rel), saved)
        if found is None:
            misses["lexical"] += 1
        else:
            lexical.append(found)
        if semantic:
            # Vectors first (a cheap query), then the semantic search that must return the note
            # for the text of its own new chunk (the one with the probe word).
            embedded = _poll(partial(_embedded, reader, rel, searcher.provider.name), saved)
            hit = None
            if embedded is not None:
                query = _chunk_with(reader, rel, word)
                hit = _poll(partial(_found, searcher, query, "semantic", rel), saved)
            if hit is None:
                misses["vector"] += 1
            else:
                vector.append(hit)
        live.wait_idle(PROBE_TIMEOUT)  # each probe starts from a quiet index
    figures: dict[str, Any] = {
        "samples": len(templates),
        "lexicalMs": percentiles([s * 1000 for s in lexical]),
        "lexicalMisses": misses["lexical"],
    }
    if semantic:
        figures["vectorMs"] = percentiles([s * 1000 for s in vector])
        figures["vectorMisses"] = misses["vector"]
    else:
        figures["vectorMs"] = None
        figures["vectorSkipped"] = "no embedding model"
    return figures


def _burst(copy: Path, reader: IndexDB, texts: list[str], count: int) -> dict[str, Any]:
    folder = copy / BURST_DIR
    folder.mkdir()
    token = f"burst{secrets.token_hex(6)}"
    started = time.perf_counter()
    for j in range(count):
        text = texts[j % len(texts)]
        (folder / f"burst-{j:04}.md").write_text(f"{text}\n\n{token} item {j}\n", encoding="utf-8")
    written = time.perf_counter()

    def searchable() -> bool:
        row = reader.conn.execute(
            "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (token,)
        ).fetchone()
        return int(row[0]) == count

    done = _poll(searchable, started, timeout=max(PROBE_TIMEOUT, count * 0.1), interval=0.05)
    return {
        "files": count,
        "writeS": round(written - started, 3),
        "lexicalS": None if done is None else round(done, 3),
        "afterLastWriteS": None if done is None else round(done - (written - started), 3),
    }


def _poll(
    condition: Callable[[], bool],
    since: float,
    timeout: float = PROBE_TIMEOUT,
    interval: float = POLL,
) -> float | None:
    """Seconds from ``since`` until ``condition`` held (checked every ``interval``), or None."""
    while True:
        if condition():
            return time.perf_counter() - since
        if time.perf_counter() - since > timeout:
            return None
        time.sleep(interval)


def _found(searcher: Searcher, query: str, mode: str, rel: str) -> bool:
    try:
        response = searcher.search(query, SearchOptions(mode=Mode(mode), limit=10))
    except SemanticUnavailable:
        return False
    return any(hit.path == rel for hit in response.hits)


def _embedded(reader: IndexDB, rel: str, model: str) -> bool:
    """Every chunk of ``rel`` has a vector (cheap to poll, unlike a semantic search)."""
    row = reader.conn.execute(
        "SELECT count(*), count(v.hash) FROM chunks c JOIN notes n ON n.id = c.note_id "
        "LEFT JOIN vectors v ON v.hash = c.hash AND v.model = ? WHERE n.path = ?",
        (model, rel),
    ).fetchone()
    return bool(row[0]) and row[0] == row[1]


def _chunk_with(reader: IndexDB, rel: str, word: str) -> str:
    """The words of the chunk of ``rel`` that holds ``word``, as a query for that chunk: lower
    case and without punctuation, so that nothing in it reads as query syntax (``-x``,
    ``OR``, ``tag:``), and within the query length limit."""
    row = reader.conn.execute(
        "SELECT c.text FROM chunks c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = ? AND instr(c.text, ?) > 0 ORDER BY c.seq LIMIT 1",
        (rel, word),
    ).fetchone()
    words = re.findall(r"\w+", str(row[0]).lower()) if row else [word]
    query = ""
    for w in words:
        if len(query) + len(w) + 1 > MAX_QUERY_CHARS:
            break
        query = f"{query} {w}" if query else w
    return query


def _verdict(result: dict[str, Any]) -> dict[str, bool | None]:
    """Each budget met (``None``: not measured).  Misses fail the budget they belong to."""

    def within(figures: dict[str, Any] | None, key: str, misses: int, budget: str) -> bool | None:
        if figures is None:
            return None
        return bool(figures["n"]) and not misses and figures[key] / 1000 < BUDGETS[budget]

    lexical, misses = result["lexicalMs"], result["lexicalMisses"]
    burst = result["burst"]["lexicalS"]
    return {
        "lexicalMedianS": within(lexical, "p50", misses, "lexicalMedianS"),
        "lexicalP95S": within(lexical, "p95", misses, "lexicalP95S"),
        "vectorMedianS": within(
            result["vectorMs"], "p50", result.get("vectorMisses", 0), "vectorMedianS"
        ),
        "burstLexicalS": burst is not None and burst < BUDGETS["burstLexicalS"],
    }


@contextlib.contextmanager
def _scratch(data_dir: str | os.PathLike[str] | None) -> Iterator[Path]:
    parent = Path(data_dir) if data_dir is not None else None
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="freshness-", dir=parent))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
