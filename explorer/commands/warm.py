"""The warm command line: ``search``, ``explain``, ``related`` and the MCP server's tools answered
by a running ``watch`` or window of the same vault, which has the model loaded already.

One protocol (:mod:`explorer.live.serve`, versioned), two kinds of named operations:

- ``command``: a command line.  The client (:func:`answer`, called by :func:`explorer.entry.main`
  before any command module is imported) sends the words as typed, its working folder and the
  settings it read from the environment; the server parses them with the real parser
  (:func:`explorer.commands.program.build_parser`), runs the very command the client would have
  run (:func:`explorer.commands.common.run`) on its own thread with that thread's standard
  output and error captured, and sends the text and the exit status back: the output is the same
  either way, a usage error included.  ``--help`` and ``--version`` never go warm (their text
  depends on the terminal).
- ``search``, ``explain``, ``related``: an MCP tool's call (:mod:`explorer.mcp.server`), answered
  with the tool's JSON and text by the server's own :class:`~explorer.mcp.reader.VaultReader`.

The client finds the socket from the words alone: the data folder (``--data-dir``,
``$VAULT_EXPLORER_DATA`` or the default) and each word after the command that names a folder —
the server checks that the request is for its index and model, and refuses it otherwise.  With
no server to ask — none running, a dead socket, another version, another model or index,
``AF_UNIX`` missing, ``VAULT_EXPLORER_WARM=0`` — the client gets ``None`` and works alone.

This module imports nothing heavy at its top: the client side costs a few milliseconds.
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from explorer.home import expand_home
from explorer.index.db import ENV_DATA_DIR, data_dir, index_path
from explorer.live import serve

log = logging.getLogger(__name__)

#: ``0`` turns the warm path off: every command works alone.
ENV_WARM = serve.ENV_WARM

#: ``$VAULT_EXPLORER_MODEL`` (:data:`explorer.embed.sbert.ENV_MODEL`, not imported: too heavy).
ENV_MODEL = "VAULT_EXPLORER_MODEL"

#: The commands a server answers.
COMMANDS = frozenset({"search", "explain", "related"})

#: The MCP tools a server answers.
TOOLS = serve.TOOLS

#: The operations of the protocol: a command line, or an MCP tool's call.
COMMAND_OP = "command"
OPERATIONS = frozenset({COMMAND_OP, *(f"tool.{name}" for name in TOOLS)})

#: The settings a command reads from the environment, sent along with its words.
_ENVIRONMENT = (ENV_DATA_DIR, ENV_MODEL)

#: The global options that take a value (the words before the command).
_VALUED = ("--data-dir", "--model")


def answer(argv: Sequence[str]) -> int | None:
    """Have a running watch or window answer the command line ``argv``: its exit status once
    its output is written, or ``None`` when the command has to work alone."""
    if os.environ.get(ENV_WARM, "").strip() == "0":
        return None
    words = list(argv)
    seen = _scan(words)
    if seen is None:
        return None
    _command, data, verbose, candidates = seen
    if verbose:
        from explorer.logs import configure

        configure(verbose, prefix="vault-explorer")
    try:
        folder = data_dir(data)
        cwd = os.getcwd()
    except (OSError, ValueError, RuntimeError, serve.Refused):
        return None
    request = {
        "argv": words,
        "cwd": cwd,
        "env": {name: os.environ[name] for name in _ENVIRONMENT if name in os.environ},
    }
    index = _served_index(candidates, cwd, folder)
    if index is None:
        log.info("working alone: no watch or window serves this vault")
        return None
    reply = serve.ask(index, COMMAND_OP, request)
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


#: How a word that is query text, never an option, starts (``-[status:done]``): the parser's
#: rule (:data:`explorer.search.query.query.QUERY_DASHES`), not imported, so that the client stays
#: light.
_QUERY_DASHES = ("-[", '-"')


def _scan(words: list[str]) -> tuple[str, str | None, int, list[str]] | None:
    """What the client needs of ``words`` to find a socket: the command, ``--data-dir``, how
    many ``-v`` and the words after the command that may name the vault; ``None`` for a
    command no server answers, or one asking for help or the version."""
    command: str | None = None
    data: str | None = None
    verbose = 0
    candidates: list[str] = []
    expect: str | None = None
    positional_only = False
    for word in words:
        if expect is not None:
            if expect == "--data-dir":
                data = word
            expect = None
            continue
        if (
            positional_only
            or not word.startswith("-")
            or word.startswith(_QUERY_DASHES)
            or word == "-"
        ):
            if command is None:
                command = word
            else:
                candidates.append(word)
            continue
        if word == "--":
            positional_only = True
            continue
        name, eq, value = word.partition("=")
        if name in ("--help", "--version") or (
            not word.startswith("--") and "h" in word
        ):  # -h, -vh…: the help's text depends on the terminal
            return None
        if name == "--verbose":
            verbose += 1
        elif not word.startswith("--") and set(word[1:]) == {"v"}:
            verbose += len(word) - 1
        elif name in _VALUED and command is None:
            if eq:
                data = value if name == "--data-dir" else data
            else:
                expect = name
        elif name == "--data-dir":
            if eq:
                data = value
            else:
                expect = name
        elif name.startswith("--he") or name.startswith("--vers"):
            return None  # an abbreviation of --help or --version
    if command not in COMMANDS:
        return None
    return command, data, verbose, candidates


def _served_index(candidates: list[str], cwd: str, folder: Path) -> Path | None:
    """The index of the first of ``candidates`` that is a folder with a socket beside its index
    in the data folder ``folder``."""
    for word in candidates:
        try:
            vault = Path(cwd) / expand_home(word)
            if not vault.is_dir():
                continue
            index = index_path(vault, folder)
        except (OSError, ValueError, RuntimeError, serve.Refused):
            continue
        where = serve.place(index)
        if where.path is not None and where.path.exists():
            return index
    return None


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


#: The program's parser (:func:`explorer.commands.program.build_parser`, which registers it:
#: this module is below it), with which a server parses a command line.
_parser: Callable[[], argparse.ArgumentParser] | None = None


def use_parser(build: Callable[[], argparse.ArgumentParser]) -> None:
    """Parse the command lines this process serves with ``build()``'s parser."""
    global _parser
    _parser = build


