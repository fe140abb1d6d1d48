"""nDCG@10 of fts, semantic and hybrid on the judged tldr sets in other languages, by half.

    python benchmarks/languages.py --intl /tmp/vault --data-dir DATA [--model NAME] [--out DIR]
        [--sets de,fr,es,ja,zh,en-de] [--english /tmp/vault-en] [--half dev]

Runs ``vault-explorer eval`` once per set (``benchmarks/tldr-questions-LANG.tsv`` over
``INTL/LANG``, the folders of tldr-intl-vault.tar.gz; ``en-de`` is the English questions over the
German pages; ``en`` is ``tldr-questions.tsv`` over the English vault given with ``--english``),
keeps each run's per-query breakdown in ``OUT`` and prints one markdown table: nDCG@10 per mode on
the dev and the test half.  A question's half is the ``# half:`` line above it in the set (decided
by the SHA-256 of its English text, so a question is in the same half in every language); the
English set's is :func:`calibrate.is_dev` of the question.  Indexes are cached in ``DATA``, one
per vault and model.  ``--half dev`` runs and prints the dev questions only (what a change is
chosen on: the test half is then never ranked, let alone looked at).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from calibrate import is_dev

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODES = ("fts", "semantic", "hybrid")
LANGUAGES = {
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "ja": "Japanese",
    "zh": "Chinese",
    "en-de": "English questions, German notes",
    "en": "English",
}


def halves(judgments: Path) -> dict[str, str]:
    """Query text -> "dev" or "test", from the ``# half:`` lines (or the query's own hash)."""
    out: dict[str, str] = {}
    half = None
    for line in judgments.read_text(encoding="utf-8").splitlines():
        if line.startswith("# half:"):
            half = line.split(":", 1)[1].strip()
        elif line.strip() and not line.startswith("#") and line != "query\tpath\tgrade":
            query = line.split("\t")[0]
            out.setdefault(query, half or ("dev" if is_dev(query) else "test"))
    return out


def one_half(judgments: Path, half: str, out: Path) -> Path:
    """A copy of ``judgments`` in ``out`` holding only the questions of ``half``."""
    half_of = halves(judgments)
    lines = [
        line
        for line in judgments.read_text(encoding="utf-8").splitlines()
        if not line.strip()
        or line.startswith("#")
        or line == "query\tpath\tgrade"
        or half_of[line.split("\t")[0]] == half
    ]
    kept = out / f"{judgments.stem}-{half}.tsv"
    kept.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return kept


def run(name: str, vault: Path, judgments: Path, args: argparse.Namespace) -> Path:
    """One ``eval`` run (skipped when its per-query file is there); the per-query file."""
    per_query = args.out / f"{name}.json"
    if per_query.exists():
        return per_query
    if args.half:
        judgments = one_half(judgments, args.half, args.out)
    command = [sys.executable, "-m", "explorer", "eval", str(vault), "--judgments", str(judgments)]
    command += ["--data-dir", str(args.data_dir), "--per-query", str(per_query)]
    if args.model:
        command += ["--model", args.model]
    report = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=os.environ)
    (args.out / f"{name}.txt").write_text(report.stdout + report.stderr, encoding="utf-8")
    if report.returncode != 0:
        raise SystemExit(f"{name}: eval failed\n{report.stderr}")
    return per_query


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--intl", type=Path, required=True, help="the unpacked vault/ folder")
    parser.add_argument("--english", type=Path, help="the unpacked English tldr vault/")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--model", help="as eval's --model (default: the default model)")
    parser.add_argument("--out", type=Path, help="per-query files (default DATA/languages-MODEL)")
    parser.add_argument("--sets", default="de,fr,es,ja,zh,en-de")
    parser.add_argument("--half", choices=("dev", "test"), help="run only this half's questions")
    args = parser.parse_args()
    args.out = args.out or args.data_dir / f"languages-{args.model or 'default'}"
    args.out.mkdir(parents=True, exist_ok=True)
    print("| set | queries (dev/test) | fts dev / test | semantic dev / test | hybrid dev / test |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.sets.split(","):
        if name == "en":
            if args.english is None:
                raise SystemExit("the en set needs --english")
            vault, judgments = args.english, HERE / "tldr-questions.tsv"
        else:
            vault = args.intl / name.removeprefix("en-")
            judgments = HERE / f"tldr-questions-{name}.tsv"
        half_of = halves(judgments)
        rows = json.loads(run(name, vault, judgments, args).read_text(encoding="utf-8"))
        by_half: dict[str, list[dict[str, float]]] = {"dev": [], "test": []}
        for row in rows:
            by_half[half_of[row["query"]]].append(row)
        cells = []
        for mode in MODES:
            means = [
                f"{sum(r[f'ndcg_{mode}'] for r in by_half[h]) / len(by_half[h]):.3f}"
                if by_half[h]
                else "–"
                for h in ("dev", "test")
            ]
            cells.append(" / ".join(means))
        counts = f"{len(by_half['dev'])}/{len(by_half['test'])}"
        print(f"| {LANGUAGES[name]} | {counts} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
