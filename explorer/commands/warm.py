"""The warm command line: ``search``, ``explain`` and ``related`` answered by a running
``watch`` or window of the same vault, which has the model loaded already.

The client (:func:`answer`, called by :func:`explorer.commands.program.main`) sends the parsed
arguments over the vault's socket (:mod:`explorer.live.serve`) and prints what comes back; with
no server to ask — none running, a dead socket, another version, another model, ``AF_UNIX``
missing, ``VAULT_EXPLORER_WARM=0`` — it returns ``None`` and the command works alone.  The server
(:func:`serve`) runs the very command the client would have run (:func:`explorer.commands.common.
run`), on its own thread with that thread's standard output and error captured, and sends the
text and the exit status back: the output is the same either way.
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from explorer.commands import explain, related, search
from explorer.commands.common import run
from explorer.embed.sbert import model_name
from explorer.home import expand_home
from explorer.index.db import data_dir, index_path
from explorer.live import serve

log = logging.getLogger(__name__)

#: ``0`` turns the warm path off: every command works alone.
ENV_WARM = "VAULT_EXPLORER_WARM"

#: The commands a server answers, and the function each runs.
COMMANDS = {
    "search": search.cmd_search,
    "explain": explain.cmd_explain,
    "related": related.cmd_related,
}
OPERATIONS = frozenset(COMMANDS)

#: What of the parsed arguments stays in the asking process.
_LOCAL = frozenset({"func", "gui_runner", "verbose"})


def answer(args: argparse.Namespace) -> int | None:
    """Have a running watch or window answer ``args``' command: its exit status once its
    output is written, or ``None`` when the command has to work alone."""
    if args.command not in OPERATIONS or os.environ.get(ENV_WARM, "").strip() == "0":
        return None
    try:
        vault = expand_home(args.vault)
        if not vault.is_dir():
            return None  # the command says so itself
        vault = vault.resolve()
        index = index_path(vault, args.data_dir)
    except (OSError, ValueError, RuntimeError):
        return None
    fields = {k: v for k, v in vars(args).items() if k not in _LOCAL}
    fields["vault"] = str(vault)
    if args.data_dir is not None:
        fields["data_dir"] = str(data_dir(args.data_dir))
    fields["model_name"] = model_name(args.model)
    reply = serve.ask(index, args.command, fields)
    if reply is None:
        return None
    out, err, status = reply.get("stdout"), reply.get("stderr"), reply.get("status")
    if not (isinstance(out, str) and isinstance(err, str) and isinstance(status, int)):
        log.info("working alone: a reply without output")
        return None
    log.info("answered by %s", reply.get("server", "a running process"))
    sys.stderr.write(err)
    sys.stderr.flush()
    sys.stdout.write(out)
    sys.stdout.flush()
    return status


class _ThreadStreams(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` for a serving process: a thread answering a request writes
    into its own buffer, every other thread into the stream that was there."""

    def __init__(self, real: TextIO | None, local: threading.local, name: str) -> None:
        self.real = real
        self.local = local
        self.name = name

    def _target(self) -> TextIO | None:
        buffer: TextIO | None = getattr(self.local, self.name, None)
        return buffer if buffer is not None else self.real

    def write(self, text: str) -> int:
        target = self._target()
        return len(text) if target is None else target.write(text)

    def flush(self) -> None:
        target = self._target()
        if target is not None:
            target.flush()

    def fileno(self) -> int:
        if self.real is None:
            raise OSError("no stream")
        return self.real.fileno()

    def isatty(self) -> bool:
        return getattr(self.local, self.name, None) is None and bool(
            self.real is not None and self.real.isatty()
        )


class _Streams:
    """The process's :class:`_ThreadStreams`, in place while any server runs."""

    def __init__(self) -> None:
        self.local = threading.local()
        self._lock = threading.Lock()
        self._users = 0
        self._saved: tuple[TextIO, TextIO] | None = None
        self._ours: tuple[object, object] | None = None

    def take(self) -> None:
        with self._lock:
            self._users += 1
            if self._users == 1:
                self._saved = (sys.stdout, sys.stderr)
                out = _ThreadStreams(sys.stdout, self.local, "stdout")
                err = _ThreadStreams(sys.stderr, self.local, "stderr")
                self._ours = (out, err)
                sys.stdout, sys.stderr = out, err

    def give_back(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._saved is not None:
                if (sys.stdout, sys.stderr) == self._ours:  # nobody replaced them since
                    sys.stdout, sys.stderr = self._saved
                self._saved = self._ours = None


_streams = _Streams()


class WarmServer:
    """The server of one vault's index in this process (``watch``, the window), answering with
    the model named ``model`` (its provider's name: a request for another works alone).
    :meth:`start` says whether it serves; :meth:`stop` removes the socket."""

    def __init__(
        self, vault: Path, data: str | os.PathLike[str] | None, model: str, role: str
    ) -> None:
        self.vault = vault.resolve()
        self.index = index_path(self.vault, data)
        self.model = model
        self.role = f"{role} (pid {os.getpid()})"
        self._server = serve.Server(self.index, self._handle, OPERATIONS)

    @property
    def path(self) -> Path | None:
        return self._server.path

    @property
    def reason(self) -> str:
        return self._server.reason

    def start(self) -> bool:
        _streams.take()
        if self._server.start():
            return True
        _streams.give_back()
        return False

    def stop(self) -> None:
        if self._server.serving:
            self._server.stop()
            _streams.give_back()

    def _handle(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        if fields.get("model_name") != self.model:
            raise serve.Refused(f"this server has the model {self.model}")
        if index_path(Path(str(fields.get("vault"))), fields.get("data_dir")) != self.index:
            raise serve.Refused("a request for another index")
        args = argparse.Namespace(**fields)
        args.command = op
        args.func = COMMANDS[op]
        args.gui_runner = None
        args.verbose = 0
        out, err = io.StringIO(), io.StringIO()
        _streams.local.stdout, _streams.local.stderr = out, err
        try:
            status = run(args)
        finally:
            _streams.local.stdout = _streams.local.stderr = None
        log.info("answered %s for the command line", op)
        return {
            "stdout": out.getvalue(),
            "stderr": err.getvalue(),
            "status": status,
            "server": self.role,
        }


def serve_vault(
    vault: Path, data: str | os.PathLike[str] | None, model: str, role: str
) -> WarmServer | None:
    """Start answering the command line for ``vault``: the running server, or ``None`` (said
    in the log) when this process cannot serve."""
    server = WarmServer(vault, data, model, role)
    return server if server.start() else None
