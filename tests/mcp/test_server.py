"""The MCP server in this process (the SDK's in-memory client): the model loads once, on the
first request that can use it, and nothing else waits for it; lines that are not JSON-RPC get
the JSON-RPC error they call for."""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, jsonrpc_message_adapter
from pydantic import ValidationError

from explorer.embed.base import Embedder, FakeEmbedder
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.index.db import IndexDB
from explorer.mcp.framing import not_json_rpc
from explorer.mcp.reader import MAX_NOTE_CHARS, VaultReader
from explorer.mcp.server import _serve, build_server, plain_snippet
from explorer.search.query.options import SearchOptions
from explorer.vault.scan import MAX_NOTE_BYTES
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]
#: A safety net: a request that waits for the model when it should not fails here, not at the
#: suite's timeout (a passing test never gets near it).
SAFETY_S = 60
INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "tests", "version": "1"}},
}  # fmt: skip


class GatedModel:
    """A model whose loading waits until the test opens the gate, counting the loads."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()
        self.loads = 0

    def load(self) -> Embedder:
        self.loads += 1
        self.started.set()
        if not self.gate.wait(SAFETY_S):
            raise RuntimeError("the test never opened the gate")
        return FakeEmbedder(name="fakemodel")


@pytest.fixture
def reader(
    vault: Path, write: Write, data_dir: Path, open_db: Callable[[Path], IndexDB]
) -> tuple[VaultReader, GatedModel]:
    write("ops/deploy.md", "# Deploy\n\nRoll back the deploy, then purge the cache.\n")
    write("dev/pasta.md", "# Pasta\n\nBoil water, add salt.\n")
    build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder(name="fakemodel")))
    model = GatedModel()
    return VaultReader(vault, str(data_dir), EmbedderProvider("fakemodel", model.load)), model


def text(result: CallToolResult) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error and result.structured_content is not None, result.content
    return result.structured_content


def test_lexical_answers_never_wait_for_the_model_which_loads_once(
    reader: tuple[VaultReader, GatedModel],
) -> None:
    vault_reader, model = reader
    answers: dict[str, CallToolResult] = {}

    async def scenario() -> None:
        async with Client(build_server(vault_reader)) as client:

            async def hybrid(name: str) -> None:
                answers[name] = await client.call_tool("search", {"query": "deploy cache"})

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(hybrid, "first")
                with anyio.fail_after(SAFETY_S):
                    await anyio.to_thread.run_sync(model.started.wait)
                # The model is loading (the gate is shut): everything else answers now.
                with anyio.fail_after(SAFETY_S):
                    lexical = await client.call_tool("search", {"query": "deploy", "mode": "fts"})
                    note = await client.call_tool("get_note", {"path": "dev/pasta.md"})
                    related = await client.call_tool("related", {"path": "ops/deploy.md"})
                    status = await client.call_tool("status", {})
                assert [h["path"] for h in structured(lexical)["hits"]] == ["ops/deploy.md"]
                assert structured(note)["text"].startswith("# Pasta")
                assert structured(related)["related"][0]["path"] == "dev/pasta.md"
                assert structured(status)["server"]["modelState"] == "loading"
                assert "first" not in answers  # the hybrid search is still waiting for it
                model.gate.set()
            answers["second"] = await client.call_tool("search", {"query": "deploy cache"})

    anyio.run(scenario)
    for name in ("first", "second"):
        semantic = structured(answers[name])["semantic"]
        assert semantic["available"] is True and semantic["model"] == "fakemodel"
        ranks = [h["vectorRank"] for h in structured(answers[name])["hits"]]
        assert 1 in ranks  # the vector list took part
    assert model.loads == 1


def test_an_index_without_vectors_answers_at_once_without_loading_the_model(
    vault: Path, write: Write, data_dir: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("ops/deploy.md", "# Deploy\n\nRoll back the deploy.\n")
    build_index(open_db(vault), None)
    model = GatedModel()
    provider = EmbedderProvider("fakemodel", model.load)

    async def scenario() -> dict[str, Any]:
        async with Client(build_server(VaultReader(vault, str(data_dir), provider))) as client:
            with anyio.fail_after(SAFETY_S):
                return structured(await client.call_tool("search", {"query": "deploy"}))

    semantic = anyio.run(scenario)["semantic"]
    assert semantic["available"] is False and semantic["pending"] == 1
    assert "no note has a vector yet" in semantic["reason"]
    assert model.loads == 0


def test_the_text_says_first_when_no_hit_is_a_close_match(
    reader: tuple[VaultReader, GatedModel],
) -> None:
    """``closeMatch`` false: the text an assistant reads first says so, then the hits as
    ever; a close match starts with the hits."""
    vault_reader, model = reader
    model.gate.set()
    queries = {
        "far": {"query": "rollback strategy for kubernetes"},
        "far in words": {"query": "water bottle", "mode": "fts"},
        "close": {"query": "deploy cache"},
    }

    async def scenario() -> dict[str, CallToolResult]:
        async with Client(build_server(vault_reader)) as client:
            with anyio.fail_after(SAFETY_S):
                return {name: await client.call_tool("search", q) for name, q in queries.items()}

    results = anyio.run(scenario)
    for name in ("far", "far in words"):
        data = structured(results[name])
        assert data["closeMatch"] is False and data["hits"], name
        first, second, *_ = text(results[name]).splitlines()
        query = data["query"]
        assert first.startswith(f"No close match for {query!r}"), first
        assert second.startswith(f"{len(data['hits'])} hits for {query!r}"), second
    assert "nearest notes by meaning" in text(results["far"])
    assert "nearest notes in words" in text(results["far in words"])
    assert structured(results["close"])["closeMatch"] is True
    assert text(results["close"]).startswith("2 hits for 'deploy cache'")


def test_a_search_result_says_the_title_matches_the_query(
    reader: tuple[VaultReader, GatedModel],
) -> None:
    """ "deploy" is the title of ops/deploy.md: the structured hit says so, and so does the
    line an assistant reads, with what the title adds to the score."""
    vault_reader, model = reader
    model.gate.set()

    async def scenario() -> CallToolResult:
        async with Client(build_server(vault_reader)) as client:
            with anyio.fail_after(SAFETY_S):
                return await client.call_tool("search", {"query": "Deploy!"})

    result = anyio.run(scenario)
    hit = structured(result)["hits"][0]
    assert hit["path"] == "ops/deploy.md"
    assert hit["titleMatch"] == "exact" and hit["titleMatchName"] == "Deploy"
    line = next(line for line in text(result).splitlines() if line.startswith("1. "))
    assert f"title exact +{hit['contributions']['title']:.4f}" in line


@pytest.mark.parametrize("query", ["", "!!!", "tag:ops", "path:dev/"])
def test_a_query_that_lists_recent_notes_never_loads_the_model(
    reader: tuple[VaultReader, GatedModel], query: str
) -> None:
    """No words to search: the answer is the recent notes, which the model has nothing to do
    with, so a hybrid search or explanation of it must not load the model (seconds and
    hundreds of megabytes)."""
    vault_reader, model = reader
    model.gate.set()  # a load, wrong as it would be, would not wait
    answer = vault_reader.search(query, SearchOptions(mode="hybrid"))
    assert answer.response.listing
    vault_reader.explain(query, "ops/deploy.md", SearchOptions(mode="hybrid"))
    assert vault_reader.provider.state is ModelState.IDLE and model.loads == 0


def test_closing_stdin_while_a_search_waits_for_the_model_still_answers_it(
    reader: tuple[VaultReader, GatedModel], tmp_path: Path
) -> None:
    """stdin ends while a hybrid search waits for the model: the search finishes, its answer
    is written, and only then does the server stop."""
    vault_reader, model = reader
    requests = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "deploy cache"}}},
    ]  # fmt: skip
    out = tmp_path / "stdout.jsonl"

    async def scenario() -> None:
        closed = anyio.Event()

        async def stdin() -> AsyncIterator[bytes]:
            for message in requests:
                yield (json.dumps(message) + "\n").encode()
            assert await anyio.to_thread.run_sync(model.started.wait, SAFETY_S)
            closed.set()  # the search is waiting for the model (the gate is shut): stdin ends

        async def open_the_gate() -> None:
            await closed.wait()
            model.gate.set()

        with out.open("w", encoding="utf-8") as stdout, anyio.fail_after(SAFETY_S):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(open_the_gate)
                await _serve(build_server(vault_reader), stdin(), anyio.wrap_file(stdout))

    anyio.run(scenario)
    answers = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [a["id"] for a in answers] == [0, 1]
    found = answers[1]["result"]["structuredContent"]
    assert found["semantic"]["available"] is True and found["hits"][0]["path"] == "ops/deploy.md"


def test_a_client_that_closed_stdout_ends_the_server_quietly(
    reader: tuple[VaultReader, GatedModel], tmp_path: Path
) -> None:
    """Nobody reads the answers (the client closed its end of the pipe): the server stops
    without a traceback, as it did before it waited for answers at the end of stdin."""
    vault_reader, _ = reader
    read_end, write_end = os.pipe()
    os.close(read_end)

    async def stdin() -> AsyncIterator[bytes]:
        yield (json.dumps(INITIALIZE) + "\n").encode()

    async def scenario(stdout: TextIO) -> None:
        with anyio.fail_after(SAFETY_S):
            await _serve(build_server(vault_reader), stdin(), anyio.wrap_file(stdout))

    stdout = open(write_end, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    try:
        anyio.run(scenario, stdout)  # returns, raising nothing
    finally:
        with contextlib.suppress(BrokenPipeError):  # its buffer cannot be written either
            stdout.close()


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        ("not json{", -32700, None),
        ('{"jsonrpc": "2.0", "id": 1, "method": "x"', -32700, None),
        ("[1, 2]", -32600, None),
        ('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "zz"}', -32600, 7),
        ('{"jsonrpc": "2.0", "id": "a", "method": 5}', -32600, "a"),
        ('{"jsonrpc": "2.0", "id": true, "method": 5}', -32600, None),
    ],
)
def test_a_line_that_is_no_message_gets_the_json_rpc_error_for_it(
    line: str, code: int, request_id: object
) -> None:
    """The lines as the SDK's stdio transport reads them (it hands on what fails to parse)."""
    with pytest.raises(ValidationError) as parsed:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    answer = not_json_rpc(parsed.value)
    assert (answer.error.code, answer.id) == (code, request_id)
    assert not_json_rpc(ValueError("not the parser's")).error.code == -32700


