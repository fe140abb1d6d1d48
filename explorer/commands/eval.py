"""``vault-explorer eval DATASET``: retrieval quality per mode (nDCG@10, MRR@10, recall@k) on
a BEIR-format folder or on a vault with judgments, and with ``--sweep`` hybrid at every point of
a grid from the same run (:mod:`explorer.evaluate`)."""

from __future__ import annotations

import argparse
from typing import Any

from explorer.commands.common import positive_count
from explorer.console import TerminalProgress, UsageError, dump_json, say
from explorer.home import expand_home
from explorer.search.query import options as search_options
from explorer.search.query.query import QueryError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "eval",
        parents=[common],
        help="retrieval quality per mode, on a BEIR data set or a vault with judgments",
        description="Retrieval quality (nDCG@10, MRR@10, recall@1/3/10/100) of the fts, semantic "
        "and hybrid modes, on a BEIR-format folder (corpus.jsonl, queries.jsonl, "
        "qrels/SPLIT.tsv) or on a vault with a judgments file (query<TAB>note path<TAB>grade "
        "0-3). The corpus index is cached under the data directory.",
    )
    p.add_argument("dataset", metavar="DATASET", help="BEIR folder, or a vault with --judgments")
    p.add_argument("--split", default="test", help="qrels split of a BEIR folder (default test)")
    p.add_argument("--judgments", metavar="FILE", help="judgments.tsv: evaluate DATASET as a vault")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    search_options.add_arguments(
        p,
        only=["preset", *(name for name in search_options.RANKING if name != "mode")],
        notes={"depth": "default 100, for recall@100"},
    )
    p.add_argument(
        "--modes",
        type=_modes,
        default=search_options.MODES,
        help=f"comma-separated modes to evaluate (default {','.join(search_options.MODES)})",
    )
    p.add_argument(
        "--per-query",
        metavar="FILE",
        help="write each query's first relevant rank per mode, and whether hybrid "
        "helped or hurt (.json for JSON, else TSV)",
    )
    p.add_argument(
        "--limit-queries",
        type=positive_count,
        metavar="N",
        help="evaluate only the first N queries",
    )
    p.add_argument(
        "--sweep",
        nargs="?",
        const="",
        metavar="GRID",
        help="also score hybrid at every setting of GRID from the same run (no new searches): "
        "name=values;… with values a,b,c or start:stop:step, names fusion, k, weight (the "
        "lexical share: w_fts, and w_vec one minus it), w_fts, w_vec, min_sim, min_rel, depth "
        "(default: fusion=rrf,convex;k=20,40,60,100;weight=0:1:0.1)",
    )
    p.set_defaults(func=cmd_eval)


def cmd_eval(args: argparse.Namespace) -> int:
    from explorer.embed.provider import shared_provider
    from explorer.evaluate.datasets import DatasetError, load_beir, load_judgments
    from explorer.evaluate.judgments import judgments_path
    from explorer.evaluate.report import format_report, stderr_log, write_per_query
    from explorer.evaluate.runner import evaluate_beir, evaluate_vault
    from explorer.evaluate.settings import EVAL_OPTIONS, EvalError, EvalSettings
    from explorer.evaluate.sweep import DEFAULT_GRID, format_sweep, grid, parse_grid, sweep

    folder = expand_home(args.dataset)
    if not folder.is_dir():
        raise UsageError(f"not a folder: {args.dataset}")
    axes = None
    if args.sweep is not None:
        try:
            axes = parse_grid(args.sweep or DEFAULT_GRID)
            grid(search_options.from_args(args, EVAL_OPTIONS), axes)  # every point is valid
        except ValueError as exc:  # QueryError
            raise UsageError(str(exc)) from None
    folder = folder.resolve()
    settings = EvalSettings(search_options.from_args(args, EVAL_OPTIONS), modes=args.modes)
    progress = TerminalProgress()
    try:
        settings.validate()
        provider = shared_provider(args.model) if settings.needs_model else None
        judgments_file = expand_home(args.judgments) if args.judgments else None
        if judgments_file is None and not (folder / "corpus.jsonl").is_file():
            # A vault without --judgments: the grades given in the window, beside its index.
            judgments_file = judgments_path(folder, args.data_dir)
            if not judgments_file.is_file():
                raise UsageError(
                    f"{folder} has no judgments yet ({judgments_file} does not exist); "
                    "grade hits in the window or pass --judgments FILE"
                )
        # How either run goes: the settings, the model, where indexes live, how it reports.
        run: dict[str, Any] = {
            "settings": settings,
            "provider": provider,
            "data": args.data_dir,
            "limit_queries": args.limit_queries,
            "progress": progress,
            "log": stderr_log,
        }
        if judgments_file is not None:
            judgments = load_judgments(judgments_file)
            if not judgments:
                raise UsageError(f"{judgments_file}: no judgments in the file")
            report = evaluate_vault(folder, judgments, **run)
        else:
            report = evaluate_beir(load_beir(folder, args.split), folder, args.split, **run)
    except (DatasetError, EvalError) as exc:
        raise UsageError(str(exc)) from None
    except QueryError as exc:
        raise UsageError(str(exc)) from None
    finally:
        progress.close()
    if args.per_query:
        write_per_query(expand_home(args.per_query), report.rows)
        stderr_log(f"per-query breakdown written to {args.per_query}")
    swept = None
    if axes is not None:
        progress = TerminalProgress()
        try:
            swept = sweep(
                report.run.candidates,
                report.qrels,
                settings.search,
                axes,
                to_doc=report.to_doc,
                progress=progress,
            )
        except ValueError as exc:  # QueryError: a point the settings refuse
            raise UsageError(str(exc)) from None
        finally:
            progress.close()
    if args.json:
        out = report.to_json()
        if swept is not None:
            out["sweep"] = swept.to_json()
        dump_json(out)
    else:
        for line in format_report(report).splitlines():
            say(line)
        if swept is not None:
            say("")
            for line in format_sweep(swept).splitlines():
                say(line)
    return 0


def _modes(text: str) -> tuple[str, ...]:
    known = search_options.MODES
    modes = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    if not modes or any(m not in known for m in modes):
        raise argparse.ArgumentTypeError(f"a comma-separated subset of {','.join(known)}")
    return modes
