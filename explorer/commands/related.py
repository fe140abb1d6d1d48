"""``vault-explorer related VAULT NOTE_PATH``: the notes nearest in meaning to one note.

Read-only: the index is opened as it is (a read-only connection: no sync, no migration, no
embedding, no model loaded), and the stored chunk vectors are the query
(:func:`explorer.search.answers.related.related`).  A note path the index does not have is bad input
(exit status 2, one line naming the closest paths it does have).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from explorer.commands.common import open_readonly
from explorer.console import UsageError, dump_json, say, vault_folder, whole_number
from explorer.embed.sbert import model_name
from explorer.index.db import index_command
from explorer.index.vectors import VectorIndex
from explorer.search.answers.related import (
    DEFAULT_LIMIT,
    LINK_MARK,
    MAX_LIMIT,
    RelatedNotes,
    related,
)
from explorer.search.explain.explain import NoteNotIndexed
from explorer.search.explain.notes_lookup import not_a_note


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
    db = open_readonly(vault, args.data_dir)
    try:
        try:
            result = related(db, VectorIndex(model_name(args.model)), args.note, args.limit)
        except NoteNotIndexed:
            raise UsageError(not_a_note(db.conn, args.note)) from None
    finally:
        db.close()
    if args.json:
        dump_json(result.to_json())
    else:
        print_related(result, vault, args.data_dir)
    return 0


def print_related(result: RelatedNotes, vault: Path, data: str | None = None) -> None:
    """One line a note: rank, cosine to four decimals, whether it is linked, path — title."""
    say(f"related to {result.path} — {result.title}")
    if result.reason is not None:
        say(f"no related notes: {result.reason} (run `{index_command(vault, data)}`)")
        return
    if not result.links_known:
        say(
            f"vault-explorer: this index stores no links yet; run `{index_command(vault, data)}` "
            "to mark the neighbours already linked",
            sys.stderr,
        )
    say(f"{'#':>3}  {'cosine':>6}  {'link':<8}  path — title")
    for i, note in enumerate(result.notes, start=1):
        mark = LINK_MARK.get(note.direction, "") if result.links_known else "?"
        say(f"{i:>3}  {note.cosine:6.4f}  {mark:<8}  {note.path} — {note.title}")
    if not result.notes:
        say("no other note is near it in meaning (every cosine is 0 or below)")
