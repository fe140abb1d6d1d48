"""``vault-explorer explain VAULT QUERY NOTE_PATH``: why one note is where it is for one query,
from the index as it is (no sync, no embedding)."""

from __future__ import annotations

import argparse
from typing import Any

from explorer.commands.common import open_readonly, say_ignored
from explorer.console import dump_json, say, vault_folder
from explorer.embed.provider import EmbedderProvider, shared_provider
from explorer.search.explain.explain import explain as explain_note
from explorer.search.fusion.hybrid import Searcher
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
    db = open_readonly(vault, args.data_dir)
    try:
        provider = shared_provider(args.model) if options.mode != Mode.FTS else None
        searcher = Searcher(db, provider or EmbedderProvider.disabled())
        result = explain_note(searcher, args.query, args.note, options)
    finally:
        db.close()
    if args.json:
        dump_json(result.to_json())
    else:
        for line in result.lines():
            say(line)
    return 0