def _absolute(value: str, cwd: str) -> str:
    """``value`` (a path as typed) as the client's process would read it: from its folder."""
    return str(Path(cwd) / expand_home(value))


class WarmServer:
    """The server of one vault's index in this process (``watch``, the window), answering with
    the model named ``model`` (its provider's name: a request for another works alone).
    :meth:`start` says whether it serves; :meth:`stop` removes the socket."""

    def __init__(
        self,
        vault: Path,
        data: str | os.PathLike[str] | None,
        model: str,
        role: str,
        provider: Any = None,
    ) -> None:
        self.provider = provider  # the model the MCP tools search with (default: the shared one)
        self.vault = vault.resolve()
        self.data = None if data is None else str(data)
        self.index = index_path(self.vault, data)
        self.model = model
        self.role = f"{role} (pid {os.getpid()})"
        self._server = serve.Server(self.index, self._handle, OPERATIONS, self._delay)
        self._reader: Any = None  # the MCP tools' VaultReader, made on their first call
        self._reader_lock = threading.Lock()

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
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _delay(self) -> str | None:
        """Why an answer may take a while: the model is not loaded yet."""
        from explorer.embed.provider import ModelState, shared_provider

        provider = self.provider or shared_provider(self.model)
        if provider.state in (ModelState.IDLE, ModelState.LOADING):
            return f"loading its model {self.model}"
        return None

    def _handle(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        if op == COMMAND_OP:
            reply = self._command(fields)
        else:
            reply = self._tool(op.removeprefix("tool."), fields)
        log.info("answered %s for %s", op, "the command line" if op == COMMAND_OP else "MCP")
        return {**reply, "server": self.role}

    # ------------------------------------------------------------------ a command line

    def _command(self, fields: dict[str, Any]) -> dict[str, Any]:
        from explorer.commands.common import run

        if _parser is None:
            raise serve.Refused("no command line parser in this process")

        argv, cwd, env = fields.get("argv"), fields.get("cwd"), fields.get("env")
        if not (
            isinstance(argv, list)
            and all(isinstance(word, str) for word in argv)
            and isinstance(cwd, str)
            and isinstance(env, dict)
            and all(isinstance(env.get(name, ""), str) for name in _ENVIRONMENT)
        ):
            raise serve.Refused("a command without its words, folder or settings")
        out, err = io.StringIO(), io.StringIO()
        _streams.local.stdout, _streams.local.stderr = out, err
        try:
            try:
                args = _parser().parse_args(argv)
            except SystemExit as exc:  # a usage error: the same line and status as alone
                status = exc.code if isinstance(exc.code, int) else 2 if exc.code else 0
                return {"stdout": out.getvalue(), "stderr": err.getvalue(), "status": status}
            self._check(args, cwd, env)
            status = run(args)
        finally:
            _streams.local.stdout = _streams.local.stderr = None
        return {"stdout": out.getvalue(), "stderr": err.getvalue(), "status": status}

    def _check(self, args: argparse.Namespace, cwd: str, env: dict[str, str]) -> None:
        """Make ``args`` what :func:`explorer.commands.program.main` makes of them in the
        client's process (its folder, its environment), or :class:`serve.Refused` when they are
        not for this index and model, or when the command must say something itself."""
        from explorer.commands.common import check_data_dir
        from explorer.embed.sbert import model_name
        from explorer.index.model_choice import model_for

        if args.command not in COMMANDS:
            raise serve.Refused(f"the command {args.command!r} is not answered here")
        data = getattr(args, "data_dir", None) or env.get(ENV_DATA_DIR) or None
        model = getattr(args, "model", None) or env.get(ENV_MODEL) or None
        try:
            args.data_dir = None if data is None else _absolute(data, cwd)
            if model is not None and (os.sep in model or model.startswith(("~", "."))):
                model = _absolute(model, cwd)  # a folder: as the client would find it
            vault = Path(_absolute(args.vault, cwd))
            check_data_dir(args.data_dir)
            if not vault.is_dir() or index_path(vault, args.data_dir) != self.index:
                raise serve.Refused("a request for another index")
            args.model = model_for(vault, model, args.data_dir)
        except serve.Refused:
            raise
        except Exception as exc:  # said by the command working alone
            raise serve.Refused(f"the command says it itself: {exc}") from None
        if args.model is None and ENV_MODEL in os.environ:
            # This process's setting would stand in for the client's default model.
            raise serve.Refused(f"${ENV_MODEL} is set here, not in the client")
        if model_name(args.model) != self.model:
            raise serve.Refused(f"this server has the model {self.model}")
        args.vault = str(vault.resolve())
        args.gui_runner = None
        args.verbose = 0

    # ------------------------------------------------------------------ an MCP tool

    def _tool(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        """The MCP tool ``name``'s answer to ``fields["arguments"]``, as the MCP server working
        alone would give it (:func:`explorer.mcp.server.tool_reply`)."""
        from explorer.mcp.server import tool_reply

        if fields.get("model") != self.model:
            raise serve.Refused(f"this server has the model {self.model}")
        vault, folder, data = fields.get("vault"), fields.get("data_dir"), fields.get("data")
        if not (isinstance(vault, str) and isinstance(folder, str)):
            raise serve.Refused("a tool call without its vault")
        if index_path(Path(vault), folder) != self.index:
            raise serve.Refused("a request for another index")
        arguments = fields.get("arguments")
        if not isinstance(arguments, dict) or not isinstance(data, str | None):
            raise serve.Refused("a tool call without arguments")
        # Its faults are told of with the asking server's vault and data folder, as it would.
        return tool_reply(self._vault_reader(), name, arguments, Path(vault), data)

    def _vault_reader(self) -> Any:
        from explorer.embed.provider import shared_provider
        from explorer.mcp.reader import VaultReader

        with self._reader_lock:
            if self._reader is None:
                provider = self.provider or shared_provider(self.model)
                self._reader = VaultReader(self.vault, self.data, provider)
            return self._reader


def serve_vault(
    vault: Path,
    data: str | os.PathLike[str] | None,
    model: str,
    role: str,
    provider: Any = None,
) -> WarmServer | None:
    """Start answering the command line and the MCP tools for ``vault`` (with ``provider``, the
    model named ``model``): the running server, or ``None`` (said in the log) when this process
    cannot serve."""
    server = WarmServer(vault, data, model, role, provider)
    return server if server.start() else None
