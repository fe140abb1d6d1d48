"""``vault-explorer related VAULT NOTE_PATH``: the notes nearest in meaning to one note.

Read-only: the index is read as it is (a read-only connection: no sync, no migration, no
embedding, no model loaded), and the stored chunk vectors are the query
(:func:`explorer.search.answers.related.related`); a running watch or window of the vault answers it
from the vectors it holds (:mod:`explorer.commands.warm`).  A note path the index does not
have is bad input (exit status 2, one line naming the closest paths it does have).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from explorer.commands.warm import alone, served, show
from explorer.console import say, vault_folder, whole_number
from explorer.index.db import index_command
from explorer.mcp.requests import RelatedRequest
from explorer.search.answers.related_limits import DEFAULT_LIMIT, MAX_LIMIT


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "related",
        parents=[common],
        help="the notes nearest in meaning to one note, from the stored vectors (read-only)",
    )
    p.add_argument("vault")
    p.add_argument("note", metavar="NOTE_PATH", help="the note's vault-relative path")
    p.add_argument(
        "--limit",
        type=whole_number(1, MAX_LIMIT),
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"list N notes (1..{MAX_LIMIT}, default {DEFAULT_LIMIT})",
    )
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=cmd_related)


def cmd_related(args: argparse.Namespace) -> int:
    vault = vault_folder(args.vault, readable=False)
    request = RelatedRequest(args.note, args.limit)
    answered = served(vault, args.data_dir, args.model, request)
    if answered is None:
        from explorer.embed.provider import shared_provider

        answered = alone(vault, args.data_dir, args.model, shared_provider(args.model), request)
    data = answered.data or {}
    if not args.json and data.get("reason") is None and data.get("linksKnown") is False:
        say(
            f"vault-explorer: this index stores no links yet; run "
            f"`{index_command(vault, args.data_dir)}` to mark the neighbours already linked",
            sys.stderr,
        )
    return show(answered, args.json)
