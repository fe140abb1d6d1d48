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
import os
import sys
from pathlib import Path

from explorer.commands.common import open_readonly
from explorer.console import dump_json, say
from explorer.embed.provider import EmbedderProvider
from explorer.embed.sbert import model_name
from explorer.index.db import index_path
from explorer.live import serve
from explorer.mcp.reader import VaultReader
from explorer.mcp.requests import Answered, Request, answer, asked_for

log = logging.getLogger(__name__)

#: ``0`` turns the warm path off: every command works alone.
ENV_WARM = serve.ENV_WARM


def warm_off() -> bool:
    """Whether ``$VAULT_EXPLORER_WARM`` turns the warm path off."""
    return os.environ.get(ENV_WARM, "").strip() == "0"


def served(vault: Path, data: str | None, model: str | None, request: Request) -> Answered | None:
    """``request``'s answer from a running watch or window of ``vault``'s index (in the data
    folder ``data``) with the model ``model`` (a choice: ``--model``, the vault's), or ``None``
    (said at ``-v``) when the command has to answer it itself."""
    if warm_off():
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


def alone(vault: Path, data: str | None, provider: EmbedderProvider, request: Request) -> Answered:
    """``request`` answered in this process, as a server answers it: through a
    :class:`VaultReader` of the index as it is (read-only)."""
    open_readonly(vault, data).close()  # bad input: no index to read yet, or a newer one's
    reader = VaultReader(vault, data, provider)
    try:
        return answer(reader, request, vault, data)
    finally:
        reader.close()


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
