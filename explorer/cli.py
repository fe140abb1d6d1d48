"""The command line: ``vault-explorer`` (also ``python -m explorer``), over the same core as the
window.  Exit status 0 on success, 2 on bad input (one line on stderr), 1 on a failure."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from explorer import __version__
from explorer.embed.provider import EmbedderProvider, shared_provider
from explorer.embed.sbert import model_name
from explorer.index.db import IndexDB, index_path
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.status import index_status
from explorer.index.sync import SyncReport, sync_vault
from explorer.search.hybrid import (
    DEFAULT_MIN_SIM,
    MODES,
    Searcher,
    SearchOptions,
    SearchResponse,
    SemanticUnavailable,
)
from explorer.search.query import QueryError


class UsageError(Exception):
    """Bad input from the user: one clear line, exit status 2."""


def sample_vault() -> Path:
    """The bundled sample vault (``resources/sample-vault`` of the source tree)."""
    return Path(__file__).resolve().parent.parent / "resources" / "sample-vault"


# ----------------------------------------------------------------------------- progress


class TerminalProgress:
    """tqdm bars on stderr, shown only on a terminal (quiet in pipes, tests and CI logs)."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bars: dict[str, Any] = {}

    def __call__(self, phase: str, done: int, total: int, note: str = "") -> None:
        if not self.enabled or total <= 0:
            return
        from tqdm import tqdm

        bar = self._bars.get(phase)
        if bar is None:
            unit = "chunk" if phase == "embed" else "note"
            bar = tqdm(total=total, desc=phase, unit=unit, file=sys.stderr, leave=True)
            self._bars[phase] = bar
        bar.total = total
        bar.update(done - bar.n)
        if note:
            bar.set_postfix_str(note[-40:], refresh=False)

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()


# ----------------------------------------------------------------------------- helpers


def _vault(path: str) -> Path:
    vault = Path(path).expanduser()
    if not vault.is_dir():
        raise UsageError(f"vault folder not found: {path}")
    return vault.resolve()


def _open(args: argparse.Namespace, vault: Path) -> IndexDB:
    db = IndexDB.open(vault, args.data_dir)
    for notice in db.notices:
        print(f"vault-explorer: {notice}", file=sys.stderr)
    return db


def _sync(db: IndexDB, progress: TerminalProgress) -> SyncReport:
    report = sync_vault(db, progress)
    for path, reason in sorted(report.skipped.items()):
        print(f"skipped {path}: {reason}", file=sys.stderr)
    for path, warnings in sorted(report.warnings.items()):
        for warning in warnings:
            print(f"warning {path}: {warning}", file=sys.stderr)
    return report


def _embed(db: IndexDB, provider: EmbedderProvider, progress: TerminalProgress) -> str:
    """Embed pending chunks; returns a line for the user."""
    try:
        embedder = provider.get()
    except Exception as exc:
        return f"semantic index not updated: {exc}"
    report = embed_pending(db, embedder, lambda d, t, n: progress("embed", d, t, n))
    if report.chunks == 0:
        return f"vectors up to date ({embedder.name})"
    return f"embedded {report.chunks} chunks in {report.seconds:.1f}s ({report.rate:.0f}/s)"


# ----------------------------------------------------------------------------- commands


