"""The command line: ``vault-explorer`` (also ``python -m explorer``), over the same core as the
window.  Exit status 0 on success, 2 on bad input, 1 when the machine stands in the way (a
read-only folder, a full disk, a busy index) — each with one line on stderr, no traceback.

Names, titles and reasons come from the vault and are untrusted: every line of text goes through
:func:`explorer.display.safe_text` (:func:`say`), and JSON is written with every control and
bidi character escaped (:func:`dump_json`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, TextIO

from explorer import __version__
from explorer.console import (
    EnvironmentProblem,
    TerminalProgress,
    UsageError,
    dump_json,
    say,
    vault_folder,
    whole_number,
)
from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider, shared_provider
from explorer.embed.sbert import model_name
from explorer.index.db import (
    ENV_DATA_DIR,
    IndexDB,
    IndexError_,
    IndexUnavailable,
    data_dir,
    describe_error,
    index_path,
    is_environment,
)
from explorer.index.embedding import embed_pending
from explorer.index.lease import WriterLease, holder
from explorer.index.sync import SyncReport, sync_vault
from explorer.resources import sample_vault_dir
from explorer.search import options as search_options
from explorer.search.answer import bring_up_to_date, search_index, waiting_text
from explorer.search.compare import compare_query
from explorer.search.explain import explain as explain_note
from explorer.search.hybrid import Searcher, SearchResponse, SemanticUnavailable
from explorer.search.query import QueryError


def sample_vault() -> Path:
    """The bundled sample vault (package data: see :mod:`explorer.resources`)."""
    return sample_vault_dir()


# ----------------------------------------------------------------------------- helpers


def _check_data_dir(override: str | None) -> None:
    """Refuse a data folder that is a file (or lies below one): bad input, exit status 2."""
    folder = data_dir(override)
    named = f"--data-dir {folder}" if override else f"the data folder {folder}"
    if not override and os.environ.get(ENV_DATA_DIR):
        named = f"${ENV_DATA_DIR} {folder}"
    probe = folder
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "" if probe == folder else f" ({probe} is a file)"
        raise UsageError(f"{named} is not a folder{where}; give a folder (created if missing)")


def _open(args: argparse.Namespace, vault: Path) -> IndexDB:
    db = IndexDB.open(vault, args.data_dir)
    for notice in db.notices:
        say(f"vault-explorer: {notice}", sys.stderr)
    return db


def _sync(db: IndexDB, progress: TerminalProgress) -> SyncReport:
    report = sync_vault(db, progress)
    for path, reason in sorted(report.skipped.items()):
        say(f"skipped {path}: {reason}", sys.stderr)
    for path, warnings in sorted(report.warnings.items()):
        for warning in warnings:
            say(f"warning {path}: {warning}", sys.stderr)
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
    vault = vault_folder(args.vault)
    with WriterLease.acquire(index_path(vault, args.data_dir), "vault-explorer index"):
        return _index(args, vault)


def _index(args: argparse.Namespace, vault: Path) -> int:
    """``index``'s work; the caller holds the writer lease."""
    progress = TerminalProgress()
    db = _open(args, vault)
    try:
        report = _sync(db, progress)
        say(f"indexed {vault}: {report.summary()}")
        if not args.no_embed:
            say(_embed(db, shared_provider(args.model), progress))
    finally:
        progress.close()
        db.close()
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    vault = vault_folder(args.vault, readable=not args.no_sync)
    options = search_options.from_args(args).validate()
    _say_ignored(options, search_options.given_names(args))
    if args.depth is None:
        options = search_options.deep_enough(options)
    if options.depth < options.limit:
        say(
            f"vault-explorer: at most {options.depth} hits per list (--depth {options.depth} "
            f"is below --limit {options.limit})",
            sys.stderr,
        )
    provider = shared_provider(args.model)
    if args.no_sync and not index_path(vault, args.data_dir).exists():
        raise UsageError(f"no index for {vault} yet (run: vault-explorer index {vault})")
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
        db = _open(args, vault)
    except BaseException:
        if lease is not None:
            lease.release()
        raise
    try:
        if lease is not None:
            progress = TerminalProgress()
            try:
                bring_up_to_date(db, provider, options, progress)
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
        say(
            f"vault-explorer: {waiting_text(answer.waiting)}; run `vault-explorer index {vault}` "
            f"(or `watch`) to embed them — {using}",
            sys.stderr,
        )
    if args.json:
        dump_json(answer.to_json())
    else:
        print_table(answer.response, sys.stdout)
    return 0


def _say_ignored(options: search_options.SearchOptions, given: list[str]) -> None:
    for line in search_options.ignored(options, given):
        say(f"vault-explorer: note: {line}", sys.stderr)


