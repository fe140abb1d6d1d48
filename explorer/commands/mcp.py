"""``vault-explorer mcp [VAULT]``: the vault for an AI assistant, as a Model Context Protocol
server over stdio (:mod:`explorer.mcp.server`), read-only.

``--print-config`` prints the block an MCP client's configuration takes instead (the
``mcpServers`` entry of Claude Desktop's ``claude_desktop_config.json`` and of most other
clients): the command that runs this server, with the vault's absolute path and the data
folder and model in effect, so that the client, which has none of this shell's settings, runs
the same server on the same index.  It needs VAULT named (the block outlives the shell, so the
current folder is never assumed for it) and says on stderr which vault it configured.
``--sync`` lets a search bring the index up to date first
when no other process keeps it current.

The SDK is imported only when the server runs: the other commands never pay for it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from explorer.console import UsageError, dump_json, say, vault_folder
from explorer.embed.models import ENV_MODEL
from explorer.home import expand_home
from explorer.index.db import ENV_DATA_DIR, data_dir

#: The server's name in a client's configuration.
SERVER_NAME = "vault-explorer"


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "mcp",
        parents=[common],
        help="serve the vault to an AI assistant (Model Context Protocol over stdio, read-only)",
    )
    p.add_argument(
        "vault",
        nargs="?",
        help="vault folder (default when serving: this folder; --print-config needs it named)",
    )
    p.add_argument(
        "--sync",
        action="store_true",
        help="bring the index up to date before a search when no other process keeps it "
        "current (default: read the index as it is)",
    )
    p.add_argument(
        "--print-config",
        action="store_true",
        help="print the JSON block an MCP client's configuration takes, and exit",
    )
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    if args.print_config and args.vault is None:
        # The block outlives this shell: a folder guessed from where it was typed (a source
        # clone, the home folder) would serve the wrong notes for good, and quietly.
        raise UsageError(
            "--print-config needs the vault the client should serve: "
            "vault-explorer mcp --print-config VAULT"
        )
    vault = vault_folder(args.vault or ".")
    if args.print_config:
        dump_json(client_config(vault, args.data_dir, args.model, sync=args.sync))
        say(f"vault-explorer: configured to serve {vault}", sys.stderr)
        return 0
    from explorer.embed.provider import shared_provider
    from explorer.mcp.reader import VaultReader
    from explorer.mcp.server import serve

    return serve(VaultReader(vault, args.data_dir, shared_provider(args.model), sync=args.sync))


def client_config(
    vault: Path, data: str | None, model: str | None, *, sync: bool = False
) -> dict[str, Any]:
    """``{"mcpServers": {"vault-explorer": {"command": …, "args": […]}}}`` for ``vault``."""
    command, args = launcher()
    args += ["mcp", str(vault)]
    if data or os.environ.get(ENV_DATA_DIR):
        args += ["--data-dir", str(data_dir(data))]
    chosen = model or os.environ.get(ENV_MODEL)
    if chosen:
        folder = expand_home(chosen)
        args += ["--model", str(folder.resolve()) if folder.is_dir() else chosen]
    if sync:
        args.append("--sync")
    return {"mcpServers": {SERVER_NAME: {"command": command, "args": args}}}


def launcher() -> tuple[str, list[str]]:
    """The absolute command that runs this program, and its first arguments: the bundled
    executable, the ``vault-explorer`` script beside this interpreter (a venv's, pipx's), or
    this interpreter with ``-m explorer``."""
    if getattr(sys, "frozen", False):
        return sys.executable, []
    script = Path(sys.executable).with_name(
        "vault-explorer.exe" if os.name == "nt" else "vault-explorer"
    )
    if script.is_file():
        return str(script), []
    return sys.executable, ["-m", "explorer"]