def cmd_index(args: argparse.Namespace) -> int:
    vault = _vault(args.vault)
    progress = TerminalProgress()
    db = _open(args, vault)
    try:
        report = _sync(db, progress)
        print(f"indexed {vault}: {report.summary()}")
        if not args.no_embed:
            print(_embed(db, shared_provider(args.model), progress))
    finally:
        progress.close()
        db.close()
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    vault = _vault(args.vault)
    options = SearchOptions(
        mode=args.mode,
        limit=args.limit,
        k=args.k,
        w_fts=args.w_fts,
        w_vec=args.w_vec,
        depth=args.depth,
        min_sim=args.min_sim,
        fusion=args.fusion,
    )
    options.validate()
    provider = shared_provider(args.model)
    if args.no_sync:
        if not index_path(vault, args.data_dir).exists():
            raise UsageError(f"no index for {vault} yet (run: vault-explorer index {vault})")
        db = _open(args, vault)
    else:
        db = _open(args, vault)
        progress = TerminalProgress()
        try:
            sync_vault(db, progress)
            if options.mode != "fts" and pending_count(db, provider.name):
                _embed(db, provider, progress)
        finally:
            progress.close()
    try:
        searcher = Searcher(db, provider)
        response = searcher.search(args.query, options)
    finally:
        db.close()
    if args.json:
        json.dump(response.to_json(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(response, sys.stdout)
    return 0


def print_table(response: SearchResponse, out: TextIO) -> None:
    """The readable form of a response: one row a hit, scores to five decimals."""
    sem = response.semantic
    mode = response.options.mode
    if mode != "fts" and not sem.available and not response.listing:
        print(f"(semantic unavailable: {sem.reason}; showing the lexical result)", file=out)
    if response.listing:
        print(f"{len(response.hits)} most recently modified notes", file=out)
    header = (
        f"{'#':>3}  {'fused':>7}  {'fts':>7}  {'vector':>7}  {'fts#':>4}  {'vec#':>4}  "
        f"{'source':<6}  path — title"
    )
    print(header, file=out)
    for i, hit in enumerate(response.hits, start=1):
        c = hit.contributions
        print(
            f"{i:>3}  {hit.fused_score:7.5f}  {c.get('fts', 0.0):7.5f}  "
            f"{c.get('vector', 0.0):7.5f}  "
            f"{_rank(hit.fts_rank):>4}  {_rank(hit.vector_rank):>4}  {hit.source or '':<6}  "
            f"{hit.path} — {hit.title}{'  [stale]' if hit.status == 'stale' else ''}",
            file=out,
        )
    if not response.hits:
        print("no results", file=out)


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


def cmd_status(args: argparse.Namespace) -> int:
    import contextlib

    from explorer.live import persisted_watcher

    vault = _vault(args.vault)
    model = model_name(args.model)
    path = index_path(vault, args.data_dir)
    if args.rebuild and not path.exists():
        raise UsageError(f"no index for {vault} yet (run: vault-explorer index {vault})")
    if args.rebuild == "fts":
        db = IndexDB.open_existing(vault, args.data_dir)
        try:
            db.rebuild_fts()
        finally:
            db.close()
        print("rebuilt the full-text table from the notes", file=sys.stderr)
    elif args.rebuild == "all":
        db = IndexDB.open_existing(vault, args.data_dir)
        try:
            watcher = persisted_watcher(db)
        finally:
            db.close()
        if watcher["state"] != "stopped":
            pid = watcher["pid"]
            raise UsageError(f"a watcher (pid {pid}) is updating this index; stop it first")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        with contextlib.redirect_stdout(sys.stderr):  # stdout is for the status (--json)
            cmd_index(argparse.Namespace(**{**vars(args), "no_embed": False}))
    if not path.exists():
        data: dict[str, Any] = {"vault": str(vault), "database": str(path), "indexed": False}
        if args.json:
            print(json.dumps(data, indent=2))
        else:
            print(f"{vault} is not indexed yet (database would be {path})")
        return 0
    db = IndexDB.open_existing(vault, args.data_dir)
    try:
        data = {"indexed": True, **index_status(db, model)}
        watcher = persisted_watcher(db)
        data["lastBatch"] = watcher.pop("lastBatch")
        data["watcher"] = watcher
    finally:
        db.close()
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    age = data["lastSyncAge"]
    print(f"vault       {data['vault']}")
    print(f"database    {data['database']} ({data['databaseBytes'] / 1e6:.1f} MB)")
    print(f"notes       {data['notes']}")
    print(f"chunks      {data['chunks']}")
    print(f"model       {data['model']}")
    print(f"vectors     {data['vectors']} (pending embeddings: {data['pendingEmbeddings']})")
    for other, count in data["otherModels"].items():
        print(f"            {count} vectors of another model: {other}")
    print(
        f"last sync   {_age(age)}"
        + (f" — {data['lastSyncSummary']}" if data["lastSyncSummary"] else "")
    )
    print(f"fts         {data['ftsIntegrity']}")
    state = data["watcher"]
    pid = f" (pid {state['pid']})" if state["state"] != "stopped" and state["pid"] else ""
    reason = f": {state['reason']}" if state["reason"] else ""
    print(f"watcher     {state['state']}{pid}{reason}")
    if data["lastBatch"]:
        last = data["lastBatch"]
        print(f"last batch  {_age(time.time() - last['time'])} — {last['summary']}")
    print(f"skipped     {len(data['skipped'])}")
    for item in data["skipped"]:
        print(f"  {item['path']}: {item['reason']}")
    if data["warnings"]:
        print(f"warnings    {len(data['warnings'])}")
        for item in data["warnings"]:
            print(f"  {item['path']}: {item['warning']}")
    return 0


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - seconds))


