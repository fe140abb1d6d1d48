"""What ``search``, ``explain`` and ``related`` ask of a vault, as data, and what they answer.

A command parses its words once (:mod:`explorer.commands.program`) into one of the typed
requests below.  Whoever answers it — the command's own process, or a running ``watch`` or
window of the same vault over the warm path (:mod:`explorer.mcp.warm`) — answers it with
:func:`answer`, through the :class:`~explorer.mcp.reader.VaultReader` the MCP tools use, and
gets an :class:`Answered`: the JSON ``--json`` prints, the lines printed without it, the notes
said on standard error, or the one line of a fault.  The command prints it
(:func:`explorer.commands.warm.show`) the same way whoever answered: the output is the same
either way by construction, not by two renderings kept in step.

A request and its answer cross the socket as JSON (:meth:`Answered.to_wire`,
:func:`request_from_wire`); no stream is redirected and no command runs in the serving
process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from explorer.errors import Fault, UserError, classify
from explorer.index.db import data_dir, index_command
from explorer.live.problems import fault_line
from explorer.mcp.reader import VaultReader
from explorer.search.answers.answer import Answer, waiting_text
from explorer.search.answers.related import LINK_MARK, MAX_LIMIT, RelatedNotes
from explorer.search.answers.verdict import closeness
from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import Mode, SearchOptions


class BadRequest(UserError):
    """A request whose fields do not make one of the requests below."""


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """``search VAULT QUERY``: the query and its settings, saved searches already applied."""

    query: str
    options: SearchOptions
    op: ClassVar[str] = "search"

    def fields(self) -> dict[str, Any]:
        return {"query": self.query, "options": self.options.to_json()}


@dataclass(frozen=True, slots=True)
class ExplainRequest:
    """``explain VAULT QUERY NOTE_PATH``: why the note at ``path`` is where it is."""

    query: str
    path: str
    options: SearchOptions
    op: ClassVar[str] = "explain"

    def fields(self) -> dict[str, Any]:
        return {"query": self.query, "path": self.path, "options": self.options.to_json()}


@dataclass(frozen=True, slots=True)
class RelatedRequest:
    """``related VAULT NOTE_PATH``: the ``limit`` notes nearest in meaning to ``path``."""

    path: str
    limit: int
    op: ClassVar[str] = "related"

    def fields(self) -> dict[str, Any]:
        return {"path": self.path, "limit": self.limit}


Request = SearchRequest | ExplainRequest | RelatedRequest

#: The operations of the warm path that are a command's request, by name.
OPERATIONS = frozenset({SearchRequest.op, ExplainRequest.op, RelatedRequest.op})


def request_from_wire(op: str, fields: dict[str, Any]) -> Request:
    """The request ``op`` with ``fields`` (:meth:`SearchRequest.fields`, …), checked;
    :class:`BadRequest` when they do not make one."""
    query, path = fields.get("query"), fields.get("path")
    try:
        if op == RelatedRequest.op:
            limit = fields.get("limit")
            if not isinstance(path, str) or type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
                raise BadRequest("related needs a path and a limit")
            return RelatedRequest(path, limit)
        options = fields.get("options")
        if not isinstance(query, str) or not isinstance(options, dict):
            raise BadRequest(f"{op} needs a query and its settings")
        settings = SearchOptions.from_json(options)
        if op == SearchRequest.op:
            return SearchRequest(query, settings)
        if op == ExplainRequest.op and isinstance(path, str):
            return ExplainRequest(query, path, settings)
    except BadRequest:
        raise
    except Exception as exc:  # a setting out of its bounds: not this program's request
        raise BadRequest(f"{op}: {exc}") from None
    raise BadRequest(f"unknown request {op!r}")


def asked_for(vault: Path, data: str | None, model: str) -> dict[str, Any]:
    """The fields that say which index and model a request is for: ``vault`` (absolute), the
    data folder as the asking process names it (``data``: its lines name it so) and as the
    folder it is, and the model's name."""
    return {"vault": str(vault), "data": data, "data_dir": str(data_dir(data)), "model": model}


@dataclass(frozen=True, slots=True)
class Answered:
    """A request's answer as the command prints it: ``data`` with ``--json``, else ``lines``;
    ``notes`` on standard error after it.  A request that failed has only ``error`` (its one
    line, without the program's name) and ``status`` (2: bad input, 1: the machine)."""

    data: dict[str, Any] | None = None
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    status: int = 0

    def to_wire(self) -> dict[str, Any]:
        return {
            "data": self.data,
            "lines": self.lines,
            "notes": self.notes,
            "error": self.error,
            "status": self.status,
        }

    @classmethod
    def from_wire(cls, reply: dict[str, Any]) -> Answered | None:
        """The answer in a server's ``reply``, or ``None`` when it holds none."""
        data, lines, notes = reply.get("data"), reply.get("lines"), reply.get("notes")
        error, status = reply.get("error"), reply.get("status")
        if not (
            (data is None or isinstance(data, dict))
            and isinstance(lines, list)
            and isinstance(notes, list)
            and all(isinstance(line, str) for line in [*lines, *notes])
            and (error is None or isinstance(error, str))
            and type(status) is int
        ):
            return None
        return cls(data, lines, notes, error, status)


