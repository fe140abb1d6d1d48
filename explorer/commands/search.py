"""``vault-explorer search VAULT QUERY``: one search, as a table or as JSON.

It first brings the index up to date (``--no-sync``: the index as it is) unless another
process keeps it current, in which case it searches the index as that process keeps it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from explorer.commands.common import open_index, require_index, say_ignored
from explorer.console import TerminalProgress, UsageError, dump_json, say, vault_folder
from explorer.embed.provider import shared_provider
from explorer.index.db import IndexUnavailable, index_command, index_path
from explorer.index.lease import WriterLease, holder
from explorer.index.update import bring_up_to_date
from explorer.search.answers.answer import EMBED_BEFORE_SEARCH, search_index, waiting_text
from explorer.search.answers.saved import SearchStore
from explorer.search.answers.verdict import closeness
from explorer.search.fusion.results import SearchResponse
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
    provider = shared_provider(args.model)
    if args.no_sync:
        require_index(vault, args.data_dir)
    path = index_path(vault, args.data_dir)
    lease = None if args.no_sync else WriterLease.try_acquire(path, "vault-explorer search")
    if not args.no_sync and lease is None:
        # Another process keeps the index current: search it as it keeps it.
        owner = holder(path)
        say(
            f"vault-explorer: the index is kept current by "
            f"{owner.describe() if owner else 'another process'}; searching it without a sync",
            sys.stderr,
        )
        if not path.exists():
            raise IndexUnavailable(f"the index of {vault} is still being created; try again")
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
                embedding = None if options.mode == Mode.FTS else provider
                bring_up_to_date(db, embedding, progress, at_most=EMBED_BEFORE_SEARCH)
            finally:
                progress.close()
                lease.release()
        answer = search_index(db, provider, args.query, options)
    finally:
        db.close()
    if answer.waiting and not answer.response.listing:
        using = (
            "results use the vectors that exist" if answer.any_vectors else "results are lexical"
        )
        command = index_command(vault, args.data_dir)
        say(
            f"vault-explorer: {waiting_text(answer.waiting)}; run `{command}` "
            f"(or `watch`) to embed them — {using}",
            sys.stderr,
        )
    if args.json:
        dump_json(answer.to_json())
    else:
        print_table(answer.response, sys.stdout)
    return 0


def print_table(response: SearchResponse, out: TextIO) -> None:
    """The readable form of a response: one row a hit, scores to five decimals."""
    sem = response.semantic
    mode = response.options.mode
    if mode != Mode.FTS and not sem.available and not response.listing:
        say(f"(semantic unavailable: {sem.reason}; showing the lexical result)", out)
    if response.listing:
        say(response.listing_text(), out)
    elif response.hits:
        shown = response.query if len(response.query) <= 60 else response.query[:57] + "…"
        if (verdict := closeness(response, f"‘{shown}’")) is not None:
            say(verdict, out)
    recency = bool(response.options.recency) and not response.listing  # a third contribution
    titled = any("title" in hit.contributions for hit in response.hits)  # a name matches
    header = (
        f"{'#':>3}  {'fused':>7}  {'fts':>7}  {'vector':>7}  "
        + (f"{'title':>7}  " if titled else "")
        + (f"{'recency':>7}  " if recency else "")
        + f"{'fts#':>4}  {'vec#':>4}  {'source':<6}  path — title"
    )
    say(header, out)
    for i, hit in enumerate(response.hits, start=1):
        # Sorted otherwise, each hit keeps its fused rank (the window's #).
        rank = hit.fused_rank or i
        c = hit.contributions
        say(
            f"{rank:>3}  {hit.fused_score:7.5f}  {c.get('fts', 0.0):7.5f}  "
            f"{c.get('vector', 0.0):7.5f}  "
            + (f"{c.get('title', 0.0):7.5f}  " if titled else "")
            + (f"{c.get('recency', 0.0):7.5f}  " if recency else "")
            + f"{_rank(hit.fts_rank):>4}  {_rank(hit.vector_rank):>4}  {hit.source or '':<6}  "
            f"{hit.path} — {hit.title}{'  [stale]' if hit.demoted else ''}",
            out,
        )
    if not response.hits:
        say("no results", out)


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)
