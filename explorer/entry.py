"""The program: every command of ``vault-explorer``, the window included.

The one module above all the layers (``explorer.gui`` → ``explorer.commands`` →
``explorer.evaluate`` → ``live`` → ``search`` → ``index`` → ``vault`` / ``embed``): it hands the
window to the commands' parser (:mod:`explorer.commands.program`), so that none of the layers
has to import a layer above it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from explorer.commands import program
from explorer.console import UsageError


def run_window(args: argparse.Namespace) -> int:
    """The ``gui`` command (and ``vault-explorer`` with no command)."""
    try:
        from explorer.gui.window.app import run_gui
    except ImportError as exc:
        raise UsageError(f"the window needs PySide6 ({exc})") from exc
    return run_gui(args)


def main(argv: Sequence[str] | None = None) -> int:
    """``vault-explorer``."""
    return program.main(argv, gui=run_window)
