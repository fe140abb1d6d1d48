"""``vault-explorer gui [VAULT]`` (and ``vault-explorer`` with no command): the window.

The window lies above the commands, so this module never imports it: the program's caller
hands the runner in (:func:`explorer.commands.program.main`'s ``gui``), as
:mod:`explorer.entry` and :func:`explorer.entry.window_main` do."""

from __future__ import annotations

import argparse
from typing import Any

from explorer.commands.common import Command, add_embed_threads, apply_embed_threads
from explorer.console import UsageError
from explorer.search.query import options as search_options


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("gui", parents=[common], help="open the window")
    p.add_argument("vault", nargs="?", help="vault folder (default: the last one, or the sample)")
    p.add_argument("--query", default="", help="search this at start")
    search_options.add_arguments(
        p,
        only=("mode", "fusion"),
        notes={"mode": "default: the last one used", "fusion": "default: the last one used"},
    )
    p.add_argument("--screenshot", metavar="PNG", help="save the window once results show, exit")
    add_embed_threads(p)
    p.set_defaults(func=cmd_gui)


def cmd_gui(args: argparse.Namespace) -> int:
    """Run the window that the program was given."""
    runner: Command | None = getattr(args, "gui_runner", None)
    if runner is None:
        raise UsageError("this build has no window; use the search, index and status commands")
    apply_embed_threads(args)
    return runner(args)
