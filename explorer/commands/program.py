"""The program: ``vault-explorer`` (also ``python -m explorer``), every command in one parser —
the window's launcher (:func:`explorer.entry.window_main`) parses with it too.  Exit status 0 on
success, 2 on bad input, 1 when the machine stands in the way (a read-only folder, a full disk,
a busy index) — each with one line on stderr, no traceback.

Names, titles and reasons come from the vault and are untrusted: every line of text goes through
:func:`explorer.display.safe_text` (:func:`explorer.console.say`), and JSON is written with every
control and bidi character escaped (:func:`explorer.console.dump_json`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from explorer import __version__
from explorer.commands import (
    bench,
    compare,
    eval,
    explain,
    gui,
    index,
    mcp,
    related,
    search,
    status,
    watch,
)
from explorer.commands.common import Command, Registrar, check_data_dir, report, run
from explorer.display import safe_text
from explorer.embed.models import ENV_MODEL
from explorer.home import expand_home
from explorer.index.db import data_dir
from explorer.index.model_choice import model_for
from explorer.logs import configure, log_file
from explorer.search.query.query import is_query_word

#: Every command, in the order ``--help`` lists them.
COMMANDS: tuple[Registrar, ...] = (
    gui.register,
    index.register,
    search.register,
    explain.register,
    compare.register,
    status.register,
    watch.register,
    related.register,
    eval.register,
    bench.register,
    mcp.register,
)


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line (not the whole usage block), exit status 2, and
    a query that starts with ``-`` read as the query: ``search VAULT -[status:done]`` (the
    exclusion the README shows), ``-staging``, without ``--`` before it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, safe_text(f"{self.prog}: error: {message} (see {self.prog} --help)") + "\n")

    def _parse_optional(self, arg_string: str) -> Any:
        parsed = super()._parse_optional(arg_string)
        if parsed is not None and parsed[0] is None and is_query_word(arg_string):
            return None  # no option of this name: a positional word, the query
        return parsed


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="where indexes are stored (default: $VAULT_EXPLORER_DATA or the user data dir)",
    )
    common.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=argparse.SUPPRESS,
        help="say more on standard error: -v what is being done, -vv everything (the window "
        "also keeps a log in the data folder: logs/window.log)",
    )
    common.add_argument(
        "--model",
        default=argparse.SUPPRESS,
        help="sentence-transformers model folder (default: $VAULT_EXPLORER_MODEL or the "
        "bundled all-MiniLM-L6-v2)",
    )
    parser = _Parser(
        prog="vault-explorer",
        description="Hybrid search over a folder of markdown notes, with the ranking made visible.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMANDS:
        register(sub, common)
    return parser


def parse(words: Sequence[str]) -> argparse.Namespace:
    """The words of a command line read by the one parser: the program's grammar, decided here
    alone.  With no command named, the words are the window's: ``vault-explorer`` alone,
    ``vault-explorer ~/notes`` (a folder where the command would be), ``vault-explorer
    --screenshot x.png`` (the window's options).  ``--help``, ``--version`` and a usage error
    exit (:class:`SystemExit`, status 0 or 2)."""
    parser = build_parser()
    words = list(words)
    if _the_window(parser, words):
        words = ["gui", *words]
    args = parser.parse_args(words)
    if args.command is None:
        args = parser.parse_args(["gui", *words])
    return args


def _the_window(parser: argparse.ArgumentParser, words: list[str]) -> bool:
    """Whether ``words`` name no command but the window's: the first word that is no option
    (nor an option's value) is a folder rather than a command — a path (``~/notes``,
    ``./notes``, ``/srv/notes``) or a folder that exists here — or there is no such word and
    an option is the window's alone (``--screenshot x.png``).  Any other word stays a
    command, so a mistyped one is still said as such."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    gui = sub.choices["gui"]
    own = {option for action in parser._actions for option in action.option_strings}
    window = {option for action in gui._actions for option in action.option_strings} - own
    takes_value = {
        option
        for action in (*parser._actions, *gui._actions)
        if action.nargs != 0
        for option in action.option_strings
    }
    skip = False
    windowish = False
    for word in words:
        if skip:
            skip = False
        elif word == "--":
            return False
        elif word.startswith("-"):
            name, eq, _ = word.partition("=")
            windowish = windowish or name in window
            skip = name in takes_value and not eq  # ``--query deploy``: the next word is its value
        else:
            if word in sub.choices:
                return False
            return word.startswith(("/", "~", ".")) or os.sep in word or Path(word).is_dir()
    return windowish


def _vault_of(args: argparse.Namespace) -> Path | None:
    """The vault a command works on, where it names one (the window resolves its own)."""
    vault = getattr(args, "vault", None)
    return Path(vault) if vault and args.command != "gui" else None


def main(argv: Sequence[str] | None = None, *, gui: Command | None = None) -> int:
    """Parse ``argv`` and run the command, turning errors into one line and an exit status.

    ``gui`` runs the window (which lies above this package): :func:`explorer.entry.main` and
    :func:`explorer.entry.window_main` pass it;
    without it ``gui`` says this build has no window."""
    args = parse(sys.argv[1:] if argv is None else argv)
    args.gui_runner = gui
    _configure_logging(args)
    try:
        settle(args)
    except Exception as exc:
        return report(exc, args)
    return run(args)


def settle(args: argparse.Namespace) -> None:
    """The data folder (``args.data_dir``: ``--data-dir`` or ``None``, checked to be a folder)
    and the model (``args.model``: ``--model``, ``$VAULT_EXPLORER_MODEL``'s or the vault's
    choice) a command works with: decided here alone.  A served request carries what this
    decided (:func:`explorer.mcp.requests.asked_for`); the server only compares."""
    args.data_dir = getattr(args, "data_dir", None)
    check_data_dir(args.data_dir)
    _check_model(getattr(args, "model", None))
    args.model = model_for(_vault_of(args), getattr(args, "model", None), args.data_dir)


def _configure_logging(args: argparse.Namespace) -> None:
    """The program's log (:mod:`explorer.logs`): standard error at ``-v``'s level, and for the
    window a file in the data folder."""
    window = args.command == "gui"
    try:
        file = log_file(data_dir(args.data_dir)) if window else None
    except Exception:  # a bad --data-dir is said by the checks that follow, not here
        file = None
    prefix = "vault-explorer mcp" if args.command == "mcp" else "vault-explorer"
    configure(getattr(args, "verbose", 0) or 0, prefix=prefix, file=file)


def _check_model(given: str | None) -> None:
    """A model folder under ``~user`` names a home folder that exists: :class:`HomeUnknown`
    otherwise (the model loads later, in the background, where it would only be a reason)."""
    chosen = given or os.environ.get(ENV_MODEL)
    if chosen:
        expand_home(chosen)