def cmd_gui(args: argparse.Namespace) -> int:
    try:
        from explorer.gui.app import run_gui
    except ImportError as exc:
        raise UsageError(f"the window needs PySide6 ({exc})") from exc
    return run_gui(args)


# ----------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="where indexes are stored (default: $VAULT_EXPLORER_DATA or the user data dir)",
    )
    common.add_argument(
        "--model",
        default=argparse.SUPPRESS,
        help="sentence-transformers model folder (default: $VAULT_EXPLORER_MODEL or the "
        "bundled all-MiniLM-L6-v2)",
    )
    parser = argparse.ArgumentParser(
        prog="vault-explorer",
        description="Hybrid search over a folder of markdown notes, with the ranking made visible.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("gui", parents=[common], help="open the window")
    p.add_argument("vault", nargs="?", help="vault folder (default: the last one, or the sample)")
    p.add_argument("--query", default="", help="search this at start")
    p.add_argument("--mode", choices=MODES, default=None)
    p.add_argument("--screenshot", metavar="PNG", help="save the window once results show, exit")
    p.set_defaults(func=cmd_gui)

    p = sub.add_parser("index", parents=[common], help="bring the index up to date")
    p.add_argument("vault")
    p.add_argument("--no-embed", action="store_true", help="lexical index only")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", parents=[common], help="run one search")
    p.add_argument("vault")
    p.add_argument("query")
    p.add_argument("--mode", choices=MODES, default="hybrid")
    p.add_argument("--limit", type=int, default=20, help="hits to show, 1..100 (default 20)")
    p.add_argument("--k", type=float, default=60.0, help="RRF k (default 60)")
    p.add_argument("--w-fts", type=float, default=0.7, help="weight of the lexical list")
    p.add_argument("--w-vec", type=float, default=0.3, help="weight of the vector list")
    p.add_argument("--depth", type=int, default=50, help="candidates per list (default 50)")
    p.add_argument("--min-sim", type=float, default=DEFAULT_MIN_SIM, help="vector floor")
    p.add_argument("--fusion", default="rrf", help="fusion method (default rrf)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-sync", action="store_true", help="search the index exactly as it is")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("status", parents=[common], help="index health (read-only)")
    p.add_argument("vault")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--rebuild",
        choices=("fts", "all"),
        help="first rebuild the full-text table (fts) or the whole index from the vault (all)",
    )
    p.set_defaults(func=cmd_status)

    for extra in _EXTRA_COMMANDS:
        extra(sub, common)
    return parser


#: Commands contributed by other modules (watch, eval, bench): ``fn(subparsers, common)``.
_EXTRA_COMMANDS: list[Callable[[Any, argparse.ArgumentParser], None]] = []


def main(argv: Sequence[str] | None = None) -> int:
    _load_extra_commands()
    parser = build_parser()
    args = parser.parse_args(argv)
    args.data_dir = getattr(args, "data_dir", None)
    args.model = getattr(args, "model", None)
    if args.command is None:
        args = parser.parse_args(["gui", *(argv or sys.argv[1:])])
        args.data_dir = getattr(args, "data_dir", None)
        args.model = getattr(args, "model", None)
    try:
        return int(args.func(args))
    except (UsageError, QueryError, SemanticUnavailable, FileNotFoundError) as exc:
        print(f"vault-explorer: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:
        print(
            f"vault-explorer: index error: {exc} (run `vault-explorer index` to rebuild)",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("vault-explorer: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _load_extra_commands() -> None:
    """Import the modules that register more commands (kept out of the import of this one)."""
    if _EXTRA_COMMANDS:
        return
    import importlib

    for name in ("explorer.watch_cli", "explorer.evaluate.cli"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        _EXTRA_COMMANDS.append(module.register)
