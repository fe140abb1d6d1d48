"""The program: every command of ``vault-explorer``, the window included.

The one module above all the layers (``explorer.gui`` → ``explorer.commands`` →
``explorer.cli`` / ``watch_cli`` / ``evaluate`` → ``live`` → ``search`` → ``index`` →
``vault`` / ``embed``): it puts the commands
together, so that none of the layers has to import a layer above it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from explorer import cli, related_cli, watch_cli
from explorer.commands import mcp as mcp_command
from explorer.console import UsageError
from explorer.evaluate import cli as evaluate_cli


def run_window(args: argparse.Namespace) -> int:
    """The ``gui`` command (and ``vault-explorer`` with no command)."""
    try:
        from explorer.gui.app import run_gui
    except ImportError as exc:
        raise UsageError(f"the window needs PySide6 ({exc})") from exc
    return run_gui(args)


def main(argv: Sequence[str] | None = None) -> int:
    """``vault-explorer``."""
    return cli.main(
        argv,
        commands=(
            watch_cli.register,
            related_cli.register,
            evaluate_cli.register,
            mcp_command.register,
        ),
        gui=run_window,
    )
