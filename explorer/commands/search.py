"""``vault-explorer search VAULT QUERY``: one search, as a table or as JSON.

It first brings the index up to date (``--no-sync``: the index as it is) unless another
process keeps it current, in which case it searches the index as that process keeps it — and
when that process is a ``watch`` or window, asks it (:mod:`explorer.commands.warm`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from explorer.commands.common import open_index, require_index, say_ignored
from explorer.commands.warm import alone, served, show
from explorer.console import TerminalProgress, UsageError, say, vault_folder
from explorer.index.db import IndexUnavailable, index_path
from explorer.index.lease import WriterLease, holder
from explorer.mcp.requests import Answered, SearchRequest
from explorer.search.answers.saved import SearchStore
from explorer.search.query import options as search_options
from explorer.search.query.options import Mode
from explorer.search.query.query import QueryError, parse_query


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("search", parents=[common], help="run one search")
    p.add_argument("vault")
    p.add_argument("query", nargs="?", default=None)
    depth = search_options.SearchOptions().depth
    search_options.add_arguments(
        p, notes={"depth": f"default {depth}, or the limit if that is more"}
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-sync", action="store_true", help="search the index exactly as it is")
    p.add_argument(
        "--save", metavar="NAME", help="also keep this search (query and settings) as NAME"
    )
    p.add_argument(
        "--saved", metavar="NAME", help="run the saved search NAME (options given change it)"
    )
    p.add_argument("--list-saved", action="store_true", help="list the saved searches and stop")
    p.add_argument("--delete-saved", metavar="NAME", help="forget the saved search NAME and stop")
    p.set_defaults(func=cmd_search)


def _saved_searches(args: argparse.Namespace, vault: Path) -> int | None:
    """``--list-saved`` and ``--delete-saved``: their exit code; None for a search."""
    if not (args.list_saved or args.delete_saved):
        return None
    store = _store(vault, args.data_dir)
    if args.delete_saved:
        if not store.delete(args.delete_saved):
            raise QueryError(f"no saved search named {args.delete_saved.strip()!r}")
        say(f"forgot the saved search {args.delete_saved.strip()!r}", sys.stdout)
        return 0
    for name, saved in store.saved().items():
        say(saved.line(name), sys.stdout)
    return 0


def _store(vault: Path, data: str | None) -> SearchStore:
    """The vault's saved searches; what reading them dropped said once, and repaired."""
    store = SearchStore.of(vault, data)
    for line in store.take_problems():
        say(f"vault-explorer: note: {line}", sys.stderr)
    store.repair()
    return store


def cmd_search(args: argparse.Namespace) -> int:
    vault = vault_folder(args.vault, readable=not args.no_sync)
    listed = _saved_searches(args, vault)
    if listed is not None:
        return listed
    request = search_request(args, vault)
    if args.no_sync:
        require_index(vault, args.data_dir)
    path = index_path(vault, args.data_dir)
    # A watch or window of the vault keeps its index current, with the model loaded: ask it.
    answered = served(vault, args.data_dir, args.model, request)
    if answered is not None:
        if not args.no_sync:
            _kept_current(path)
        return show(answered, args.json)
    return show(_search_alone(args, vault, path, request), args.json)


def _search_alone(
    args: argparse.Namespace, vault: Path, path: Path, request: SearchRequest
) -> Answered:
    """``request`` answered in this process, with none running to ask: the index first brought
    up to date (unless ``--no-sync``, or another process keeps it current)."""
    from explorer.embed.provider import shared_provider  # the model, numpy: only here
    from explorer.index.update import bring_up_to_date
    from explorer.search.answers.answer import EMBED_BEFORE_SEARCH

    lease = None if args.no_sync else WriterLease.try_acquire(path, "vault-explorer search")
    if not args.no_sync and lease is None:
        _kept_current(path)  # by another process: search the index as it keeps it
        if not path.exists():
            raise IndexUnavailable(f"the index of {vault} is still being created; try again")
    provider = shared_provider(args.model)
    try:
        db = open_index(args, vault)
    except BaseException:
        if lease is not None:
            lease.release()
        raise
    try:
        if lease is not None:
            progress = TerminalProgress()
            try:
                embedding = None if request.options.mode == Mode.FTS else provider
                bring_up_to_date(db, embedding, progress, at_most=EMBED_BEFORE_SEARCH)
            finally:
                progress.close()
                lease.release()
    finally:
        db.close()
    return alone(vault, args.data_dir, args.model, provider, request, opened=True)


def _kept_current(path: Path) -> None:
    """Say that another process keeps the index at ``path`` current, so it is searched as it
    is."""
    owner = holder(path)
    say(
        f"vault-explorer: the index is kept current by "
        f"{owner.describe() if owner else 'another process'}; searching it without a sync",
        sys.stderr,
    )


def search_request(args: argparse.Namespace, vault: Path) -> SearchRequest:
    """The search ``args`` ask for: ``--saved``'s query and settings under those given,
    ``--save`` done, and what the settings and the query leave unused said on stderr."""
    store = _store(vault, args.data_dir)
    if args.saved:
        saved = store.get(args.saved)
        if args.query is None:
            args.query = saved.query
        options = search_options.from_args(args, saved.options).validate()
    else:
        if args.query is None:  # as argparse says it, the query being optional with --saved
            raise UsageError("search needs a QUERY, or --saved NAME")
        options = search_options.from_args(args).validate()
    notes = parse_query(args.query).notes  # a query refused here is not saved either
    if args.save:
        store.save(args.save, args.query, options)
    say_ignored(options, search_options.given_names(args))
    for line in notes:  # a malformed [...] is searched as text
        say(f"vault-explorer: note: {line}", sys.stderr)
    if args.depth is None:
        options = search_options.deep_enough(options)
    if options.depth < options.limit:
        say(
            f"vault-explorer: at most {options.depth} hits per list (--depth {options.depth} "
            f"is below --limit {options.limit})",
            sys.stderr,
        )
    return SearchRequest(args.query, options)
