"""A client that speaks JSON-RPC to an MCP server line by line, for what the SDK's client never
sends: text that is not JSON, messages that are not JSON-RPC.  Every line the server writes to
stdout is parsed: anything that is not a JSON-RPC message fails the test."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: A safety net for a server that does not answer (a passing test never waits this long).
SAFETY_S = 60


class LineClient:
    """``command`` started with pipes (in ``cwd``); stderr goes to ``log``."""

    def __init__(
        self,
        command: Sequence[str | Path],
        env: dict[str, str],
        log: Path,
        cwd: Path | None = None,
    ) -> None:
        self.log = log
        with log.open("ab") as err:
            self.proc = subprocess.Popen(
                [str(c) for c in command],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                cwd=cwd,
                text=True,
                encoding="utf-8",
            )
        self._next_id = 0
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read_lines, daemon=True)
        self._reader.start()

    def _read_lines(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put("")  # end of output

    def send(self, message: dict[str, Any] | str, *, end: str = "\n") -> None:
        """Write one line: a message as JSON, or a string as it is; ``end=""`` leaves the line
        unfinished (as the last line of a file without a final newline is)."""
        line = message if isinstance(message, str) else json.dumps(message)
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + end)
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        """The next line of stdout, which must be a JSON-RPC 2.0 message."""
        try:
            line = self._lines.get(timeout=SAFETY_S)
        except queue.Empty:
            raise AssertionError(f"no answer within {SAFETY_S} s") from None
        assert line, f"the server closed stdout; its log:\n{self.log.read_text()}"
        message = json.loads(line)
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line
        return message

    def answer_to(self, request_id: object) -> dict[str, Any]:
        """The response to ``request_id`` (notifications on the way are skipped)."""
        while True:
            message = self.read()
            if "id" in message and message["id"] == request_id:
                return message

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.answer_to(self._next_id)

    def initialize(self) -> dict[str, Any]:
        """The handshake as a desktop client does it; the server's ``initialize`` result."""
        answer = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer["result"]

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``: the JSON-RPC response (``result`` or ``error``)."""
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def close(self) -> int:
        """Close stdin: the server must exit by itself; its exit status."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        status = self.proc.wait(SAFETY_S)
        self._reader.join(SAFETY_S)
        rest = []
        while (line := self._lines.get_nowait()) != "":
            rest.append(line)
        assert not rest, f"more on stdout after the last answer: {rest!r}"
        return status

    def finish(self) -> tuple[list[dict[str, Any]], int]:
        """Close stdin without waiting for any answer: every message the server writes until
        it exits (each a JSON-RPC message), and its exit status."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        status = self.proc.wait(SAFETY_S)
        self._reader.join(SAFETY_S)
        messages = []
        while (line := self._lines.get_nowait()) != "":
            message = json.loads(line)
            assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line
            messages.append(message)
        return messages, status

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