def cmd_explain(args: argparse.Namespace) -> int:
    """Why one note is where it is for one query: the index as it is (no sync, no embedding)."""
    vault = vault_folder(args.vault, readable=False)
    options = search_options.from_args(args).validate()
    _say_ignored(options, search_options.given_names(args))
    if not index_path(vault, args.data_dir).exists():
        raise UsageError(f"no index for {vault} yet (run: vault-explorer index {vault})")
    db = _open(args, vault)
    try:
        provider = shared_provider(args.model) if options.mode != "fts" else None
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


def cmd_compare(args: argparse.Namespace) -> int:
    """One query under two settings, side by side: the index as it is (no sync, no embedding),
    one search for both."""
    vault = vault_folder(args.vault, readable=False)
    a, b = _settings(args.a, "--a", args.limit), _settings(args.b, "--b", args.limit)
    if not index_path(vault, args.data_dir).exists():
        raise UsageError(f"no index for {vault} yet (run: vault-explorer index {vault})")
    db = _open(args, vault)
    try:
        lexical = a.mode == b.mode == "fts"
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


def print_table(response: SearchResponse, out: TextIO) -> None:
    """The readable form of a response: one row a hit, scores to five decimals."""
    sem = response.semantic
    mode = response.options.mode
    if mode != "fts" and not sem.available and not response.listing:
        say(f"(semantic unavailable: {sem.reason}; showing the lexical result)", out)
    if response.listing:
        say(f"{len(response.hits)} most recently modified notes", out)
    elif response.close_match is False and response.hits:
        say(no_close_match(response.query), out)
    header = (
        f"{'#':>3}  {'fused':>7}  {'fts':>7}  {'vector':>7}  {'fts#':>4}  {'vec#':>4}  "
        f"{'source':<6}  path — title"
    )
    say(header, out)
    for i, hit in enumerate(response.hits, start=1):
        c = hit.contributions
        say(
            f"{i:>3}  {hit.fused_score:7.5f}  {c.get('fts', 0.0):7.5f}  "
            f"{c.get('vector', 0.0):7.5f}  "
            f"{_rank(hit.fts_rank):>4}  {_rank(hit.vector_rank):>4}  {hit.source or '':<6}  "
            f"{hit.path} — {hit.title}{'  [stale]' if hit.status == 'stale' else ''}",
            out,
        )
    if not response.hits:
        say("no results", out)


def no_close_match(query: str) -> str:
    """The line said when no note clears the calibrated bar (the window says the same)."""
    shown = query if len(query) <= 60 else query[:57] + "…"
    return f"No close match for ‘{shown}’; the nearest notes by meaning are shown"


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


def cmd_status(args: argparse.Namespace) -> int:
    from explorer.live import Health, WatcherState, stored_health

    vault = vault_folder(args.vault, readable=False)
    model = model_name(args.model)
    path = index_path(vault, args.data_dir)
    if args.rebuild and not path.exists():
        raise UsageError(f"no index for {vault} yet (run: vault-explorer index {vault})")
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
        _index(argparse.Namespace(**{**vars(args), "no_embed": False}), vault)


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - seconds))


#: Runs a parsed command: ``fn(args) -> exit status``.
Command = Callable[[argparse.Namespace], int]
#: Adds commands to the parser: ``fn(subparsers, common options parser)``.
Registrar = Callable[[Any, argparse.ArgumentParser], None]


def cmd_gui(args: argparse.Namespace) -> int:
    """The ``gui`` command runs the window that :func:`main` was given (the window lies above
    this module, so it is handed in by :mod:`explorer.entry`, never imported from here)."""
    runner: Command | None = getattr(args, "gui_runner", None)
    if runner is None:
        raise UsageError("this build has no window; use the search, index and status commands")
    return runner(args)


# ----------------------------------------------------------------------------- parser


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line (not the whole usage block), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, safe_text(f"{self.prog}: error: {message} (see {self.prog} --help)") + "\n")


