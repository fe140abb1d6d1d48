"""``vault-explorer status VAULT``: the index's health, read-only — counts, model, vectors
pending, the last sync, SQLite's own integrity check, the watcher, the notes skipped.
``--rebuild fts|all`` first rebuilds the full-text table, or the whole index from the vault."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path
from typing import Any

from explorer.commands.common import no_index
from explorer.commands.index import index_vault
from explorer.console import dump_json, say, vault_folder
from explorer.embed.models import model_name
from explorer.index.db import IndexDB, index_path
from explorer.index.lease import WriterLease


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("status", parents=[common], help="index health (read-only)")
    p.add_argument("vault")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--rebuild",
        choices=("fts", "all"),
        help="first rebuild the full-text table (fts) or the whole index from the vault (all)",
    )
    p.set_defaults(func=cmd_status)


def cmd_status(args: argparse.Namespace) -> int:
    from explorer.live import Health, WatcherState, stored_health
    from explorer.live.health import waiting_text

    vault = vault_folder(args.vault, readable=False)
    model = model_name(args.model)
    path = index_path(vault, args.data_dir)
    if args.rebuild and not path.exists():
        raise no_index(vault, args.data_dir)
    if args.rebuild:
        with WriterLease.acquire(path, f"vault-explorer status --rebuild {args.rebuild}"):
            _rebuild(args, vault, path)
    if not path.exists():
        if args.json:
            dump_json(Health(str(vault), str(path)).to_json())
        else:
            say(f"{vault} is not indexed yet (database would be {path})")
        return 0
    db = IndexDB.open_existing(vault, args.data_dir)
    try:
        health = stored_health(db, model)
    finally:
        db.close()
    if args.json:
        dump_json(health.to_json())
        return 0
    index, watcher = health.index, health.watcher
    assert index is not None and watcher is not None  # an index was read, with its state
    say(f"vault       {index.vault}")
    say(f"database    {index.database} ({index.database_bytes / 1e6:.1f} MB)")
    say(f"notes       {index.notes}")
    say(f"chunks      {index.chunks}")
    if index.language_line:
        say(f"languages   {index.language_line}")
    say(f"model       {index.model}")
    say(f"vectors     {index.vectors} (pending embeddings: {index.pending_embeddings})")
    if index.restyling_line:
        say(f"            {index.restyling_line}")
    for other, count in index.other_models.items():
        say(f"            {count} vectors of another model: {other}")
    say(
        f"last sync   {_age(index.last_sync_age)}"
        + (f" — {index.last_sync_summary}" if index.last_sync_summary else "")
    )
    say(f"integrity   {index.integrity}")
    say(f"fts         {index.fts_integrity}")
    if index.damaged_vectors:
        say(f"            {index.damaged_vectors} damaged vectors (never used in a search)")
    if index.integrity != "ok" or index.fts_integrity != "ok" or index.damaged_vectors:
        only_fts = index.integrity == "ok" and not index.damaged_vectors
        say(
            f"            the index is damaged: `vault-explorer status {vault} --rebuild "
            f"{'fts' if only_fts else 'all'}` rebuilds it from the vault"
        )
    role = f"{watcher.role}, " if watcher.role else ""
    running = watcher.state is not WatcherState.STOPPED
    pid = f" ({role}pid {watcher.pid})" if running and watcher.pid else ""
    reason = f": {watcher.reason}" if watcher.reason else ""
    say(f"watcher     {watcher.state.value}{pid}{reason}")
    if running and watcher.embedding_paused:
        resume = f"kill -USR2 {watcher.pid} resumes it" if "watch" in (watcher.role or "") else ""
        waiting = waiting_text(index.pending_embeddings)
        say(f"embedding   paused · {waiting}" + (f" ({resume})" if resume else ""))
    if health.last_batch:
        last = health.last_batch
        say(f"last batch  {_age(time.time() - last.time)} — {last.summary}")
    say(f"skipped     {len(index.skipped)}")
    for skipped in index.skipped:
        say(f"  {skipped.path}: {skipped.reason}")
    if index.warnings:
        say(f"warnings    {len(index.warnings)}")
        for warned in index.warnings:
            say(f"  {warned.path}: {warned.warning}")
    return 0


def _rebuild(args: argparse.Namespace, vault: Path, path: Path) -> None:
    """``status --rebuild``; the caller holds the writer lease, so no other process is using
    the database that ``all`` deletes."""
    if args.rebuild == "fts":
        db = IndexDB.open_existing(vault, args.data_dir)
        try:
            db.rebuild_fts()
        finally:
            db.close()
        say("rebuilt the full-text table from the notes", sys.stderr)
        return
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with contextlib.redirect_stdout(sys.stderr):  # stdout is for the status (--json)
        index_vault(argparse.Namespace(**{**vars(args), "no_embed": False}), vault)


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - seconds))