def answer(reader: VaultReader, request: Request, vault: Path, data: str | None) -> Answered:
    """``request`` answered by ``reader``, the lines and notes naming the vault as the asking
    command named it (``vault``, its data folder ``data``).  The person's error or the
    machine's is an :class:`Answered` with its line; a bug is raised."""
    try:
        if isinstance(request, SearchRequest):
            found = reader.search(request.query, request.options)
            return Answered(
                found.to_json(), table_lines(found.response), waiting(found, vault, data)
            )
        if isinstance(request, ExplainRequest):
            why = reader.explain(request.query, request.path, request.options)
            return Answered(why.to_json(), why.lines())
        near = reader.related(request.path, request.limit)
        return Answered(near.to_json(), related_lines(near, vault, data))
    except Exception as exc:
        fault = classify(exc)
        if fault is Fault.BUG:
            raise
        return Answered(
            error=fault_line(exc, fault, vault, data), status=2 if fault is Fault.USER else 1
        )


# ----------------------------------------------------------------------------- the text


def waiting(found: Answer, vault: Path, data: str | None) -> list[str]:
    """The note a search's answer leaves when chunks still wait for their vectors."""
    if not found.waiting or found.response.listing:
        return []
    using = "results use the vectors that exist" if found.any_vectors else "results are lexical"
    return [
        f"vault-explorer: {waiting_text(found.waiting)}; run `{index_command(vault, data)}` "
        f"(or `watch`) to embed them — {using}"
    ]


def table_lines(response: SearchResponse) -> list[str]:
    """The readable form of a response: one row a hit, scores to five decimals."""
    out: list[str] = []
    sem = response.semantic
    mode = response.options.mode
    if mode != Mode.FTS and not sem.available and not response.listing:
        out.append(f"(semantic unavailable: {sem.reason}; showing the lexical result)")
    if response.listing:
        out.append(response.listing_text())
    elif response.hits:
        shown = response.query if len(response.query) <= 60 else response.query[:57] + "…"
        if (verdict := closeness(response, f"‘{shown}’")) is not None:
            out.append(verdict)
    recency = bool(response.options.recency) and not response.listing  # a third contribution
    titled = any("title" in hit.contributions for hit in response.hits)  # a name matches
    out.append(
        f"{'#':>3}  {'fused':>7}  {'fts':>7}  {'vector':>7}  "
        + (f"{'title':>7}  " if titled else "")
        + (f"{'recency':>7}  " if recency else "")
        + f"{'fts#':>4}  {'vec#':>4}  {'source':<6}  path — title"
    )
    for i, hit in enumerate(response.hits, start=1):
        # Sorted otherwise, each hit keeps its fused rank (the window's #).
        rank = hit.fused_rank or i
        c = hit.contributions
        out.append(
            f"{rank:>3}  {hit.fused_score:7.5f}  {c.get('fts', 0.0):7.5f}  "
            f"{c.get('vector', 0.0):7.5f}  "
            + (f"{c.get('title', 0.0):7.5f}  " if titled else "")
            + (f"{c.get('recency', 0.0):7.5f}  " if recency else "")
            + f"{_rank(hit.fts_rank):>4}  {_rank(hit.vector_rank):>4}  {hit.source or '':<6}  "
            f"{hit.path} — {hit.title}{'  [stale]' if hit.demoted else ''}"
        )
    if not response.hits:
        out.append("no results")
    return out


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


def related_lines(result: RelatedNotes, vault: Path, data: str | None) -> list[str]:
    """One line a note: rank, cosine to four decimals, whether it is linked, path — title."""
    out = [f"related to {result.path} — {result.title}"]
    if result.reason is not None:
        out.append(f"no related notes: {result.reason} (run `{index_command(vault, data)}`)")
        return out
    out.append(f"{'#':>3}  {'cosine':>6}  {'link':<8}  path — title")
    for i, note in enumerate(result.notes, start=1):
        mark = LINK_MARK.get(note.direction, "") if result.links_known else "?"
        out.append(f"{i:>3}  {note.cosine:6.4f}  {mark:<8}  {note.path} — {note.title}")
    if not result.notes:
        out.append("no other note is near it in meaning (every cosine is 0 or below)")
    return out
