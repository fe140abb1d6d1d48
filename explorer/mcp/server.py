"""The Model Context Protocol server of ``vault-explorer mcp``, on the official Python SDK.

Five tools, all read-only (annotated so) and all answered by a
:class:`~explorer.mcp.reader.VaultReader`: ``search``, ``get_note``, ``related``,
``explain``, ``status``.  Each declares its arguments as a strict pydantic model, whose JSON
schema is the tool's input schema; an answer is structured content (the JSON the matching
command prints with ``--json``) and a short text rendering for the assistant to read.

Bad input never stops the server: arguments that do not fit the schema, a query the core
refuses, a path out of the vault — each is a tool result with ``isError`` and one line; an
unknown tool or method is a JSON-RPC error, and so is a request before ``initialize`` (other
than ``ping``), whose message says to send ``initialize`` first.

The lines are read by :class:`~explorer.mcp.framing.Framing`; the SDK's stdio transport writes
them.  Each line of stdin is one message (the last one needs no newline), decoded as UTF-8 with
whatever is not text read as U+FFFD: bytes that are not UTF-8, and escaped lone surrogates
(``"\\ud83d"``, a string cut inside an emoji), so a query is searched whatever it holds.  A
line that is not JSON is answered ``-32700`` (id null); JSON that is not a JSON-RPC message,
``-32600`` (with the request's id when it has one that can be used); a request whose id is not
a string or an integer (MCP's rule: not ``1.5``, ``null``, ``true`` or ``{}``), ``-32600`` with
id null.  When stdin closes, nothing more is read: every request read is answered (one waiting
for the model too), then the server exits with status 0; so it does at once, saying so on
stderr, when the client has closed stdout (no answer can reach it).  Nothing but protocol
messages goes to stdout: the SDK points fd 1 at stderr while it serves, and logs go to stderr.
"""

from __future__ import annotations

import html
import io
import logging
import os
import re
import sys
from collections.abc import AsyncIterable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import anyio.to_thread
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ErrorData,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from explorer import __version__
from explorer.display import safe_text
from explorer.errors import Fault, classify
from explorer.live import serve as warm
from explorer.live.problems import fault_line
from explorer.mcp.framing import Framing
from explorer.mcp.reader import VaultReader
from explorer.mcp.requests import asked_for
from explorer.search.answers.answer import Answer, waiting_text
from explorer.search.answers.related import LINK_MARK, RelatedNotes
from explorer.search.answers.related_limits import DEFAULT_LIMIT, MAX_LIMIT
from explorer.search.answers.saved import SearchStore
from explorer.search.answers.verdict import closeness
from explorer.search.query import options as search_options
from explorer.search.query import syntax
from explorer.search.query.options import Mode
from explorer.search.query.query import MAX_QUERY_CHARS

log = logging.getLogger(__name__)

#: What the assistant is told about the server when it connects.
INSTRUCTIONS = (
    "Search a folder of markdown notes (a vault) and read them. `search` ranks notes by words "
    "(full-text) and by meaning (embeddings), fused, and says why each hit ranks where it does; "
    "`get_note` reads a note by the path a search returned; `related` lists the notes nearest in "
    "meaning to one note; `explain` says why a note is (or is not) in a query's results; "
    "`status` says how complete the index is. Everything is read-only."
)

#: What the ``search`` tool's query may hold: the syntax table's forms and meanings.
QUERY_SYNTAX = syntax.described()


# ----------------------------------------------------------------------------- arguments


class _Arguments(BaseModel):
    """Arguments are exactly what the schema says: no coercion, no unknown names."""

    model_config = ConfigDict(strict=True, extra="forbid")


def _query_field(description: str) -> Any:
    # The length is the core's to refuse, with its own message; the schema says it.
    return Field(description=description, json_schema_extra={"maxLength": MAX_QUERY_CHARS})


def _path_field(description: str) -> Any:
    return Field(description=description, min_length=1)


