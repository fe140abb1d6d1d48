"""``vault-explorer compare VAULT QUERY --a SETTINGS --b SETTINGS``: one query under two
settings, side by side, from the index as it is (no sync, no embedding), one search for both."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from explorer.commands.common import open_readonly
from explorer.console import dump_json, say, vault_folder, whole_number
from explorer.search.query import options as search_options
from explorer.search.query.options import Mode
from explorer.search.query.query import QueryError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "compare", parents=[common], help="one query under two settings, side by side (read-only)"
    )
    p.add_argument("vault")
    p.add_argument("query")
    names = ", ".join(search_options.RANKING)
    for flag, role in (("--a", "the baseline"), ("--b", "the settings tried")):
        p.add_argument(
            flag,
            default="",
            metavar="SETTINGS",
            help=f"{role}: key=value,… over {names}, limit, preset (default: the defaults)",
        )
    p.add_argument(
        "--limit",
        type=whole_number(1, search_options.MAX_LIMIT),
        metavar="N",
        help=f"compare the top N of each (default {search_options.SearchOptions().limit})",
    )
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from explorer.embed.provider import EmbedderProvider, shared_provider
    from explorer.search.answers.compare import compare_query
    from explorer.search.fusion.hybrid import Searcher

    vault = vault_folder(args.vault, readable=False)
    a, b = _settings(args.a, "--a", args.limit), _settings(args.b, "--b", args.limit)
    db = open_readonly(vault, args.data_dir)
    try:
        lexical = a.mode == b.mode == Mode.FTS
        provider = EmbedderProvider.disabled() if lexical else shared_provider(args.model)
        comparison = compare_query(Searcher(db, provider), args.query, a, b)
    finally:
        db.close()
    if comparison.semantic_reason is not None:
        say(
            f"vault-explorer: semantic unavailable ({comparison.semantic_reason}); "
            "hybrid settings show the lexical result",
            sys.stderr,
        )
    if args.json:
        dump_json(comparison.to_json())
    else:
        for line in comparison.lines():
            say(line)
    return 0


def _settings(text: str, flag: str, limit: int | None) -> search_options.SearchOptions:
    """``key=value,…`` of ``flag`` over the defaults (``--limit`` over both); one line naming
    ``flag`` when it is wrong."""
    try:
        options = search_options.parse(text)
        return replace(options, limit=limit).validate() if limit is not None else options
    except QueryError as exc:
        shown = text if len(text) <= 80 else text[:60] + "…"
        raise QueryError(f"{flag} {shown!r}: {exc}") from None
