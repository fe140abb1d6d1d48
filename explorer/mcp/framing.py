"""The protocol's lines on stdin (:class:`Framing`): each line read as one message for the
SDK or answered here with its JSON-RPC error, and stdin's end held back until every request read
has its answer.  Why the SDK's own stdio reading is not used: :class:`Framing`'s docstring."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import AsyncIterable
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream
from mcp.shared._stream_protocols import WriteStream
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError


class Framing:
    """The protocol's lines, in one place: each line of stdin becomes a message for the SDK or
    is answered here, and the SDK's answers pass through here to ``out`` (the transport's
    writer).

    The SDK's stdio transport would misread some lines and its session would drop answers:
    a lone surrogate (a JSON string cut inside an emoji) fails its JSON parser, so the request
    got a parse error without its id; a request whose id is no string or integer passes as a
    notification and gets nothing; and when stdin ends it cancels the requests still running.
    So stdin is parsed with :func:`read_line`, and when it ends the SDK is told only once
    every request read has been answered (:attr:`unanswered` counts them, by id).
    """

    def __init__(self, out: WriteStream[SessionMessage]) -> None:
        self.out = out
        #: Requests passed to the SDK and not answered yet, by id as the SDK correlates them.
        self.unanswered: Counter[RequestId] = Counter()
        self.reading = True
        #: Set when stdin has ended and every request read from it has been answered.
        self.done = anyio.Event()

    async def read(
        self, stdin: AsyncIterable[bytes], to_server: WriteStream[SessionMessage]
    ) -> None:
        async with to_server:  # closing it ends the SDK's session (and cancels what still runs)
            async for line in stdin:
                item = read_line(line)
                if isinstance(item, JSONRPCError):
                    await self.out.send(SessionMessage(item))
                    continue
                self._note(item.message)
                await to_server.send(item)
            self.reading = False
            self._check_done()
            await self.done.wait()

    async def write(self, answers: ObjectReceiveStream[SessionMessage]) -> None:
        async with self.out, answers:  # the transport's writer ends once it has written all
            async for item in answers:
                await self.out.send(item)
                message = item.message
                if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
                    self._settle(message.id)

    def _note(self, message: JSONRPCMessage) -> None:
        if isinstance(message, JSONRPCRequest):
            self.unanswered[coerce_request_id(message.id)] += 1
        elif (
            isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled"
        ):
            # A request the client cancels is never answered (the spec says so).
            cancelled = as_request_id((message.params or {}).get("requestId"))
            if cancelled is not None:
                self._settle(cancelled)

    def _settle(self, request_id: RequestId) -> None:
        key = coerce_request_id(request_id)
        if self.unanswered[key] > 0:
            self.unanswered[key] -= 1
        self._check_done()

    def _check_done(self) -> None:
        if not self.reading and self.unanswered.total() == 0:
            self.done.set()


def read_line(line: bytes) -> SessionMessage | JSONRPCError:
    """The message a line of stdin holds, or the JSON-RPC error that answers it.

    Bytes that are not UTF-8 and escaped lone surrogates (``"\\ud83d"``: JSON, but no text)
    are read as U+FFFD, as the text they stand in: a query is searched whatever it holds.
    A request's id is the exception: the answer must carry it back as it was, so an id that is
    not a string or an integer, or holds a lone surrogate, makes the request invalid."""
    try:
        data = json.loads(line.decode("utf-8", errors="replace"), parse_constant=_not_json)
        if isinstance(data, dict) and "method" in data and "id" in data:
            if not _usable_id(data["id"]):
                return _invalid_request("Invalid Request: the id must be a string or an integer")
            data = {**without_surrogates(data), "id": data["id"]}
        else:
            data = without_surrogates(data)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python parses
        return _parse_error()
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_python(data, by_name=False))
    except ValidationError as exc:
        return not_json_rpc(exc)


_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with each lone surrogate of its strings replaced by U+FFFD
    (JSON decoding pairs the halves that belong together, so any surrogate left is lone)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    return value


def _usable_id(value: object) -> bool:
    """MCP ids are strings or integers (not null, unlike JSON-RPC's), written back verbatim."""
    if isinstance(value, str):
        return not _SURROGATE.search(value)
    return as_request_id(value) is not None


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _parse_error() -> JSONRPCError:
    return JSONRPCError(
        jsonrpc="2.0",
        id=None,
        error=ErrorData(code=PARSE_ERROR, message="Parse error: the line is not JSON"),
    )


def _invalid_request(message: str, request_id: RequestId | None = None) -> JSONRPCError:
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=INVALID_REQUEST, message=message)
    )


def not_json_rpc(exc: Exception) -> JSONRPCError:
    """The JSON-RPC error for a line that is no JSON-RPC message: a parse error for text that
    is not JSON, an invalid request (with its id, when it has one) for JSON that is not a
    message."""
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if not errors or any(e["type"] == "json_invalid" for e in errors):
        return _parse_error()
    ids = [
        e["input"]["id"]
        for e in errors
        if isinstance(e.get("input"), dict) and _usable_id(e["input"].get("id"))
    ]
    return _invalid_request("Invalid Request: not a JSON-RPC message", ids[0] if ids else None)
