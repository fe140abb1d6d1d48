"""What ``search``, ``explain`` and ``related`` ask of a vault, as data, and what they answer.

A command parses its words once (:mod:`explorer.commands.program`) into one of the typed
requests below.  Whoever answers it — the command's own process, or a running ``watch`` or
window of the same vault over the warm path (:mod:`explorer.mcp.warm`) — answers it with
:func:`explorer.mcp.answers.answer`, through the :class:`~explorer.mcp.reader.VaultReader` the
MCP tools use, and gets an :class:`Answered`: the JSON ``--json`` prints, the lines printed
without it, the notes said on standard error, or the one line of a fault.  The command prints it
(:func:`explorer.commands.warm.show`) the same way whoever answered: the output is the same
either way by construction, not by two renderings kept in step.

A request and its answer cross the socket as JSON (:meth:`Answered.to_wire`,
:func:`request_from_wire`); no stream is redirected and no command runs in the serving
process.  This module is the asking side's: light (no numpy, no reader, no search), so that a
command a running watch answers loads none of them; the answering is in
:mod:`explorer.mcp.answers`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from explorer.errors import UserError
from explorer.index.db import data_dir
from explorer.search.answers.related_limits import MAX_LIMIT
from explorer.search.query.options import SearchOptions


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