def _setting_fields(*, limit: str) -> dict[str, Any]:
    """``preset`` and every search setting, by its name, each optional (default: the
    search's default), typed and bounded as :data:`explorer.search.query.options.PARAMETERS`
    says."""
    presets: Any = Literal[tuple(search_options.PRESETS)]
    fields: dict[str, Any] = {
        "preset": (
            presets | None,
            Field(
                None,
                description="start from these ranking settings; the settings below change them",
            ),
        )
    }
    for p in search_options.PARAMETERS:
        kind: Any = Literal[p.choices] if p.choices else int if p.kind is int else float
        bounds: dict[str, Any] = {}
        if p.low is not None:
            bounds["gt" if p.low_open else "ge"] = p.low
        if p.high is not None:
            bounds["le"] = p.high
        default = search_options.SearchOptions().to_json()[p.name]
        help_text = limit if p.name == "limit" else p.help
        fields[p.name] = (
            kind | None,
            Field(None, description=f"{help_text} (default {default})", **bounds),
        )
    return fields


SearchArgs = create_model(
    "search",
    __base__=_Arguments,
    query=(str, _query_field(f"the query. {QUERY_SYNTAX}")),
    **_setting_fields(limit="hits to return"),
)
ExplainArgs = create_model(
    "explain",
    __base__=_Arguments,
    query=(str, _query_field("the query, as given to search")),
    path=(str, _path_field("the note's vault-relative path, as search returns it")),
    **_setting_fields(limit="the top N the note is explained against"),
)


class NoteArgs(_Arguments):
    path: str = _path_field("the note's vault-relative path, as search returns it")
    start_line: int | None = Field(None, ge=1, description="first line to return (from 1)")
    end_line: int | None = Field(None, ge=1, description="last line to return (inclusive)")
    start_char: int | None = Field(
        None,
        ge=1,
        description="start at this character of start_line (from 1), to go on inside a line "
        "longer than one answer carries: a cut answer's `next` gives the arguments to ask next",
    )


class RelatedArgs(_Arguments):
    path: str = _path_field("the note's vault-relative path, as search returns it")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="notes to list")


class NoArgs(_Arguments):
    """A tool that takes no arguments (``status``): any given is an error."""


def _options(args: BaseModel) -> search_options.SearchOptions:
    """The search settings named in ``args`` over the defaults (``preset`` first), as the
    command line builds them from its options."""
    given = args.model_dump(exclude_none=True, exclude={"query", "path", "preset"})
    base = search_options.SearchOptions()
    preset = getattr(args, "preset", None)
    if preset is not None:
        base = search_options.with_ranking_of(base, search_options.preset(preset))
    return search_options.SearchOptions.from_json(given, base)


# ----------------------------------------------------------------------------- the tools


@dataclass(frozen=True, slots=True)
class Reply:
    """A tool's answer: structured content, and the text an assistant reads."""

    data: dict[str, Any]
    text: str


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    arguments: type[BaseModel]
    answer: Callable[[VaultReader, Any], Reply]

    def tool(self) -> Tool:
        return Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.arguments.model_json_schema(),
            annotations=ToolAnnotations(
                title=self.title,
                read_only_hint=True,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
        )


def _search(reader: VaultReader, args: Any) -> Reply:
    options = _options(args)
    if args.depth is None:  # as `search` does: the lists at least as long as the hits asked for
        options = search_options.deep_enough(options)
    answer = reader.search(args.query, options)
    return Reply(answer.to_json(), search_text(answer))


def _get_note(reader: VaultReader, args: Any) -> Reply:
    note = reader.get_note(args.path, args.start_line, args.end_line, args.start_char)
    return Reply(note.to_json(), f"{safe_text(note.heading())}\n\n{note.text}")


def _related(reader: VaultReader, args: Any) -> Reply:
    result = reader.related(args.path, args.limit)
    return Reply(result.to_json(), related_text(result))


def _explain(reader: VaultReader, args: Any) -> Reply:
    explanation = reader.explain(args.query, args.path, _options(args))
    return Reply(explanation.to_json(), "\n".join(safe_text(line) for line in explanation.lines()))


def _status(reader: VaultReader, args: Any) -> Reply:
    data = reader.status()
    return Reply(data, status_text(data))


