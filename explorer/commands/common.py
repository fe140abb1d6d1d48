"""What the commands share: the index they work on (found, opened, or said to be missing), the
lines every command writes the same way, and an error said in its one line
(:func:`explorer.live.problems.fault_line`).

Text for a person goes through :func:`explorer.console.say` and JSON through
:func:`explorer.console.dump_json` (both escape what the vault put in names and titles); this
module holds only what is about the commands' index.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.console import UsageError, env_number, say, whole_number
from explorer.embed.threads import ENV_EMBED_THREADS, MAX_THREADS, default_threads, use_threads
from explorer.errors import Fault, classify
from explorer.index.db import (
    ENV_DATA_DIR,
    IndexDB,
    IndexUnavailable,
    data_dir,
    index_path,
    no_index_text,
)
from explorer.live.problems import fault_line
from explorer.search.query import options as search_options

#: Runs a parsed command: ``fn(args) -> exit status``.
Command = Callable[[argparse.Namespace], int]
#: Adds a command to the parser: ``fn(subparsers, common options parser)``.
Registrar = Callable[[Any, argparse.ArgumentParser], None]


def no_index(vault: Path, data: str | None) -> UsageError:
    """Bad input: ``vault`` has no index yet (in the data folder ``data``), and the command that
    makes one."""
    return UsageError(no_index_text(vault, data))


def require_index(vault: Path, data: str | None) -> Path:
    """The index file of ``vault``; :func:`no_index` if there is none."""
    path = index_path(vault, data)
    if not path.exists():
        raise no_index(vault, data)
    return path


def open_index(args: argparse.Namespace, vault: Path) -> IndexDB:
    """The index of ``vault`` for a command that may write it (created, migrated), with what
    opening it noticed (a damaged file moved aside) said on stderr."""
    db = IndexDB.open(vault, args.data_dir)
    for notice in db.notices:
        say(f"vault-explorer: {notice}", sys.stderr)
    return db


def open_readonly(vault: Path, data: str | None) -> IndexDB:
    """The index of ``vault`` on a read-only connection (:meth:`IndexDB.open_reader`): nothing
    is created, migrated or moved aside; bad input if there is none, if its writer has not
    migrated it yet, or if it was written by a newer version."""
    try:
        return IndexDB.open_reader(vault, data)
    except IndexUnavailable as exc:
        raise UsageError(str(exc)) from None


def say_ignored(options: search_options.SearchOptions, given: list[str]) -> None:
    """A note on stderr for each option given that the mode leaves unused."""
    for line in search_options.ignored(options, given):
        say(f"vault-explorer: note: {line}", sys.stderr)


#: The largest count a command takes (notes generated, queries timed, …): far past anything
#: that finishes, small enough that no count overflows what it is used for.
MAX_COUNT = 10_000_000
#: argparse types: a count from 0 / from 1 up to :data:`MAX_COUNT`.
count = whole_number(0, MAX_COUNT)
positive_count = whole_number(1, MAX_COUNT)


def add_embed_threads(parser: argparse.ArgumentParser) -> None:
    """``--embed-threads N``, for the commands that embed a vault (``index``, ``watch``,
    ``gui``)."""
    parser.add_argument(
        "--embed-threads",
        type=whole_number(1, MAX_THREADS),
        metavar="N",
        help=f"threads the embedding model may use (default ${ENV_EMBED_THREADS}, else all "
        "cores but one); queries in this process use the same",
    )


def embed_threads(args: argparse.Namespace) -> int:
    """The threads to embed with: ``--embed-threads``, else ``VAULT_EXPLORER_EMBED_THREADS``,
    else all the cores but one."""
    given = getattr(args, "embed_threads", None)
    if given is not None:
        return int(given)
    default = default_threads()
    return int(
        env_number(
            ENV_EMBED_THREADS, default, 1, MAX_THREADS, "a whole number of threads", whole=True
        )
    )


def apply_embed_threads(args: argparse.Namespace) -> int:
    """Embed with :func:`embed_threads` in this process (torch's setting is process-wide:
    queries too); returns the number."""
    count = embed_threads(args)
    use_threads(count)
    return count


def run(args: argparse.Namespace) -> int:
    """Run the parsed command: its exit status, errors turned into one line on stderr."""
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        say("vault-explorer: interrupted", sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        return report(exc, args)


def report(exc: Exception, args: argparse.Namespace) -> int:
    """``exc`` as one line on stderr and its exit status (a bug is raised again)."""
    fault = classify(exc)
    if fault is Fault.BUG:
        raise exc
    line = fault_line(exc, fault, getattr(args, "vault", None), args.data_dir)
    say(f"vault-explorer: {line}", sys.stderr)
    return 2 if fault is Fault.USER else 1


def check_data_dir(override: str | None) -> None:
    """Refuse a data folder that is a file (or lies below one): bad input, exit status 2."""
    folder = data_dir(override)
    named = f"--data-dir {folder}" if override else f"the data folder {folder}"
    if not override and os.environ.get(ENV_DATA_DIR):
        named = f"${ENV_DATA_DIR} {folder}"
    probe = folder
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "" if probe == folder else f" ({probe} is a file)"
        raise UsageError(f"{named} is not a folder{where}; give a folder (created if missing)")
