"""``vault-explorer explain VAULT QUERY NOTE_PATH``: why one note is where it is for one query,
from the index as it is (no sync, no embedding)."""

from __future__ import annotations

import argparse
from typing import Any

from explorer.commands.common import say_ignored
from explorer.commands.warm import alone, served, show
from explorer.console import vault_folder
from explorer.mcp.requests import ExplainRequest
from explorer.search.query import options as search_options
from explorer.search.query.options import Mode


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "explain", parents=[common], help="why a note is where it is for a query (read-only)"
    )
    p.add_argument("vault")
    p.add_argument("query")
    p.add_argument("note", metavar="NOTE_PATH", help="the note's vault-relative path")
    search_options.add_arguments(p)
    p.add_argument("--json", action="store_true", help="print every reason as JSON")
    p.set_defaults(func=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    vault = vault_folder(args.vault, readable=False)
    options = search_options.from_args(args).validate()
    say_ignored(options, search_options.given_names(args))
    request = ExplainRequest(args.query, args.note, options)
    answered = served(vault, args.data_dir, args.model, request)
    if answered is None:
        from explorer.embed.provider import EmbedderProvider, shared_provider

        provider = shared_provider(args.model) if options.mode != Mode.FTS else None
        chosen = provider or EmbedderProvider.disabled()
        answered = alone(vault, args.data_dir, args.model, chosen, request)
    return show(answered, args.json)
