"""``vault-explorer mcp`` driven as an assistant drives it: the SDK's stdio client against the
server in a subprocess, on a temporary vault.  Every tool is called; the search answers what
``search --json`` answers; ``get_note`` never leaves the vault; bad requests get errors and the
server answers the next one; a ``watch`` may hold the index meanwhile; the vault and the index
are never written (unless ``--sync`` asks, and no other process keeps the index current)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from explorer.embed.base import FakeEmbedder
from explorer.embed.models import DEFAULT_MODEL
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import IndexDB, index_path
from explorer.index.lease import holder
from explorer.search.query.query import MAX_QUERY_CHARS
from tests.commands.helpers import index_written, start_watch, wait_running
from tests.conftest import build_index
from tests.mcp_lines import LineClient

T = TypeVar("T")
Write = Callable[[str, str | bytes], Path]

TOOLS = {"search", "get_note", "related", "explain", "status", "saved_searches"}
#: The server sees the package the tests see (the checkout on PYTHONPATH, made absolute: a
#: server may start in another folder; or the installed one).
ENV = (
    {
        "PYTHONPATH": os.pathsep.join(
            str(Path(entry).resolve())
            for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
        )
    }
    if os.environ.get("PYTHONPATH")
    else {}
)


@pytest.fixture
def notes(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> Path:
    """An Obsidian vault of four notes (names with a space, ``#`` and ``&``), indexed, with
    vectors tagged as the default model's (the fake embedder's: ``related`` reads them, and
    nothing here needs the model)."""
    write("ops/cdn purge.md", "# CDN purge\n\nThe cache was never purged on deploy.\n")
    write(
        "ops/runbook.md",
        "# Deploy runbook\n\nRoll back the deploy, then purge the cache.\n\nSee [[cdn purge]].\n",
    )
    write("dev/pasta.md", "# Pasta\n\nBoil water, add salt.\n")
    write("C# & F#/tips #1.md", "# Tips\nline 2\nline 3\nline 4\n")
    write(".obsidian/app.json", "{}")
    build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder(name=DEFAULT_MODEL)))
    return vault


def run_client(
    vault: Path,
    data_dir: Path,
    log: Path,
    scenario: Callable[[Client], Awaitable[T]],
    *options: str,
    command: tuple[str, list[str]] | None = None,
) -> T:
    """Start ``vault-explorer mcp VAULT`` (or ``command``) under the SDK's stdio client, shake
    hands, run ``scenario``, close."""
    program, args = command or (
        sys.executable,
        ["-m", "explorer", "mcp", str(vault), "--data-dir", str(data_dir), *options],
    )
    params = StdioServerParameters(command=program, args=args, env=ENV)

    async def session() -> T:
        with log.open("a") as err:
            async with Client(stdio_client(params, errlog=err), mode="legacy") as client:
                return await scenario(client)

    return anyio.run(session)


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def text(result: CallToolResult) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


def refusal(result: CallToolResult) -> str:
    assert result.is_error and result.structured_content is None
    return text(result)


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(list(args)) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every entry under ``root`` (links and FIFOs not followed): content hash and mtime."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            st = path.lstat()
            regular = path.is_file() and not path.is_symlink()
            digest = hashlib.sha256(path.read_bytes() if regular else b"").hexdigest()
            out[path.relative_to(root).as_posix()] = (digest, st.st_mtime_ns)
    return out


# ----------------------------------------------------------------------------- the tools


@pytest.mark.slow
def test_a_client_lists_the_tools_and_calls_each_one(
    notes: Path, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "server.log"

    async def scenario(client: Client) -> dict[str, Any]:
        assert client.server_info is not None and client.server_info.name == "vault-explorer"
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        calls = {
            "search": await client.call_tool(
                "search",
                {"query": "purge cache", "mode": "fts", "preset": "rrf", "w_fts": 0.6, "limit": 60},
            ),
            "get_note": await client.call_tool(
                "get_note", {"path": "C# & F#/tips #1.md", "start_line": 3, "end_line": 4}
            ),
            "related": await client.call_tool("related", {"path": "ops/cdn purge.md"}),
            "explain": await client.call_tool(
                "explain", {"query": "purge cache", "path": "dev/pasta.md", "mode": "fts"}
            ),
            "status": await client.call_tool("status", {}),
        }
        return {"tools": tools, "calls": calls}

    got = run_client(notes, data_dir, log, scenario)
    tools, calls = got["tools"], got["calls"]
    assert set(tools) == TOOLS
    for tool in tools.values():
        schema = tool.input_schema
        assert schema["type"] == "object" and isinstance(schema.get("properties", {}), dict)
        assert schema.get("additionalProperties") is False
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False and tool.description
    search_args = tools["search"].input_schema["properties"]
    assert {"query", "limit", "mode", "preset", "w_fts", "w_vec", "k", "min_rel"} <= set(
        search_args
    )
    assert search_args["query"]["maxLength"] == MAX_QUERY_CHARS
    assert tools["search"].input_schema["required"] == ["query"]

    # search: what `search --json` prints for the same query and settings.
    expected = cli_json(
        capsys, "search", str(notes), "purge cache", "--mode", "fts", "--preset", "rrf",
        "--w-fts", "0.6", "--limit", "60", "--json", "--no-sync", "--data-dir", str(data_dir),
    )  # fmt: skip
    found = data(calls["search"])
    assert found == expected
    # fts mode fuses nothing: the fusion in effect is the one list's evidence at weight 1
    assert found["fusion"] == {"method": "calibrated", "k": 10, "weights": {"fts": 1, "vector": 1},
                               "depth": 60}  # fmt: skip
    paths = [h["path"] for h in found["hits"]]
    assert set(paths[:2]) == {"ops/runbook.md", "ops/cdn purge.md"}
    shown = text(calls["search"])
    first = found["hits"][0]
    assert f"1. {first['path']} — {first['title']} [" in shown and "words #1" in shown
    assert "<mark>" not in shown and "purge the cache" in shown

    note = data(calls["get_note"])
    assert note["text"] == "line 3\nline 4"
    assert (note["startLine"], note["endLine"], note["totalLines"]) == (3, 4, 4)
    assert (
        note["obsidianUri"] == "obsidian://open?vault=vault&file=C%23%20%26%20F%23%2Ftips%20%231.md"
    )
    assert text(calls["get_note"]).endswith("\n\nline 3\nline 4")

    assert data(calls["related"]) == cli_json(
        capsys, "related", str(notes), "ops/cdn purge.md", "--json", "--data-dir", str(data_dir)
    )
    assert data(calls["related"])["related"][0]["path"] == "ops/runbook.md"

    assert data(calls["explain"]) == cli_json(
        capsys, "explain", str(notes), "purge cache", "dev/pasta.md", "--mode", "fts", "--json",
        "--data-dir", str(data_dir),
    )  # fmt: skip
    assert "no-words" in data(calls["explain"])["reasons"]

    status = data(calls["status"])
    assert (status["indexed"], status["notes"], status["pendingEmbeddings"]) == (True, 4, 0)
    assert status["watcher"]["state"] == "stopped"
    assert status["server"] == {
        "model": DEFAULT_MODEL, "modelState": "idle", "modelError": None, "sync": False,
    }  # fmt: skip
    assert "4 notes" in text(calls["status"])
    assert "Traceback" not in log.read_text()


@pytest.mark.model
def test_search_ranks_by_meaning_as_search_json_does_and_the_model_loads_on_first_need(
    vault: Path, write: Write, data_dir: Path, tmp_path: Path
) -> None:
    write("ops/cdn.md", "# CDN purge\n\nThe edge nodes kept serving the stale stylesheet.\n")
    write("cooking/bread.md", "# Sourdough\n\nFeed the starter, then bake the loaf.\n")
    write("ops/backups.md", "# Nightly backups\n\nA cron job archives the uploads folder.\n")
    common = ["--data-dir", str(data_dir)]
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "index", str(vault), *common],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    query = "why did visitors see an old style sheet"

    async def scenario(client: Client) -> list[dict[str, Any]]:
        before = data(await client.call_tool("status", {}))["server"]["modelState"]
        lexical = data(await client.call_tool("search", {"query": query, "mode": "fts"}))
        after_lexical = data(await client.call_tool("status", {}))["server"]["modelState"]
        first = data(await client.call_tool("search", {"query": query}))
        again = data(await client.call_tool("search", {"query": query}))
        loaded = data(await client.call_tool("status", {}))["server"]["modelState"]
        return [{"states": [before, after_lexical, loaded]}, lexical, first, again]

    states, lexical, first, again = run_client(vault, data_dir, tmp_path / "log", scenario)
    assert states["states"] == ["idle", "idle", "ready"]  # lexical answers never load it
    assert lexical["semantic"]["available"] is False
    assert first["semantic"] == {
        "available": True, "reason": None, "model": DEFAULT_MODEL, "pending": 0,
        "queryLanguage": "en", "modelReadsQuery": True,
    }  # fmt: skip
    assert first["hits"][0]["path"] == "ops/cdn.md" and first["hits"][0]["vectorRank"] == 1
    assert again == first
    cli = subprocess.run(
        [sys.executable, "-m", "explorer", "search", str(vault), query, "--json", "--no-sync",
         *common],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert_close(first, json.loads(cli.stdout))


def assert_close(a: object, b: object) -> None:
    """``a == b``, floats to 1e-5 (two processes embed the query, with different thread counts:
    the last bits may differ, and the calibrated evidence divides by a 3-note spread)."""
    if isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-8), (a, b)
    elif isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_close(a[key], b[key])
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_close(x, y)
    else:
        assert a == b


# ----------------------------------------------------------------------------- confinement


@pytest.mark.slow
def test_get_note_stays_in_the_vault_and_nothing_is_written(
    notes: Path, data_dir: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nTOP SECRET\n")
    (notes / "out.md").symlink_to(secret)
    (notes / "linked").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(notes / "pipe.md")
    (notes / "folder.md").mkdir()
    (notes / ".git").mkdir()
    (notes / ".git" / "config.md").write_text("token = hunter2\n")
    vault_before, index_before = snapshot(notes), index_written(notes)
    refused = {
        "../secret.md": "leads out of the vault",
        "ops/../../secret.md": "leads out of the vault",
        str(secret): "absolute path",
        str(notes / "dev" / "pasta.md"): "absolute path",
        "C:\\secret.md": "absolute path",
        "out.md": "symlink to a file outside the vault",
        "linked/secret.md": "no note at linked/secret.md",
        "pipe.md": "not a regular file",
        "folder.md": "not a regular file",
        ".obsidian/app.json": "is not a note of this vault",
        ".git/config.md": "is not a note of this vault",
        "missing.md": "no note at missing.md",
        "": "String should have at least 1 character",
    }

    async def scenario(client: Client) -> dict[str, CallToolResult]:
        answers = {path: await client.call_tool("get_note", {"path": path}) for path in refused}
        answers["ok"] = await client.call_tool("get_note", {"path": "ops\\cdn purge.md"})
        answers["range"] = await client.call_tool(
            "get_note", {"path": "dev/pasta.md", "start_line": 9}
        )
        answers["backwards"] = await client.call_tool(
            "get_note", {"path": "dev/pasta.md", "start_line": 3, "end_line": 2}
        )
        # Every other tool too: none of them writes.
        for name, args in (
            ("search", {"query": "deploy", "mode": "fts"}),
            ("search", {"query": ""}),
            ("related", {"path": "ops/runbook.md"}),
            ("explain", {"query": "deploy", "path": "ops/runbook.md", "mode": "fts"}),
            ("status", {}),
        ):
            assert not (await client.call_tool(name, args)).is_error
        return answers

    answers = run_client(notes, data_dir, tmp_path / "log", scenario)
    for path, reason in refused.items():
        said = refusal(answers[path])
        assert reason in said, (path, said)
        assert "TOP SECRET" not in said and "hunter2" not in said
    assert data(answers["ok"])["text"].startswith("# CDN purge")
    assert "dev/pasta.md has 3 lines" in refusal(answers["range"])
    assert "not a range of lines" in refusal(answers["backwards"])
    assert snapshot(notes) == vault_before
    assert index_written(notes) == index_before


# ----------------------------------------------------------------------------- bad requests


@pytest.mark.slow
def test_bad_requests_get_errors_and_the_server_answers_the_next(
    notes: Path, data_dir: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "explorer", "mcp", str(notes), "--data-dir", str(data_dir)]
    client = LineClient(command, {**os.environ, **ENV}, log)
    try:
        assert client.initialize()["serverInfo"]["name"] == "vault-explorer"
        search = {"query": "deploy", "mode": "fts"}

        def answers() -> None:
            (hit, *_) = client.call("search", search)["result"]["structuredContent"]["hits"]
            assert hit["path"] == "ops/runbook.md"

        client.send("this is not JSON {")
        assert client.read() == {
            "jsonrpc": "2.0", "id": None,
            "error": {"code": -32700, "message": "Parse error: the line is not JSON"},
        }  # fmt: skip
        answers()
        client.send("[1, 2]")
        assert client.read()["error"]["code"] == -32600
        client.send({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": "zz"})
        assert client.answer_to(41)["error"]["code"] == -32600
        answers()
        assert client.request("no/such/method")["error"]["code"] == -32601
        unknown = client.call("no_such_tool", {})["error"]
        assert unknown["code"] == -32602 and "the tools are search, get_note" in unknown["message"]
        answers()
        for arguments, said in (
            ({"query": "y" * 5000}, "query is 5,000 characters long; the limit is 1,000"),
            ({"query": 5}, "query: Input should be a valid string"),
            ({"query": "x", "limit": "ten"}, "limit: Input should be a valid integer"),
            ({"query": "x", "limit": 1000}, "limit: Input should be less than or equal to 100"),
            ({"query": "x", "k": 0}, "k: Input should be greater than 0"),
            ({"query": "x", "mode": "psychic"}, "mode: Input should be 'fts', 'semantic'"),
            ({"query": "x", "wfts": 1}, "wfts: Extra inputs are not permitted"),
            ({}, "query: Field required"),
        ):
            result = client.call("search", arguments)["result"]
            assert result["isError"] is True, arguments
            assert said in result["content"][0]["text"], result
            assert "y" * 100 not in result["content"][0]["text"]  # not repeated back
            answers()
        assert client.call("get_note", {"path": ["a.md"]})["result"]["isError"] is True
        assert client.call("related", {"path": "nope.md"})["result"]["isError"] is True
        answers()
        assert client.close() == 0  # closing stdin ends it
    finally:
        client.kill()
    said = log.read_text()
    assert "Traceback" not in said and "serving" in said


# ----------------------------------------------------------------------------- framing


def line_client(notes: Path, data_dir: Path, log: Path) -> LineClient:
    command = [sys.executable, "-m", "explorer", "mcp", str(notes), "--data-dir", str(data_dir)]
    return LineClient(command, {**os.environ, **ENV}, log)


def tool_call(request_id: object, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0", "id": request_id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }  # fmt: skip


#: What a client writes before its first request: ``initialize`` (id 0) and the notification.
HANDSHAKE = [
    {
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "tests", "version": "1"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]  # fmt: skip


@pytest.mark.slow
def test_every_request_read_before_stdin_closes_is_answered_then_the_server_exits(
    notes: Path, data_dir: Path, tmp_path: Path
) -> None:
    """``vault-explorer mcp VAULT < requests.jsonl``: the requests are all written, stdin
    closes at once, and the last line has no newline.  Each request is answered once, however
    far the server got when stdin closed; then it exits 0.  Three runs: where it is at the
    close varies from run to run."""
    requests = [
        *HANDSHAKE,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        tool_call(2, "search", {"query": "purge cache", "mode": "fts"}),
        tool_call(3, "status", {}),
        tool_call(4, "related", {"path": "ops/runbook.md"}),
        tool_call(5, "get_note", {"path": "dev/pasta.md"}),
    ]
    log = tmp_path / "server.log"
    for _ in range(3):
        client = line_client(notes, data_dir, log)
        try:
            for message in requests[:-1]:
                client.send(message)
            client.send(requests[-1], end="")
            answers, status = client.finish()
        finally:
            client.kill()
        assert sorted(a["id"] for a in answers) == [0, 1, 2, 3, 4, 5], answers
        assert all("result" in a and not a["result"].get("isError") for a in answers), answers
        assert status == 0
    assert "Traceback" not in log.read_text()


@pytest.mark.slow
def test_a_lone_surrogate_in_a_query_is_searched_as_a_replacement_character(
    notes: Path, data_dir: Path, tmp_path: Path
) -> None:
    """A JSON string cut inside an emoji (``\ud83d`` escaped, its low half lost) is valid JSON:
    the request is answered, with its id, the bad code unit read as U+FFFD."""
    client = line_client(notes, data_dir, tmp_path / "server.log")
    try:
        client.initialize()
        cut = json.dumps(tool_call(7, "search", {"query": "deploy \U0001f680", "mode": "fts"}))
        client.send(cut.replace("\\ud83d\\ude80", "\\ud83d"))
        answer = client.read()
        assert answer["id"] == 7, answer
        found = answer["result"]["structuredContent"]
        assert found["query"] == "deploy \ufffd"
        assert found["hits"][0]["path"] == "ops/runbook.md"
        assert answer["result"]["content"][0]["text"].count("\ufffd") == 1
        assert client.close() == 0
    finally:
        client.kill()


@pytest.mark.slow
def test_a_request_whose_id_cannot_be_used_gets_invalid_request_with_a_null_id(
    notes: Path, data_dir: Path, tmp_path: Path
) -> None:
    """MCP ids are strings or integers (never null); one the server could not echo back (a
    lone surrogate) is no better.  JSON-RPC 2.0: Invalid Request, id null."""
    client = line_client(notes, data_dir, tmp_path / "server.log")
    try:
        client.initialize()
        for bad_id in ("1.5", "{}", "null", "true", "[1]", '"a\\udc00"'):
            line = json.dumps(tool_call("ID", "status", {})).replace('"ID"', bad_id)
            client.send(line)
            answer = client.read()
            assert answer["id"] is None and answer["error"]["code"] == -32600, (bad_id, answer)
            assert "id" in answer["error"]["message"]
            assert client.call("status", {})["result"]["structuredContent"]["notes"] == 4
        assert client.close() == 0
    finally:
        client.kill()


@pytest.mark.slow
def test_before_initialize_ping_is_answered_and_other_requests_are_told_why_not(
    notes: Path, data_dir: Path, tmp_path: Path
) -> None:
    client = line_client(notes, data_dir, tmp_path / "server.log")
    try:
        assert client.request("ping") == {"jsonrpc": "2.0", "id": 1, "result": {}}
        for refused in (client.call("status", {}), client.request("tools/list")):
            assert "result" not in refused, refused
            assert "not initialized: send initialize first" in refused["error"]["message"]
        assert client.request("no/such/method")["error"]["code"] == -32601
        client.initialize()
        assert client.call("status", {})["result"]["structuredContent"]["notes"] == 4
        assert client.close() == 0
    finally:
        client.kill()


# ----------------------------------------------------------------------------- other processes


@pytest.mark.slow
def test_the_server_reads_while_watch_keeps_the_index_and_never_takes_it(
    notes: Path, data_dir: Path, tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    watch_log = tmp_path / "watch.log"
    watch = start_watch(notes, data_dir, watch_log, "--no-embed")
    procs.append(watch)
    wait_running(watch_log)
    path = index_path(notes, data_dir)

    async def scenario(client: Client) -> None:
        status = data(await client.call_tool("status", {}))
        assert status["watcher"]["state"] == "running" and status["watcher"]["pid"] == watch.pid
        assert "kept current by vault-explorer watch" in text(await client.call_tool("status", {}))
        (notes / "dev" / "new.md").write_text("# Fresh\n\nwritten while serving, zanzibar\n")

        async def found() -> bool:
            result = await client.call_tool("search", {"query": "zanzibar", "mode": "fts"})
            return [h["path"] for h in data(result)["hits"]] == ["dev/new.md"]

        with anyio.fail_after(60):  # a safety net: the watcher indexes it in well under a second
            while not await found():
                await anyio.sleep(0.05)
        owner = holder(path)
        assert owner is not None and owner.pid == watch.pid  # the lease stayed the watcher's

    run_client(notes, data_dir, tmp_path / "log", scenario, "--sync")
    assert watch.poll() is None


@pytest.mark.slow
def test_sync_only_when_asked_and_only_when_nobody_keeps_the_index(
    notes: Path, data_dir: Path, tmp_path: Path
) -> None:
    (notes / "dev" / "late.md").write_text("# Late\n\nwritten after the index, quokka\n")
    query = {"query": "quokka", "mode": "fts"}

    path = index_path(notes, data_dir)

    async def hits(client: Client) -> list[str]:
        found = [h["path"] for h in data(await client.call_tool("search", query))["hits"]]
        assert holder(path) is None  # taken for a sync at most, and given back
        return found

    index_before = index_written(notes)
    assert run_client(notes, data_dir, tmp_path / "log", hits) == []
    assert index_written(notes) == index_before
    assert run_client(notes, data_dir, tmp_path / "log", hits, "--sync") == ["dev/late.md"]


@pytest.mark.slow
def test_print_config_is_a_server_the_client_starts_as_it_is(
    notes: Path,
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(notes / "ops")  # the folder of a relative VAULT
    config = cli_json(capsys, "mcp", "--print-config", "..", "--data-dir", str(data_dir))
    (entry,) = config["mcpServers"].values()
    assert list(config["mcpServers"]) == ["vault-explorer"]
    command, args = entry["command"], entry["args"]
    assert Path(command).is_absolute() and Path(command).exists()
    assert args[-4:] == ["mcp", str(notes.resolve()), "--data-dir", str(data_dir.resolve())]

    async def status(client: Client) -> dict[str, Any]:
        return data(await client.call_tool("status", {}))

    monkeypatch.chdir(tmp_path)  # a desktop client starts it anywhere
    started = run_client(notes, data_dir, tmp_path / "log", status, command=(command, args))
    assert (started["vault"], started["notes"]) == (str(notes.resolve()), 4)


def test_a_vault_that_is_not_a_folder_is_refused_before_serving(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "mcp", str(tmp_path / "missing")],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "vault folder not found" in done.stderr


def test_print_config_without_a_vault_asks_for_it_and_never_configures_this_folder(
    notes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(notes)  # a folder that would do, and is still not guessed
    capsys.readouterr()
    assert main(["mcp", "--print-config"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        "vault-explorer: --print-config needs the vault the client should serve: "
        "vault-explorer mcp --print-config VAULT\n"
    )
    assert main(["mcp", "--print-config", "."]) == 0
    out = capsys.readouterr()
    args = json.loads(out.out)["mcpServers"]["vault-explorer"]["args"]
    assert args[args.index("mcp") + 1] == str(notes.resolve())
    assert out.err == f"vault-explorer: configured to serve {notes.resolve()}\n"