def build_parser(commands: Sequence[Registrar] = ()) -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
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
    parser = _Parser(
        prog="vault-explorer",
        description="Hybrid search over a folder of markdown notes, with the ranking made visible.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("gui", parents=[common], help="open the window")
    p.add_argument("vault", nargs="?", help="vault folder (default: the last one, or the sample)")
    p.add_argument("--query", default="", help="search this at start")
    search_options.add_arguments(
        p,
        only=("mode", "fusion"),
        notes={"mode": "default: the last one used", "fusion": "default: the last one used"},
    )
    p.add_argument("--screenshot", metavar="PNG", help="save the window once results show, exit")
    p.set_defaults(func=cmd_gui)

    p = sub.add_parser("index", parents=[common], help="bring the index up to date")
    p.add_argument("vault")
    p.add_argument("--no-embed", action="store_true", help="lexical index only")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", parents=[common], help="run one search")
    p.add_argument("vault")
    p.add_argument("query")
    depth = search_options.SearchOptions().depth
    search_options.add_arguments(
        p, notes={"depth": f"default {depth}, or the limit if that is more"}
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-sync", action="store_true", help="search the index exactly as it is")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser(
        "explain", parents=[common], help="why a note is where it is for a query (read-only)"
    )
    p.add_argument("vault")
    p.add_argument("query")
    p.add_argument("note", metavar="NOTE_PATH", help="the note's vault-relative path")
    search_options.add_arguments(p)
    p.add_argument("--json", action="store_true", help="print every reason as JSON")
    p.set_defaults(func=cmd_explain)

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

    p = sub.add_parser("status", parents=[common], help="index health (read-only)")
    p.add_argument("vault")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--rebuild",
        choices=("fts", "all"),
        help="first rebuild the full-text table (fts) or the whole index from the vault (all)",
    )
    p.set_defaults(func=cmd_status)

    for register in commands:
        register(sub, common)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    commands: Sequence[Registrar] = (),
    gui: Command | None = None,
) -> int:
    """Parse ``argv`` and run the command, turning errors into one line and an exit status.

    ``commands`` registers more commands than this module's (``watch``, ``eval``, ``bench``);
    ``gui`` runs the window.  :func:`explorer.entry.main` passes both: it is the program."""
    parser = build_parser(commands)
    args = parser.parse_args(argv)  # --help, --version, a usage error: SystemExit (0 or 2)
    if args.command is None:
        args = parser.parse_args(["gui", *(argv or sys.argv[1:])])
    args.gui_runner = gui
    args.data_dir = getattr(args, "data_dir", None)
    args.model = getattr(args, "model", None)
    try:
        _check_data_dir(args.data_dir)
        return int(args.func(args))
    except (UsageError, QueryError, SemanticUnavailable, FileNotFoundError) as exc:
        say(f"vault-explorer: {exc}", sys.stderr)
        return 2
    except EnvironmentProblem as exc:
        say(f"vault-explorer: {exc}", sys.stderr)
        return 1
    except KeyboardInterrupt:
        say("vault-explorer: interrupted", sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (IndexError_, sqlite3.Error, OSError) as exc:
        say(f"vault-explorer: {explain(exc, args)}", sys.stderr)
        return 1


# ----------------------------------------------------------------------------- errors


def explain(exc: BaseException, args: argparse.Namespace) -> str:
    """One line for an error of the machine or of the index: what is wrong and what to do.

    The most telling error in the chain wins: an :class:`IndexUnavailable` (already a sentence
    for the user), an SQLite environment error, an ``OSError`` with a known cause.  A failed
    rollback can hide the full disk that caused it; the chain still holds the full disk."""
    for cause in _chain(exc):
        line = _explain_one(cause, args)
        if line is not None:
            return line
    if isinstance(exc, sqlite3.Error):
        return f"index error: {exc} (run `vault-explorer index VAULT` to rebuild it)"
    if isinstance(exc, OSError):
        where = f": {os.fsdecode(exc.filename)}" if isinstance(exc.filename, (str, bytes)) else ""
        return f"{exc.strerror or exc}{where}"
    return f"index error: {exc}"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _explain_one(exc: BaseException, args: argparse.Namespace) -> str | None:
    if isinstance(exc, IndexUnavailable):
        return str(exc)
    if isinstance(exc, sqlite3.Error) and is_environment(exc):
        vault = getattr(args, "vault", None)
        where = index_path(Path(vault), args.data_dir) if vault else data_dir(args.data_dir)
        return describe_error(exc, where)
    if not isinstance(exc, OSError):
        return None
    name = exc.filename
    target = Path(os.path.abspath(os.fsdecode(name))) if isinstance(name, (str, bytes)) else None
    shown = f" {target}" if target else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full (writing{shown}); free some space and run again"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "read-only file system" if exc.errno == errno.EROFS else "permission denied"
        data = data_dir(args.data_dir)
        if target is not None and (target.is_relative_to(data) or data.is_relative_to(target)):
            return (
                f"cannot write to the data folder {data} ({why}: {target}); fix its permissions, "
                f"or choose another folder with --data-dir or ${ENV_DATA_DIR}"
            )
        vault = getattr(args, "vault", None)
        if target is not None and vault and target.is_relative_to(Path(vault).resolve()):
            return f"cannot read {target} in the vault ({why}); fix its permissions"
        return f"{why}:{shown}; fix the permissions and run again"
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return f"a file is in the way where a folder is needed ({exc.strerror}:{shown})"
    if exc.errno == errno.EISDIR:
        return f"a folder is in the way where a file is needed ({exc.strerror}:{shown})"
    if exc.errno == errno.EIO:
        return f"input/output error{shown and ' on' + shown}; check the disk"
    return None
