"""The warm path's server: a running ``watch`` or window answers the requests of ``search``,
``explain`` and ``related`` (:mod:`explorer.mcp.requests`) and the MCP server's tools for its
vault, with the model it has loaded and the one :class:`~explorer.live.reader.IndexReader` it
holds (the window's own; a watch's, made for this) — its vector matrix read once, kept current
between requests, never read again per request.

One protocol (:mod:`explorer.live.serve`, versioned), two kinds of operations:

- ``search``, ``explain``, ``related``: a command's typed request, parsed by the asking process
  (:mod:`explorer.commands.program`) and answered here with :func:`explorer.mcp.answers.answer`
  — the function the command runs when it works alone — as data the asking process prints.
- ``tool.search``, ``tool.explain``, ``tool.related``: an MCP tool's call
  (:mod:`explorer.mcp.server`), answered with the tool's JSON and text.

Each request names the vault, the data folder and the model as the asking process resolved
them (:func:`explorer.commands.program.settle`); one for another index or model is refused, and
the asker works alone.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from explorer.embed.provider import EmbedderProvider, ModelState, shared_provider
from explorer.index.db import index_path
from explorer.live import serve
from explorer.live.reader import IndexReader
from explorer.live.writer import LiveIndex
from explorer.mcp.answers import answer
from explorer.mcp.reader import VaultReader
from explorer.mcp.requests import OPERATIONS as REQUESTS
from explorer.mcp.requests import BadRequest, request_from_wire

log = logging.getLogger(__name__)

#: The operations of the protocol: a command's request, or an MCP tool's call.
OPERATIONS = frozenset({*REQUESTS, *(f"tool.{name}" for name in serve.TOOLS)})


class WarmServer:
    """The server of one vault's index in this process (``watch``, the window), answering with
    ``provider`` (the model loaded here: a request for another works alone) through ``reader``
    (the process's one reader of the index; default: one of its own).  :meth:`start` says
    whether it serves; :meth:`stop` removes the socket."""

    def __init__(
        self,
        vault: Path,
        data: str | os.PathLike[str] | None,
        provider: EmbedderProvider,
        role: str,
        reader: IndexReader | None = None,
        writer: LiveIndex | None = None,
    ) -> None:
        self.provider = provider
        self.vault = vault.resolve()
        self.data = None if data is None else str(data)
        self.index = index_path(self.vault, self.data)
        self.role = f"{role} (pid {os.getpid()})"
        self.reader = VaultReader(self.vault, self.data, provider, reader=reader, writer=writer)
        self._server = serve.Server(self.index, self._handle, OPERATIONS, self._delay)

    @property
    def path(self) -> Path | None:
        return self._server.path

    @property
    def reason(self) -> str:
        return self._server.reason

    @property
    def accepted(self) -> int:
        """Requests accepted so far, answered or not yet (tests)."""
        return self._server.accepted

    @property
    def answered(self) -> int:
        """Requests answered so far (tests, bench)."""
        return self._server.answered

    def idle(self) -> float:
        """Seconds since the last request (or since it started serving)."""
        return self._server.idle()

    def start(self) -> bool:
        return self._server.start()

    def stop(self) -> None:
        if self._server.serving:
            self._server.stop()
        self.reader.close()

    def _delay(self) -> str | None:
        """Why an answer may take a while: the model is not loaded yet, or the index is being
        caught up with the vault (made, on a new vault)."""
        if self.provider.state in (ModelState.IDLE, ModelState.LOADING):
            return f"loading its model {self.provider.name}"
        writer = self.reader.writer
        if writer is not None and not writer.caught_up:
            return "bringing its index up to date with the vault"
        return None

    def _handle(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        vault, data = self._check(fields)
        if op in REQUESTS:
            request = fields.get("request")
            try:
                asked = request_from_wire(op, request if isinstance(request, dict) else {})
            except BadRequest as exc:
                raise serve.Refused(str(exc)) from None
            reply = answer(self.reader, asked, vault, data).to_wire()
        else:
            from explorer.mcp.server import tool_reply  # the SDK: only for a tool's call

            arguments = fields.get("arguments")
            if not isinstance(arguments, dict):
                raise serve.Refused("a tool call without arguments")
            # Its faults are told of with the asking server's vault and data folder.
            reply = tool_reply(self.reader, op.removeprefix("tool."), arguments, vault, data)
        log.info("answered %s", op)
        return {**reply, "server": self.role}

    def _check(self, fields: dict[str, Any]) -> tuple[Path, str | None]:
        """The vault and data folder a request names, when they are this server's index and
        its model is this server's; :class:`serve.Refused` otherwise."""
        vault, data, folder = fields.get("vault"), fields.get("data"), fields.get("data_dir")
        if not (
            isinstance(vault, str) and isinstance(folder, str) and isinstance(data, str | None)
        ):
            raise serve.Refused("a request without its vault")
        if fields.get("model") != self.provider.name:
            raise serve.Refused(f"this server has the model {self.provider.name}")
        if index_path(Path(vault), folder) != self.index:
            raise serve.Refused("a request for another index")
        return Path(vault), data


def serve_vault(
    vault: Path,
    data: str | os.PathLike[str] | None,
    role: str,
    provider: EmbedderProvider | None = None,
    reader: IndexReader | None = None,
    writer: LiveIndex | None = None,
) -> WarmServer | None:
    """Start answering the commands and the MCP tools for ``vault`` with ``provider`` (default:
    the process's shared model) and ``reader`` (default: one of the server's own, waiting for
    ``writer`` to make the index, when it is given): the running server, or ``None`` (said in
    the log) when this process cannot serve."""
    server = WarmServer(vault, data, provider or shared_provider(None), role, reader, writer)
    if server.start():
        return server
    server.reader.close()
    return None