def _saved_searches(reader: VaultReader, args: Any) -> Reply:
    saved = SearchStore.of(reader.vault, reader.data).saved()
    data = {"saved": [{"name": name, **search.to_json()} for name, search in saved.items()]}
    if not saved:
        return Reply(
            data, "No saved searches: `vault-explorer search VAULT QUERY --save NAME` saves one."
        )
    return Reply(data, "\n".join(safe_text(search.line(name)) for name, search in saved.items()))


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "search",
            "Search the notes",
            "Search the vault's notes by words (full-text) and by meaning (embeddings), fused "
            "into one ranking. Each hit has its path, title, a snippet, its fused score, its "
            "rank in each list and each list's contribution. " + QUERY_SYNTAX,
            SearchArgs,
            _search,
        ),
        ToolSpec(
            "get_note",
            "Read a note",
            "The text of one note of the vault, by its vault-relative path (as search returns "
            "it), whole or a range of lines.",
            NoteArgs,
            _get_note,
        ),
        ToolSpec(
            "related",
            "Related notes",
            "The notes nearest in meaning to one note (linked to it or not), from the stored "
            "embeddings, with their cosine and whether they are already linked.",
            RelatedArgs,
            _related,
        ),
        ToolSpec(
            "explain",
            "Why this rank",
            "Why a note is where it is in a query's results, or why it is not there: filters, "
            "missing words, its rank in each list against the depth, the similarity floor, "
            "and the one setting that would bring it into the top N.",
            ExplainArgs,
            _explain,
        ),
        ToolSpec(
            "status",
            "Index status",
            "How complete the index is: notes, chunks, vectors and embeddings still pending, "
            "the model, skipped files, and whether a watcher keeps the index current.",
            NoArgs,
            _status,
        ),
        ToolSpec(
            "saved_searches",
            "Saved searches",
            "The searches the owner saved by name for this vault (in the window or with "
            "`search --save NAME`): each one's name, query and the settings that differ from "
            "the defaults, to run again with the search tool.",
            NoArgs,
            _saved_searches,
        ),
    )
}


# ----------------------------------------------------------------------------- the server


def tool_reply(
    reader: VaultReader, name: str, arguments: dict[str, Any], vault: Any, data: str | None
) -> dict[str, Any]:
    """The tool ``name``'s answer to ``arguments`` as the warm path's reply: ``data`` and
    ``text`` (:class:`Reply`), or ``error``, the line a call that failed says (its faults told of
    with ``vault`` and ``data``, the asking server's).  A bug is raised."""
    spec = TOOLS[name]
    try:
        args = spec.arguments.model_validate(arguments)
    except ValidationError as exc:
        return {"error": f"{spec.name}: {argument_errors(exc)}"}
    try:
        reply = spec.answer(reader, args)
    except Exception as exc:
        fault = classify(exc)
        if fault is Fault.BUG:
            raise
        return {"error": fault_line(exc, fault, vault, data)}
    return {"data": reply.data, "text": reply.text}


