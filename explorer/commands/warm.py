"""How ``search``, ``explain`` and ``related`` get their answer, and print it.

A command makes its request (:mod:`explorer.mcp.requests`) from the words it parsed, then asks
a running ``watch`` or window of the vault for the answer (:func:`served`: over its socket,
:mod:`explorer.mcp.warm`, which has the model loaded and the vectors in memory); with none to
ask — none running, a dead socket, another version, model or index, ``AF_UNIX`` missing,
``VAULT_EXPLORER_WARM=0`` — it answers the request itself (:func:`alone`) with the very
function the server runs.  Either way :func:`show` prints the answer: the output is the same.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import explorer
from explorer.commands.common import open_readonly
from explorer.console import dump_json, env_number, say
from explorer.embed.models import model_name
from explorer.index.db import data_dir, index_path
from explorer.index.lease import holder
from explorer.live import serve
from explorer.mcp.requests import Answered, Request, asked_for

if TYPE_CHECKING:
    from explorer.embed.provider import EmbedderProvider

log = logging.getLogger(__name__)

#: ``0`` turns the warm path off: every command works alone, and leaves no watch behind.
ENV_WARM = serve.ENV_WARM

#: Seconds the watch a command leaves behind waits for the next request before it stops
#: (``0``: leave none).  A few minutes: the searches a person types one after another.
ENV_WARM_IDLE = "VAULT_EXPLORER_WARM_IDLE"
WARM_IDLE = 300.0
#: The longest wait ``$VAULT_EXPLORER_WARM_IDLE`` may ask for: a day.
MAX_WARM_IDLE = 86_400.0


def served(vault: Path, data: str | None, model: str | None, request: Request) -> Answered | None:
    """``request``'s answer from a running watch or window of ``vault``'s index (in the data
    folder ``data``) with the model ``model`` (a choice: ``--model``, the vault's), or ``None``
    (said at ``-v``) when the command has to answer it itself."""
    if serve.warm_off():
        return None
    fields = {**asked_for(vault, data, model_name(model)), "request": request.fields()}
    reply = serve.ask(index_path(vault, data), request.op, fields)
    if reply is None:
        return None
    answered = Answered.from_wire(reply)
    if answered is None:
        log.info("working alone: a reply without its answer")
        return None
    log.info("answered by %s", reply.get("server", "a running process"))
    return answered


def alone(
    vault: Path,
    data: str | None,
    model: str | None,
    provider: EmbedderProvider,
    request: Request,
    *,
    opened: bool = False,
) -> Answered:
    """``request`` answered in this process, as a server answers it: through a
    :class:`VaultReader` of the index as it is (read-only); then a watch is left behind for
    the next command (:func:`leave_watch`), unless the request failed.  ``opened``: the caller
    has opened the index already, so it is there and readable by this release."""
    from explorer.mcp.answers import answer  # the search itself: only when none answered
    from explorer.mcp.reader import VaultReader

    if not opened:  # bad input: no index to read yet, or a newer one's
        open_readonly(vault, data).close()
    reader = VaultReader(vault, data, provider)
    try:
        answered = answer(reader, request, vault, data)
    finally:
        reader.close()
    if answered.error is None:
        leave_watch(vault, data, model)
    return answered


def show(answered: Answered, as_json: bool) -> int:
    """Print ``answered`` (its JSON with ``as_json``, else its lines; its notes and its error on
    standard error); the command's exit status."""
    for note in answered.notes:
        say(note, sys.stderr)
    if answered.error is not None:
        say(f"vault-explorer: {answered.error}", sys.stderr)
        return answered.status
    if as_json:
        dump_json(answered.data)
    else:
        for line in answered.lines:
            say(line, sys.stdout)
    return answered.status


def leave_watch(
    vault: Path,
    data: str | None,
    model: str | None,
    *,
    idle: float | None = None,
    program: Sequence[str] | None = None,
) -> subprocess.Popen[bytes] | None:
    """After a command worked alone: start a ``watch`` of ``vault`` in the background that keeps
    its index current and answers the next commands warm, and stops after ``idle`` seconds
    without one (default ``$VAULT_EXPLORER_WARM_IDLE``, else :data:`WARM_IDLE`); said once on
    standard error.  Its process, or ``None`` when none is left: the warm path off, an idle
    time of 0, no ``AF_UNIX``, or a process that keeps the index current already (a watch or a
    window: never two).  ``program``: the command that runs this program (default: this
    interpreter on this very package)."""
    wait = idle if idle is not None else _idle_setting()
    index = index_path(vault, data)
    where = serve.place(index)
    if serve.warm_off() or wait <= 0 or where.path is None or holder(index) is not None:
        return None
    folder = data_dir(data)
    logs = folder / "logs"
    argv = [*(program or _this_program()), "watch", str(vault), "--data-dir", str(folder)]
    argv += [*(["--model", model] if model else []), "--idle-exit", f"{wait:g}"]
    try:
        logs.mkdir(parents=True, exist_ok=True)
        with (logs / f"watch-{index.stem}.log").open("ab") as out:
            child = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=folder,
                start_new_session=True,  # not stopped with the terminal's Ctrl-C
            )
    except OSError as exc:
        log.info("no watch left behind: %s", exc)
        return None
    minutes = f"{wait / 60:g} minute{'s' if wait != 60 else ''}" if wait >= 60 else f"{wait:g} s"
    say(
        f"vault-explorer: a watch of this vault stays in the background (pid {child.pid}) so "
        f"that the next search is fast; it stops after {minutes} without one "
        f"({ENV_WARM}=0: never start it)",
        sys.stderr,
    )
    return child


def _idle_setting() -> float:
    return float(env_number(ENV_WARM_IDLE, WARM_IDLE, 0, MAX_WARM_IDLE, "a number of seconds"))


def _this_program() -> list[str]:
    """The command that runs this very program: the bundled executable, or this interpreter
    on the package this process imported (not whatever ``explorer`` another folder holds)."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    root = str(Path(explorer.__file__).resolve().parent.parent)
    code = f"import sys; sys.path.insert(0, {root!r}); from explorer.entry import main; "
    return [sys.executable, "-c", code + "sys.exit(main())"]
