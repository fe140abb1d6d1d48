"""``vault-explorer index VAULT``: bring the index up to date — the notes, then (unless
``--no-embed``) the vectors of the chunks that have none yet.  It holds the writer lease while
it works, so a window or ``watch`` on the same vault waits for it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.commands.common import add_embed_threads, apply_embed_threads, open_index
from explorer.console import TerminalProgress, say, vault_folder
from explorer.index.db import IndexDB, index_path
from explorer.index.lease import WriterLease

if TYPE_CHECKING:
    from explorer.index.sync import SyncReport
    from explorer.index.update import Update


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("index", parents=[common], help="bring the index up to date")
    p.add_argument("vault")
    p.add_argument("--no-embed", action="store_true", help="lexical index only")
    add_embed_threads(p)
    p.set_defaults(func=cmd_index)


def cmd_index(args: argparse.Namespace) -> int:
    vault = vault_folder(args.vault)
    if not args.no_embed:
        apply_embed_threads(args)
    with WriterLease.acquire(index_path(vault, args.data_dir), "vault-explorer index"):
        return index_vault(args, vault)


def index_vault(args: argparse.Namespace, vault: Path) -> int:
    """``index``'s work; the caller holds the writer lease."""
    from explorer.embed.provider import shared_provider
    from explorer.index.update import bring_up_to_date
    from explorer.live.progress import RateMeter, progress_text

    progress = TerminalProgress()
    db = open_index(args, vault)
    try:
        provider = None if args.no_embed else shared_provider(args.model)
        meter = RateMeter()

        def synced(report: SyncReport) -> None:
            for path, reason in sorted(report.skipped.items()):
                say(f"skipped {path}: {reason}", sys.stderr)
            for path, warnings in sorted(report.warnings.items()):
                for warning in warnings:
                    say(f"warning {path}: {warning}", sys.stderr)
            say(f"indexed {vault}: {report.summary()}")

        def show(done: int, total: int, note: str) -> None:
            rate = meter.add(done)  # the first call (nothing done yet) starts the clock
            progress("embed", done, total, note, status=progress_text(done, total, rate))

        update = bring_up_to_date(db, provider, progress, synced=synced, embed_progress=show)
        if provider is not None:
            say(_embedded(db, provider.name, update))
    finally:
        progress.close()
        db.close()
    return 0


def _embedded(db: IndexDB, model: str, update: Update) -> str:
    """What the embedding did, in a line for the user."""
    from explorer.index.embedding import pending_counts
    from explorer.live.progress import searchable_text

    if update.embedded is None:
        return f"semantic index not updated: {update.unavailable}"
    report = update.embedded
    _, waiting = pending_counts(db, model)
    notes = int(db.conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    searchable = searchable_text(max(0, notes - waiting), notes)
    if report.chunks == 0:
        return f"vectors up to date ({model}); {searchable}"
    return (
        f"embedded {report.chunks:,} chunks in {report.seconds:.1f}s ({report.rate:.0f}/s); "
        f"{searchable}"
    )
