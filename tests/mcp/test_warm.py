"""The warm path's server in this process, over a real index: each request is answered through
the server's one reader, whose vector matrix is read once, not once a request."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from explorer.commands.warm import alone, served
from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.live.writer import LiveIndex
from explorer.mcp.requests import ExplainRequest, RelatedRequest, SearchRequest
from explorer.mcp.warm import serve_vault
from explorer.search.query.options import SearchOptions
from tests.live.helpers import matrix_reads, traced
from tests.waiting import wait_until

REQUESTS = [
    SearchRequest("deploy cache", SearchOptions()),
    ExplainRequest("deploy cache", "n1.md", SearchOptions()),
    RelatedRequest("n2.md", 3),
    SearchRequest("part 3", SearchOptions(mode="semantic")),
]


def test_served_requests_read_the_matrix_once_and_answer_as_alone(
    indexed: EmbedderProvider, vault: Path, data_dir: Path
) -> None:
    server = serve_vault(vault, str(data_dir), "the test", indexed)
    assert server is not None
    try:
        statements = traced(server.reader.reader)
        answers = []
        for _ in range(3):
            for request in REQUESTS:
                answered = served(vault.resolve(), str(data_dir), indexed.name, request)
                assert answered is not None and answered.error is None, answered
                answers.append(answered)
        assert server.answered == 3 * len(REQUESTS)
        # Twelve requests of three kinds, one read of every vector: the first request's.
        assert matrix_reads(statements) == 1
    finally:
        server.stop()
    for request, answered in zip(REQUESTS, answers, strict=False):
        assert alone(vault.resolve(), str(data_dir), None, indexed, request) == answered


def test_served_searches_count_the_chunks_waiting_once_per_state_of_the_index(
    indexed: EmbedderProvider,
    vault: Path,
    data_dir: Path,
    write: Callable[[str, str], Path],
    open_db: Callable[[Path], IndexDB],
) -> None:
    """Every search says how many chunks wait for their vectors; counting them reads every
    chunk (~70 ms at 50,000 notes), so a server counts once per state of the index."""
    server = serve_vault(vault, str(data_dir), "the test", indexed)
    assert server is not None

    def counts() -> int:
        return sum(1 for s in statements if s.startswith("SELECT count(DISTINCT c.hash)"))

    def search() -> list[str]:
        answered = served(vault.resolve(), str(data_dir), indexed.name, REQUESTS[0])
        assert answered is not None and answered.error is None, answered
        return answered.notes

    try:
        statements = traced(server.reader.reader)
        assert [search() for _ in range(3)] == [[], [], []]
        assert counts() == 1
        write("new.md", "# New\n\nHow we deploy the cache, again.\n")
        sync_vault(open_db(vault))  # another process's writer: a new state, not embedded
        assert "1 chunk is waiting for embeddings" in search()[0]
        assert counts() == 2
    finally:
        server.stop()


def test_a_request_for_another_model_or_index_is_refused(
    indexed: EmbedderProvider, vault: Path, data_dir: Path, tmp_path: Path
) -> None:
    server = serve_vault(vault, str(data_dir), "the test", indexed)
    assert server is not None
    try:
        request = REQUESTS[0]
        assert served(vault.resolve(), str(data_dir), "another-model", request) is None
        assert served(vault.resolve(), str(tmp_path / "other"), indexed.name, request) is None
        assert server.answered == 0
        assert served(vault.resolve(), str(data_dir), indexed.name, request) is not None
    finally:
        server.stop()


def test_a_request_that_comes_before_the_index_exists_waits_for_the_writer(
    write: Callable[[str, str], Path],
    vault: Path,
    data_dir: Path,
    fake: FakeEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A watch serves as soon as its writer has started, before the writer made the index (a
    new vault): a search asked then waits for the whole vault to be in it, and answers as a
    search that synced first would — not "no index yet", not the notes indexed so far."""
    monkeypatch.setenv("VAULT_EXPLORER_WARM", "1")
    for i in range(3):
        write(f"n{i}.md", f"# Note {i}\n\nHow we deploy the cache, part {i}.\n")
    provider = EmbedderProvider.of(fake)
    live = LiveIndex(vault, str(data_dir), provider, watch=False, role="the test")
    server = serve_vault(vault, str(data_dir), "the test", provider, writer=live)
    assert server is not None
    request = SearchRequest("deploy cache", SearchOptions(mode="fts"))
    try:
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(served, vault.resolve(), str(data_dir), provider.name, request)
            wait_until(lambda: asked.done() or server.accepted == 1)
            live.start()
            answered = asked.result()
    finally:
        server.stop()
        live.stop()
    assert answered is not None and answered.error is None, answered
    assert answered.data is not None and len(answered.data["hits"]) == 3, answered.data