def warm_reply(reader: VaultReader, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The tool ``name``'s answer from a running ``watch`` or window of the same vault, index and
    model (:mod:`explorer.mcp.warm`), in :func:`tool_reply`'s shape, or ``None`` (said in
    the log) when none answers — then this server answers itself."""
    if name not in warm.TOOLS or warm.warm_off():
        return None
    fields = {**asked_for(reader.vault, reader.data, reader.provider.name), "arguments": arguments}
    answer = warm.ask(reader.path, f"tool.{name}", fields)
    if answer is None:
        return None
    log.info("%s answered by %s", name, answer.get("server", "a running process"))
    if isinstance(answer.get("error"), str):
        return {"error": answer["error"]}
    data, text = answer.get("data"), answer.get("text")
    if not isinstance(data, dict) or not isinstance(text, str):
        log.info("answering %s here: a reply without its answer", name)
        return None
    return {"data": data, "text": text}


def build_server(reader: VaultReader) -> Server[Any]:
    """The MCP server over ``reader``: the tools above, their calls answered off the event loop
    (so one waiting for the model does not hold up the others)."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=[spec.tool() for spec in TOOLS.values()])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        spec = TOOLS.get(params.name)
        if spec is None:
            raise MCPError(
                INVALID_PARAMS, f"unknown tool {params.name!r}; the tools are {', '.join(TOOLS)}"
            )
        arguments = params.arguments or {}
        try:
            spec.arguments.model_validate(arguments)  # a bad argument goes to no other process
        except ValidationError as exc:
            return _error(f"{spec.name}: {argument_errors(exc)}")
        answer = await anyio.to_thread.run_sync(warm_reply, reader, spec.name, arguments)
        if answer is None:
            try:
                answer = await anyio.to_thread.run_sync(
                    tool_reply, reader, spec.name, arguments, reader.vault, reader.data
                )
            except Exception as exc:  # a bug: said, logged, and the server goes on
                log.exception("%s failed", spec.name)
                return _error(f"{spec.name} failed: {type(exc).__name__}: {exc}")
        if "error" in answer:
            return _error(answer["error"])
        return CallToolResult(
            content=[TextContent(type="text", text=answer["text"])],
            structured_content=answer["data"],
        )

    server = Server(
        "vault-explorer",
        version=__version__,
        title="Vault Explorer",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.middleware.append(say_not_initialized)
    return server


#: What the SDK answers a request other than ``ping`` that comes before ``initialize``: the
#: shape its first version gave it, which reads as a fault in the request's params.
SDK_NOT_INITIALIZED = ErrorData(code=INVALID_PARAMS, message="Invalid request parameters", data="")
NOT_INITIALIZED = (
    "not initialized: send initialize first (then notifications/initialized); "
    "before it only ping is answered"
)


async def say_not_initialized(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
    """The SDK's refusal of a request before ``initialize``, said plainly: same code (a client
    may key on it), with a message that names the cause.  The SDK decides, at its own gate;
    this only rewords its answer."""
    try:
        return await call_next(ctx)
    except MCPError as exc:
        if exc.error != SDK_NOT_INITIALIZED or ctx.session.client_params is not None:
            raise
        raise MCPError(INVALID_PARAMS, NOT_INITIALIZED) from None


def _error(message: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=safe_text(message))], is_error=True
    )


def argument_errors(exc: ValidationError) -> str:
    """The arguments that do not fit the schema, one clause each (their values left out: a
    5,000-character value is not repeated back)."""
    clauses = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        clauses.append(f"{where}: {error['msg']}")
    return "; ".join(clauses)


#: Threads torch computes a query's embedding with, unless ``OMP_NUM_THREADS`` says otherwise.
#: The server embeds one short query at a time, beside the programs the person is using: with
#: one thread it takes tens of milliseconds however busy the cores are, while torch's default (a
#: thread per core) waits for a core another program holds.  Measured on the sample vault with 2
#: cores under a load average of ~10: a warm hybrid search 35-42 ms (median of 19) with one
#: thread, 950-1,010 ms with two.
QUERY_THREADS = 1


def serve(reader: VaultReader) -> int:
    """Serve ``reader`` over stdin and stdout until stdin closes and every request read from
    it is answered; exit status 0."""
    # Read by torch when it is imported, which is when the model first loads.
    os.environ.setdefault("OMP_NUM_THREADS", str(QUERY_THREADS))
    print(
        safe_text(
            f"vault-explorer mcp: serving {reader.vault} (index {reader.path}; model "
            f"{reader.provider.name}, loaded on first need; "
            f"{'syncs before a search' if reader.sync else 'read-only'}); stdin closed ends it"
        ),
        file=sys.stderr,
        flush=True,
    )
    try:
        anyio.run(_serve, build_server(reader))
    finally:
        reader.close()
    return 0


async def _serve(
    server: Server[Any],
    stdin: AsyncIterable[bytes] | None = None,
    stdout: anyio.AsyncFile[str] | None = None,
) -> None:
    """Serve ``server`` over the lines of ``stdin`` (default: the process's) until it ends and
    every request read from it has its answer on ``stdout`` (default: the process's)."""
    # The SDK's transport writes the answers (and points fd 1 at stderr meanwhile); it reads
    # nothing: `Framing` reads stdin.
    try:
        async with stdio_server(anyio.wrap_file(io.StringIO()), stdout) as (_, out):
            framing = Framing(out)
            to_server, inbox = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            from_server, answers = anyio.create_memory_object_stream[SessionMessage](0)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(
                    framing.read, stdin or anyio.wrap_file(sys.stdin.buffer), to_server
                )
                tasks.start_soon(framing.write, answers)
                await server.run(inbox, from_server, server.create_initialization_options())
    except* BrokenPipeError:
        # The client closed its end of stdout: nobody is left to read the answers.
        log.warning("stdout closed by the client; the answers still to come are dropped")


