"""The program: every command of ``vault-explorer``, the window included.

The one module above all the layers (``explorer.gui`` → ``explorer.commands`` →
``explorer.evaluate`` → ``live`` → ``search`` → ``index`` → ``vault`` / ``embed``): it hands the
window to the commands' parser (:mod:`explorer.commands.program`), so that none of the layers
has to import a layer above it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from explorer.commands import program


def run_window(args: argparse.Namespace) -> int:
    """The ``gui`` command (and ``vault-explorer`` with no command)."""
    try:
        from explorer.gui.window.app import run_gui
    except ImportError as exc:
        from explorer.console import UsageError

        raise UsageError(f"the window needs PySide6 ({exc})") from exc
    return run_gui(args)


def main(argv: Sequence[str] | None = None) -> int:
    """``vault-explorer``: every command, the window included (a running ``watch`` or window of
    the vault answers ``search``, ``explain`` and ``related`` when it can:
    :mod:`explorer.commands.warm`)."""
    return program.main(argv, gui=run_window)


def window_main(argv: Sequence[str] | None = None) -> int:
    """The ``vault-explorer-gui`` launcher: the same as ``vault-explorer gui``."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] != "gui":
        words = ["gui", *words]
    return program.main(words, gui=run_window)
