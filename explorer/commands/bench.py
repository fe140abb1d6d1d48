"""``vault-explorer bench [VAULT]``: speed and memory figures — indexing throughput, query
latency per mode, vector top-k, index size, peak memory — on a vault or a generated one, with a
latency budget (exit status 3 when hybrid p95 exceeds ``--budget-p95-ms``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from explorer.commands.common import count, positive_count
from explorer.console import UsageError, dump_json, finite_float, say, whole_number
from explorer.home import expand_home


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "bench",
        parents=[common],
        help="speed and memory figures, with a latency budget",
        description="Indexing throughput, query latency per mode, re-fusion time, vector top-k "
        "against bare numpy and against per-query BLOB reads, index size and peak memory, on "
        "VAULT or on a generated vault of --notes notes.",
    )
    p.add_argument(
        "vault", nargs="?", metavar="VAULT", help="vault to measure (default: generate one)"
    )
    p.add_argument(
        "--notes",
        type=positive_count,
        default=1000,
        help="notes in the generated vault (default 1000)",
    )
    p.add_argument(
        "--seed",
        type=whole_number(0, 2**32 - 1),
        default=0,
        help="seed of the generated vault and queries",
    )
    p.add_argument(
        "--queries", type=positive_count, default=100, help="queries timed per mode (default 100)"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--budget-p95-ms",
        type=finite_float,
        metavar="MS",
        help="exit with status 3 when hybrid p95 latency exceeds MS",
    )
    p.add_argument(
        "--no-embed",
        action="store_true",
        help="no model: random unit vectors stand in for every embedding",
    )
    p.add_argument(
        "--embed-sample",
        type=count,
        metavar="N",
        help="embed only N chunks with the model (for the rate), fill the rest with "
        "random unit vectors through the same storage path",
    )
    p.add_argument(
        "--freshness",
        action="store_true",
        help="also measure edit-to-searchable latency (explorer.evaluate.freshness)",
    )
    p.add_argument(
        "--freshness-samples",
        type=positive_count,
        default=20,
        metavar="N",
        help="edits timed by --freshness (default 20)",
    )
    p.add_argument(
        "--while-embedding",
        action="store_true",
        help="also time question embeddings while the vault's chunks embed in the background, "
        "and the background throughput that costs",
    )
    p.add_argument(
        "--embed-threads-sweep",
        action="store_true",
        help="also time embedding throughput (chunks/s) at 1, 2, ... all cores threads on the "
        "same chunks, one line per setting",
    )
    p.add_argument(
        "--startup",
        action="store_true",
        help="also time start-up in child processes: search cold (new index), warm alone and "
        "with a watch running; the window's first window and first results, cold and warm; "
        "each against its budget",
    )
    p.add_argument(
        "--renames",
        action="store_true",
        help="also time renaming a note and a folder of 100 notes (on a copy): the sync, and "
        "the chunks embedded again in the background",
    )
    p.add_argument(
        "--first-hour",
        nargs="?",
        const=40_000,
        type=positive_count,
        metavar="NOTES",
        help="instead, the first hour of VAULT or of a generated vault of NOTES notes (default "
        "40000): `index` in a child process, timed to every note searchable by words, its "
        "memory while it embeds, and kill -9 in the embedding and in the word index, each "
        "resumed by a new `index`",
    )
    p.add_argument(
        "--embed-minutes",
        type=finite_float,
        default=5.0,
        metavar="MIN",
        help="--first-hour: minutes of embedding watched before the kill (default 5)",
    )
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep the generated vault and its index (printed) instead of deleting",
    )
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from explorer.evaluate.bench import BenchError, BenchSettings, format_bench, run_bench
    from explorer.mcp.served_timing import format_served, time_served

    if args.first_hour is not None:
        return first_hour(args)
    settings = BenchSettings(
        vault=expand_home(args.vault) if args.vault else None,
        notes=args.notes,
        seed=args.seed,
        queries=args.queries,
        embed=not args.no_embed,
        embed_sample=args.embed_sample,
        freshness=args.freshness,
        freshness_samples=args.freshness_samples,
        keep=args.keep,
        while_embedding=args.while_embedding,
        embed_threads_sweep=args.embed_threads_sweep,
        startup=args.startup,
        renames=args.renames,
    )
    try:
        result = run_bench(settings, args.data_dir, args.model, served=time_served)
    except BenchError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        dump_json(result)
    else:
        for line in format_bench(result).splitlines():
            say(line)
        if "warmPath" in result:
            for line in ["", *format_served(result["warmPath"])]:
                say(line)
    budget = args.budget_p95_ms
    if budget is not None:
        p95 = _hybrid_p95(result)
        if p95 is None:
            print(
                "vault-explorer: no hybrid latency was measured; budget not checked",
                file=sys.stderr,
            )
        elif p95 > budget:
            print(
                f"vault-explorer: hybrid p95 {p95:.1f} ms exceeds the budget of {budget:g} ms",
                file=sys.stderr,
            )
            return 3
    return 0


def _hybrid_p95(result: dict[str, Any]) -> float | None:
    hybrid = result.get("latencyMs", {}).get("hybrid")
    return None if hybrid is None else float(hybrid["p95"])


def first_hour(args: argparse.Namespace) -> int:
    """``bench --first-hour``: :mod:`explorer.evaluate.first_hour`."""
    from explorer.evaluate.first_hour import FirstHourSettings, format_first_hour, run_first_hour

    if args.embed_minutes <= 0:
        raise UsageError("--embed-minutes must be positive")
    settings = FirstHourSettings(
        vault=expand_home(args.vault) if args.vault else None,
        notes=args.first_hour,
        seed=args.seed,
        embed_minutes=args.embed_minutes,
        keep=args.keep,
        model=args.model,
    )
    result = run_first_hour(settings, args.data_dir)
    if args.json:
        dump_json(result)
    else:
        for line in format_first_hour(result).splitlines():
            say(line)
    return 0