def test_snippets_lose_their_markup_for_the_text_rendering() -> None:
    snippet = "…was never <mark>purged</mark> &amp; the\n<mark>cache</mark> &lt;kept&gt;…"
    assert plain_snippet(snippet) == "…was never purged & the cache <kept>…"


def test_every_character_of_a_one_line_note_is_read_by_following_the_answers(
    vault: Path, write: Write, data_dir: Path
) -> None:
    # 5 MiB on one line, every 10 characters numbered, so a gap or an overlap shows.
    line = "".join(f"{i:09d}," for i in range(5 * 1024 * 1024 // 10))[: MAX_NOTE_BYTES - 1]
    write("big.md", line + "\n")
    reader = VaultReader(vault, str(data_dir), EmbedderProvider.disabled())
    pieces: list[str] = []

    async def scenario() -> None:
        async with Client(build_server(reader)) as client:
            ask: dict[str, Any] = {}
            while True:
                result = await client.call_tool("get_note", {"path": "big.md", **ask})
                data = structured(result)
                head, text = result.content[0].text.split("\n\n", 1)  # type: ignore[union-attr]
                pieces.append(text)
                assert text == data["text"]
                said = re.search(r"ask for (.+) for more", head)
                if data["next"] is None:
                    assert said is None and not data["truncated"], head
                    return
                # The line a person reads names exactly the arguments the JSON gives.
                assert said is not None, head
                told = dict(pair.rsplit(" ", 1) for pair in said.group(1).split(", "))
                assert {k: int(v) for k, v in told.items()} == data["next"]
                ask = data["next"]

    anyio.run(scenario)
    assert "".join(pieces) == line
    assert len(pieces) == -(-len(line) // MAX_NOTE_CHARS)


def test_the_search_tool_reads_the_property_and_date_syntax_and_sorts() -> None:
    from explorer.mcp.server import TOOLS

    spec = TOOLS["search"]
    assert "[prop:value]" in spec.description and "modified:<7d" in spec.description
    schema = spec.arguments.model_json_schema()
    assert "sort" in schema["properties"]


def test_the_search_tool_takes_the_recency_prior() -> None:
    from explorer.mcp.server import TOOLS

    properties = TOOLS["search"].arguments.model_json_schema()["properties"]
    assert {"recency", "half_life"} <= set(properties)
    assert "recency prior" in str(properties["recency"])
    args = TOOLS["search"].arguments.model_validate({"query": "x", "recency": 0.2})
    assert args.recency == 0.2


def test_the_saved_searches_tool_lists_what_the_owner_saved_and_writes_nothing(
    reader: tuple[VaultReader, GatedModel], vault: Path, data_dir: Path
) -> None:
    from explorer.search.answers.saved import SearchStore
    from explorer.search.query.options import Mode, SearchOptions

    server_reader, _ = reader
    before = sorted(p.relative_to(vault) for p in vault.rglob("*"))

    async def listed() -> CallToolResult:
        async with Client(build_server(server_reader)) as client:
            return await client.call_tool("saved_searches", {})

    empty = anyio.run(listed)
    assert structured(empty) == {"saved": []}
    assert "--save NAME" in text(empty)

    store = SearchStore.of(vault, str(data_dir))
    store.save("open work", "[status:open] deploy", SearchOptions(mode=Mode.FTS, limit=5))
    store.save("all", "", SearchOptions())
    result = anyio.run(listed)
    assert structured(result) == {
        "saved": [
            {"name": "all", "query": "", "options": {}},
            {
                "name": "open work",
                "query": "[status:open] deploy",
                "options": {"mode": "fts", "limit": 5},
            },
        ]
    }
    assert text(result).splitlines() == [
        "all: ",
        "open work: [status:open] deploy  (mode=fts,limit=5)",
    ]
    assert sorted(p.relative_to(vault) for p in vault.rglob("*")) == before


@pytest.mark.parametrize("query", ["deploy modified:>2300", "modified:<999999d", "created:<1500"])
def test_a_date_filter_beyond_the_index_is_answered_not_failed(
    reader: tuple[VaultReader, GatedModel], query: str
) -> None:
    hits = {h["path"] for h in structured(_lexical_search(reader, query))["hits"]}
    assert hits == ({"ops/deploy.md", "dev/pasta.md"} if "999999d" in query else set())


@pytest.mark.parametrize("query", ["[rating:>1e400]", "deploy [status:open"])
def test_a_malformed_filter_is_noted_in_the_results(
    reader: tuple[VaultReader, GatedModel], query: str
) -> None:
    result = _lexical_search(reader, query)
    (note,) = structured(result)["notes"]
    assert "is not a property filter" in note and note.endswith("searched as text")
    assert f"note: {note}" in text(result).splitlines()[:3]


def test_a_filter_only_listing_says_how_many_notes_pass(
    reader: tuple[VaultReader, GatedModel],
) -> None:
    vault_reader, _ = reader
    answer = vault_reader.search("path:ops/", SearchOptions(limit=5))
    assert answer.response.to_json()["matched"] == 1
    answer = vault_reader.search("", SearchOptions(limit=1))
    assert answer.response.matched == 2
    assert answer.response.listing_text() == "1 of 2 notes, the most recently modified"


def _lexical_search(reader: tuple[VaultReader, GatedModel], query: str) -> CallToolResult:
    """The ``search`` tool's answer to ``query`` in ``fts`` mode."""
    vault_reader, model = reader
    model.gate.set()

    async def scenario() -> CallToolResult:
        async with Client(build_server(vault_reader)) as client:
            with anyio.fail_after(SAFETY_S):
                return await client.call_tool("search", {"query": query, "mode": "fts"})

    return anyio.run(scenario)