# ----------------------------------------------------------------------------- text


_MARK = re.compile(r"</?mark>")


def plain_snippet(snippet: str) -> str:
    """A snippet without its markup: the ``<mark>`` tags gone, the HTML escapes undone."""
    return " ".join(html.unescape(_MARK.sub("", snippet)).split())


def search_text(answer: Answer) -> str:
    """The hits for an assistant to read: one line a hit (path — title, fused score, each
    list's rank and contribution) and its snippet."""
    response = answer.response
    o = response.options
    sem = response.semantic
    if response.listing:
        head = response.listing_text()
    else:
        settings = ", ".join(f"{k}={v}" for k, v in o.to_json().items() if k != "limit")
        meaning = (
            f"by meaning with {sem.model}"
            if sem.available
            else f"lexical only ({sem.reason})"
            if o.mode != Mode.FTS
            else "lexical"
        )
        head = f"{len(response.hits)} hits for {response.query!r} — {meaning}; {settings}"
    # An assistant reads the first line first: hits none of which is close are said to be so.
    verdict = closeness(response, repr(response.query))
    lines = [verdict, head] if verdict else [head]
    lines.extend(f"note: {line}" for line in response.notes)  # a filter not read as written
    if answer.waiting and not response.listing:
        lines.append(f"({waiting_text(answer.waiting)})")
    for i, hit in enumerate(response.hits, start=1):
        parts = []
        if hit.fts_rank is not None:
            found = f", {hit.fts_pass}" if hit.fts_pass else ""
            parts.append(f"words #{hit.fts_rank} +{hit.contributions.get('fts', 0.0):.4f}{found}")
        if hit.vector_rank is not None:
            parts.append(f"meaning #{hit.vector_rank} +{hit.contributions.get('vector', 0.0):.4f}")
        if hit.title_match is not None:
            named = "alias" if hit.title_match.alias else "title"
            said = f"{named} {hit.title_match.closeness} +{hit.contributions.get('title', 0.0):.4f}"
            parts.append(said)
        why = f" [{hit.fused_score:.4f}: {'; '.join(parts)}]" if parts else ""
        stale = " (stale)" if hit.demoted else ""
        lines.append(f"{i}. {hit.path} — {hit.title}{stale}{why}")
        if hit.snippet:
            lines.append(f"   {plain_snippet(hit.snippet)}")
    if not response.hits:
        lines.append("no results")
    return "\n".join(safe_text(line) for line in lines)


def related_text(result: RelatedNotes) -> str:
    lines = [f"notes nearest in meaning to {result.path} — {result.title}"]
    if result.reason is not None:
        lines.append(f"none: {result.reason}")
    for i, note in enumerate(result.notes, start=1):
        mark = LINK_MARK.get(note.direction, "") if result.links_known else ""
        linked = f" {mark}" if mark else ""
        lines.append(f"{i}. {note.path} — {note.title} (cosine {note.cosine:.4f}){linked}")
    if result.reason is None and not result.notes:
        lines.append("no other note is near it in meaning")
    return "\n".join(safe_text(line) for line in lines)


def status_text(data: dict[str, Any]) -> str:
    server = data["server"]
    model = f"model {server['model']} ({server['modelState']})"
    if not data["indexed"]:
        return safe_text(
            f"{data['vault']} is not indexed yet (run: {data['indexCommand']}); " + model
        )
    watcher = data.get("watcher") or {}
    keeper = (
        f"kept current by {watcher.get('role') or 'a watcher'} (pid {watcher.get('pid')}, "
        f"{watcher.get('state')})"
        if watcher.get("state") not in (None, "stopped")
        else "no watcher keeps it current"
    )
    lines = [
        f"{data['vault']}: {data['notes']} notes, {data['chunks']} chunks",
        f"{data['vectors']} vectors, {data['pendingEmbeddings']} waiting for embeddings; {model}",
        f"index {keeper}; {len(data['skipped'])} files skipped",
    ]
    return "\n".join(safe_text(line) for line in lines)
