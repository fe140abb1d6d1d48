"""Choose the calibration on dev halves, report it on test halves: the tuning protocol of issue 21.

    python benchmarks/calibrate.py collect --data-dir DATA --tldr /tmp/tldr/vault \
        --scifact ../shared/data/scifact-train \
        --anki-vault /tmp/anki/vault --anki-questions ../shared/data/anki-manual-questions.tsv
    python benchmarks/calibrate.py report --data-dir DATA [--grid]

``collect`` runs every judged question of each set (the sample vault's, the tldr questions, the
SciFact train claims, the Anki manual's natural questions) and the off-topic queries of
``benchmarks/offtopic-queries.tsv`` once, with the real model, and keeps their candidates (both
lists at depth 50, no floors, the vault cosine spread) in ``DATA/calibrate-SET.pickle``.
``report`` re-fuses them under each setting: nDCG@10 on the dev and the test half of each set (a
query is in the dev half when the first byte of the SHA-256 of its text is even: fixed before
any setting was tried), and the share of off-topic and of judged queries that get
``closeMatch``.  ``--grid`` sweeps the calibration's
constants on the dev halves only and prints the best points by their worst dev margin;
``--choose`` sweeps the constants issue 33 chose the default by (the vector ramp, the
rarity-weighted coverage, the lexical weight) the same way, against the better of each set's
single lists and the ``convex`` preset, and checks the choice on the test halves and by leaving
each set out.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import pickle
import sys
from dataclasses import MISSING, dataclass, fields, replace
from pathlib import Path
from typing import Any

from explorer.embed.provider import shared_provider
from explorer.evaluate import title_forms
from explorer.evaluate.corpus import open_beir_index, open_vault_index
from explorer.evaluate.datasets import load_beir, load_judgments
from explorer.evaluate.metrics import ndcg_at_k
from explorer.search.fusion import evidence, fusion, results
from explorer.search.fusion.cached import fetch_options, with_floor
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import PRESETS, SearchOptions
from explorer.vault import parse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OFFTOPIC = HERE / "offtopic-queries.tsv"


@dataclass
class JudgedSet:
    name: str
    qrels: dict[str, dict[str, int]]  # query text -> doc -> grade
    judged: dict[str, Candidates]
    offtopic: dict[str, Candidates]
    to_doc: dict[str, str]
    #: Query text -> "dev" / "test" where the set says (the translated sets' ``# half:``
    #: lines); other queries are split by :func:`is_dev`.
    halves: dict[str, str] | None = None

    def half(self, query: str) -> str:
        given = (getattr(self, "halves", None) or {}).get(query)
        return given or ("dev" if is_dev(query) else "test")


def is_dev(query: str) -> bool:
    return hashlib.sha256(query.encode("utf-8")).digest()[0] % 2 == 0


#: The sets whose halves are split by :func:`is_dev` (the others say their halves).
SPLIT_BY_HASH = ("sample", "tldr", "scifact", "anki")

#: The translated tldr sets (``--intl``): name -> the folder of tldr-intl-vault's pages.
LANGUAGE_SETS = {"de": "de", "fr": "fr", "es": "es", "ja": "ja", "zh": "zh", "en-de": "de"}


def offtopic_queries(vault: str) -> list[str]:
    out = []
    for line in OFFTOPIC.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        which, query = line.split("\t")
        if which in ("any", vault):
            out.append(query)
    return out


def _collect(searcher: Searcher, queries: list[str]) -> dict[str, Candidates]:
    options = fetch_options(SearchOptions(depth=50))
    out = {}
    for i, query in enumerate(queries, start=1):
        out[query] = searcher.candidates(query, options)
        if i % 100 == 0:
            print(f"  {i}/{len(queries)}", file=sys.stderr)
    return out


def collect(args: argparse.Namespace) -> None:
    provider = shared_provider(args.model)
    data = str(args.data_dir)
    sets: list[tuple[str, Any]] = (
        []
        if args.only
        else [
            (
                "sample",
                (
                    ROOT / "resources" / "sample-vault",
                    ROOT / "resources/judgments/sample-vault.tsv",
                ),
            )
        ]
    )
    if args.tldr and args.only in (None, "tldr"):
        sets.append(("tldr", (Path(args.tldr), HERE / "tldr-questions.tsv")))
    if args.scifact and args.only in (None, "scifact"):
        sets.append(("scifact", Path(args.scifact)))
    if args.anki_vault and args.only in (None, "anki"):
        if not args.anki_questions:
            raise SystemExit("--anki-vault needs --anki-questions")
        sets.append(("anki", (Path(args.anki_vault), Path(args.anki_questions))))
    if args.intl:
        if args.only is None:
            sets = []  # --intl collects the translated sets alone
        for name, folder in LANGUAGE_SETS.items():
            sets.append((name, (Path(args.intl) / folder, HERE / f"tldr-questions-{name}.tsv")))
    if args.embed_form:
        parse.EMBED_FORM = parse.EmbedForm(args.embed_form)
    file_names = args.titles == "file-names"
    forms = args.data_dir / "file-named"
    for name, source in sets:
        print(f"{name}: indexing ({args.titles}, {parse.EMBED_FORM.value})", file=sys.stderr)
        if name == "scifact":
            dataset = load_beir(source, "train")
            texts = dataset.queries
            qrels = {texts[qid]: dataset.qrels[qid] for qid in dataset.qrels}
            if file_names:
                to_doc = title_forms.file_named_corpus(dataset, forms / name)
                db, _ = open_vault_index(forms / name, data, provider)
            else:
                db, to_doc, _ = open_beir_index(dataset, source, data, provider)
        else:
            vault, judgments = source
            to_doc = {}
            qrels = {q: dict(g) for q, g in load_judgments(judgments).items()}
            if file_names:
                renamed = title_forms.file_named_vault(vault, forms / name)
                qrels = {q: {renamed.get(p, p): g for p, g in j.items()} for q, j in qrels.items()}
                vault = forms / name
            db, _ = open_vault_index(vault, data, provider)
        try:
            searcher = Searcher(db, provider, embed_timeout=60.0)
            print(f"{name}: {len(qrels)} judged queries", file=sys.stderr)
            judged = _collect(searcher, list(qrels))
            offtopic = _collect(searcher, offtopic_queries(name))
        finally:
            db.close()
        given = None if name in SPLIT_BY_HASH else _halves(source[1])
        out = JudgedSet(name, qrels, judged, offtopic, to_doc, given)
        with _pickle(args.data_dir, name, args.model).open("wb") as handle:
            pickle.dump(out, handle)


def _halves(judgments: Path) -> dict[str, str]:
    """Query text -> half, from the ``# half:`` lines of a translated set."""
    out: dict[str, str] = {}
    half = ""
    for line in judgments.read_text(encoding="utf-8").splitlines():
        if line.startswith("# half:"):
            half = line.split(":", 1)[1].strip()
        elif line.strip() and not line.startswith("#") and not line.startswith("query\t"):
            out.setdefault(line.split("\t")[0], half)
    return {q: h for q, h in out.items() if h}


def _pickle(data_dir: Path, name: str, model: str | None) -> Path:
    suffix = f"-{model}" if model else ""
    return data_dir / f"calibrate-{name}{suffix}.pickle"


class _Unpickler(pickle.Unpickler):
    """Reads pickles collected before the result types left ``explorer.search.fusion.hybrid`` for
    ``explorer.search.fusion.results``, and those of a ``calibrate.py`` run as a script."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "__main__" and name == "JudgedSet":
            return JudgedSet
        if module == "explorer.search.fusion.hybrid" and hasattr(results, name):
            return getattr(results, name)
        return super().find_class(module, name)


def _load(data_dir: Path, model: str | None = None) -> list[JudgedSet]:
    sets = []
    for name in (*SPLIT_BY_HASH, *LANGUAGE_SETS):
        path = _pickle(data_dir, name, model)
        if path.exists():
            with path.open("rb") as handle:
                loaded = _Unpickler(handle).load()
            for found in (*loaded.judged.values(), *loaded.offtopic.values()):
                _complete(found)
            sets.append(loaded)
    return sets


def _complete(found: Candidates) -> None:
    """Give candidates pickled before a field was added that field's default (they then
    fuse as the code of their day did)."""
    for f in fields(Candidates):
        if not hasattr(found, f.name):
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            object.__setattr__(found, f.name, default)


def score(s: JudgedSet, options: SearchOptions) -> dict[str, Any]:
    """nDCG@10 on the dev and test halves, and the best calibrated score of every judged and
    off-topic query by half (what closeMatch compares with the bar)."""
    halves: dict[str, list[float]] = {"dev": [], "test": []}
    best: dict[str, list[float]] = {
        "judged-dev": [],
        "judged-test": [],
        "off-dev": [],
        "off-test": [],
    }
    for query, found in s.judged.items():
        floored = with_floor(found, options)
        paths = fusion.ranked(floored, replace(options, limit=10))
        docs = [s.to_doc.get(p, p) for p in paths]
        half = s.half(query)
        halves[half].append(ndcg_at_k(docs, s.qrels[query], 10))
        best[f"judged-{half}"].append(_best(floored, options))
    for query, found in s.offtopic.items():
        half = "dev" if is_dev(query) else "test"
        best[f"off-{half}"].append(_best(with_floor(found, options), options))
    out: dict[str, Any] = {
        "dev": sum(halves["dev"]) / max(1, len(halves["dev"])),
        "test": sum(halves["test"]) / max(1, len(halves["test"])),
        "best": best,
    }
    bar = evidence.CALIBRATION.close
    judged = best["judged-dev"] + best["judged-test"]
    off = best["off-dev"] + best["off-test"]
    out["closeJudged"] = sum(b >= bar for b in judged) / max(1, len(judged))
    out["closeOff"] = sum(b >= bar for b in off) / max(1, len(off))
    return out


def _best(found: Candidates, options: SearchOptions) -> float:
    depth = min(options.depth, found.depth)
    strength = fusion.calibrated_scores(found, options, found.lexical[:depth], found.vector[:depth])
    return max((fusion.combined(e) for e in strength.values()), default=0.0)


SETTINGS: dict[str, SearchOptions] = {
    "fts": SearchOptions(mode="fts"),
    "semantic": SearchOptions(mode="semantic", min_rel=0.0),
    "semantic (floor .8)": SearchOptions(mode="semantic", min_rel=0.8),
    "convex (the default before)": PRESETS["convex"],
    "rrf-floor (seed RRF, min-sim .3)": PRESETS["rrf-floor"],
    "rrf": PRESETS["rrf"],
    "calibrated (the default)": PRESETS["default"],
}


#: The columns of :func:`table`: each single list, the default and the convex preset.
TABLE: dict[str, SearchOptions] = {
    "fts": SETTINGS["fts"],
    "semantic": SETTINGS["semantic"],
    "hybrid": PRESETS["default"],
    "convex": PRESETS["convex"],
}


def ndcg(s: JudgedSet, options: SearchOptions) -> dict[str, float]:
    """nDCG@10 of ``s`` under ``options`` on its dev and its test half (no closeMatch)."""
    halves: dict[str, list[float]] = {"dev": [], "test": []}
    for query, found in s.judged.items():
        paths = fusion.ranked(with_floor(found, options), replace(options, limit=10))
        docs = [s.to_doc.get(p, p) for p in paths]
        halves[s.half(query)].append(ndcg_at_k(docs, s.qrels[query], 10))
    return {h: sum(v) / max(1, len(v)) for h, v in halves.items()}


def singles(sets: list[JudgedSet]) -> dict[str, dict[str, float]]:
    """Set -> half -> nDCG@10 of the better single list (fts or semantic) on that half."""
    out = {}
    for s in sets:
        fts, sem = ndcg(s, TABLE["fts"]), ndcg(s, TABLE["semantic"])
        out[s.name] = {h: max(fts[h], sem[h]) for h in ("dev", "test")}
    return out


def table(sets: list[JudgedSet]) -> None:
    """Per set and half: nDCG@10 of each single list, the default and convex, and the margin
    of the default over the better single list (what issue 33 is about: it must be > 0)."""
    print(f"{'set':<10} {'half':<5} {'n':>4}" + "".join(f"{c:>9}" for c in TABLE) + "   margin")
    for s in sets:
        scores = {c: ndcg(s, o) for c, o in TABLE.items()}
        for h in ("dev", "test"):
            n = sum(s.half(q) == h for q in s.judged)
            row = f"{s.name:<10} {h:<5} {n:>4}" + "".join(f"{scores[c][h]:9.3f}" for c in TABLE)
            best = max(scores["fts"][h], scores["semantic"][h])
            print(row + f"   {scores['hybrid'][h] - best:+.3f}")


def report(args: argparse.Namespace) -> None:
    sets = _load(args.data_dir, args.model)
    if args.file_names:
        # The same collections titled by file names: sets of their own, so that a choice is
        # made on the worst of both forms (issue 44).
        for s in _load(args.file_names, args.model):
            s.name = f"{s.name}/fn"
            sets.append(s)
    table(sets)
    if args.choose:
        grid_choice(sets)
        return
    names = [s.name for s in sets]
    print("setting".ljust(34) + "".join(f"{n:>24}" for n in names))
    print(" " * 34 + "".join(f"{'dev / test / off / judg':>24}" for _ in names))
    for label, options in SETTINGS.items():
        row = label.ljust(34)
        for s in sets:
            r = score(s, options)
            row += f"  {r['dev']:.3f}/{r['test']:.3f}/{r['closeOff']:.2f}/{r['closeJudged']:.2f}"
        print(row)
    if args.grid and args.model:
        grid_vector(sets, args.model)
    elif args.grid:
        grid(sets)
    if args.bars:
        bars(sets, SETTINGS["calibrated (the default)"])


def grid(sets: list[JudgedSet]) -> None:
    """Sweep the calibration on the dev halves; print the best by the worst dev margin over the
    better single list of each set (same as the protocol's rule: a default must win everywhere)."""
    singles = {
        s.name: max(score(s, SETTINGS["fts"])["dev"], score(s, SETTINGS["semantic"])["dev"])
        for s in sets
    }
    axes = {
        "cos_low": (0.1, 0.2),
        "cos_high": (0.5, 0.6),
        "z_low": (0.0, 1.0, 2.0),
        "z_high": (4.0, 6.0),
        "coverage_power": (1.0, 2.0),
        "bm25_share": (0.3, 0.6),
        "w_fts": (0.8, 1.0),
        "min_rel": (0.0, 0.6),
    }
    rows = []
    base = evidence.CALIBRATION
    for values in itertools.product(*axes.values()):
        point: dict[str, Any] = dict(zip(axes, values, strict=True))
        cal = replace(
            base,
            **{k: v for k, v in point.items() if k not in ("w_fts", "min_rel")},
        )
        evidence.CALIBRATION = cal
        options = SearchOptions(
            fusion="calibrated", w_fts=point["w_fts"], w_vec=1.0, min_rel=point["min_rel"]
        )
        devs = {s.name: score(s, options)["dev"] for s in sets}
        margin = min(devs[n] - singles[n] for n in devs)
        rows.append((margin, point, devs))
    evidence.CALIBRATION = base
    rows.sort(key=lambda r: -r[0])
    for margin, point, devs in rows[:15]:
        print(f"{margin:+.3f} " + " ".join(f"{n}={d:.3f}" for n, d in devs.items()), point)


#: The axes :func:`grid_choice` sweeps (issue 33): the vector ramp in standard deviations and
#: its absolute top, the rarity-weighted coverage and the lexical weight.  The default (z 0.5 → 3,
#: cos → 0.8, rarity 0.5, weight 0.7) is the best point of this grid by the worst dev margin.
CHOICE_AXES: dict[str, tuple[Any, ...]] = {
    "z_low": (-0.5, 0.0, 0.5),
    "z_high": (2.5, 3.0, 4.0, 5.0),
    "cos_high": (0.8, 0.9),
    "w_fts": (0.7, 0.8, 0.9),
    "rarity": (0.0, 0.5),
}


def _options_at(point: dict[str, Any]) -> SearchOptions:
    """The default's options with ``point``'s weight (the calibration is set apart)."""
    return replace(PRESETS["default"], w_fts=point.get("w_fts", PRESETS["default"].w_fts))


def _calibration_at(point: dict[str, Any]) -> evidence.Calibration:
    fields = set(evidence.Calibration.__dataclass_fields__)
    return replace(evidence.CALIBRATION, **{k: v for k, v in point.items() if k in fields})


def sweep(
    sets: list[JudgedSet], axes: dict[str, tuple[Any, ...]]
) -> list[tuple[dict[str, Any], dict[str, dict[str, float]]]]:
    """Every point of ``axes`` and its nDCG@10 per set and half (both computed, so that the
    test halves of the point chosen on the dev halves need no second pass)."""
    rows = []
    base = evidence.CALIBRATION
    try:
        for values in itertools.product(*axes.values()):
            point = dict(zip(axes, values, strict=True))
            evidence.CALIBRATION = _calibration_at(point)
            options = _options_at(point)
            rows.append((point, {s.name: ndcg(s, options) for s in sets}))
    finally:
        evidence.CALIBRATION = base
    return rows


def choose(
    rows: list[tuple[dict[str, Any], dict[str, dict[str, float]]]],
    best: dict[str, dict[str, float]],
    names: list[str],
) -> list[tuple[float, float, dict[str, Any], dict[str, dict[str, float]]]]:
    """``rows`` ordered by the worst dev margin over ``best`` (the bar each set sets) of each of
    ``names``, then by the mean dev margin: (worst, mean, point, scores), best first."""
    out = []
    for point, scores in rows:
        margins = [scores[n]["dev"] - best[n]["dev"] for n in names]
        out.append((min(margins), sum(margins) / len(margins), point, scores))
    out.sort(key=lambda r: (-r[0], -r[1]))
    return out


def bars_to_beat(sets: list[JudgedSet]) -> dict[str, dict[str, float]]:
    """Set -> half -> the nDCG@10 the default must beat there: the better of the set's single
    lists and the ``convex`` preset (issue 33: never below meaning alone, nor the old default)."""
    best = singles(sets)
    for s in sets:
        convex = ndcg(s, PRESETS["convex"])
        best[s.name] = {h: max(best[s.name][h], convex[h]) for h in ("dev", "test")}
    return best


def grid_choice(sets: list[JudgedSet]) -> None:
    """Issue 33: sweep :data:`CHOICE_AXES` on the dev halves; choose by the worst dev margin
    over the sets against :func:`bars_to_beat`; print the test halves of the choice and the
    leave-one-set-out check (choose on three sets' dev halves, read the fourth)."""
    best = bars_to_beat(sets)
    names = [s.name for s in sets]
    rows = sweep(sets, CHOICE_AXES)
    ordered = choose(rows, best, names)
    print("\nbest points by worst dev margin (then mean), dev nDCG@10 per set:")
    for worst, mean, point, scores in ordered[:15]:
        cells = " ".join(f"{n}={scores[n]['dev']:.3f}" for n in names)
        print(f"{worst:+.3f} mean {mean:+.3f} {cells}", point)
    baseline = next(r for r in ordered if _is_default(r[2]))
    print(f"\nthe default: worst {baseline[0]:+.3f} mean {baseline[1]:+.3f}", baseline[2])
    plain = next(r for r in ordered if r[2].get("rarity") == 0.0)
    print(f"best with every word alike: worst {plain[0]:+.3f} mean {plain[1]:+.3f}", plain[2])
    _, _, chosen, scores = ordered[0]
    print("\nchosen:", chosen)
    for half in ("dev", "test"):
        cells = " ".join(
            f"{n}={scores[n][half]:.3f} ({scores[n][half] - best[n][half]:+.3f})" for n in names
        )
        print(f"  {half}: {cells}")
        change = " ".join(f"{n}={scores[n][half] - baseline[3][n][half]:+.3f}" for n in names)
        print(f"  {half} against the default: {change}")
    by_kind(sets, {"default": baseline[2], "chosen": chosen})
    print("\nleave one set out (choose on the other sets' dev halves, read this one):")
    for out in names:
        _, _, point, sc = choose(rows, best, [n for n in names if n != out])[0]
        dev = sc[out]["dev"] - best[out]["dev"]
        test = sc[out]["test"] - best[out]["test"]
        base = baseline[3][out]
        print(
            f"  {out:<8} margin dev {dev:+.3f} test {test:+.3f}"
            f" (default: {base['dev'] - best[out]['dev']:+.3f}"
            f" / {base['test'] - best[out]['test']:+.3f})",
            point,
        )


#: The judged sets whose questions say their kind (``# kind:`` lines): name -> file.
KIND_FILES = {
    "sample": ROOT / "resources/judgments/sample-vault.tsv",
    "tldr": HERE / "tldr-questions.tsv",
}


def kinds_of(name: str) -> dict[str, str]:
    """Query -> its kind (natural, paraphrase, identifier, error, …) where the set says."""
    path = KIND_FILES.get(name)
    if path is None or not path.exists():
        return {}
    out: dict[str, str] = {}
    kind = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# kind:"):
            kind = line.split(":", 1)[1].strip()
        elif line.strip() and not line.startswith("#") and kind:
            out.setdefault(line.split("\t")[0], kind)
    return out


def by_kind(sets: list[JudgedSet], points: dict[str, dict[str, Any]]) -> None:
    """nDCG@10 per kind of question (both halves: read after choosing) under each of
    ``points``, and how many questions keep a grade-3 note at rank 1 (an identifier or an
    error paste must)."""
    base = evidence.CALIBRATION
    for s in sets:
        kinds = kinds_of(s.name)
        if not kinds:
            continue
        print(f"\n{s.name} by kind: nDCG@10 (top-1 is a grade-3 note)")
        results: dict[str, dict[str, list[tuple[float, bool]]]] = {}
        try:
            for label, point in points.items():
                evidence.CALIBRATION = _calibration_at(point)
                options = _options_at(point)
                for query, found in s.judged.items():
                    paths = fusion.ranked(with_floor(found, options), replace(options, limit=10))
                    docs = [s.to_doc.get(p, p) for p in paths]
                    top = bool(docs) and s.qrels[query].get(docs[0], 0) >= 3
                    kind = kinds.get(query, "?")
                    cell = (ndcg_at_k(docs, s.qrels[query], 10), top)
                    results.setdefault(kind, {}).setdefault(label, []).append(cell)
        finally:
            evidence.CALIBRATION = base
        for kind, per in sorted(results.items()):
            cells = []
            for label in points:
                got = per[label]
                mean = sum(n for n, _ in got) / len(got)
                cells.append(f"{label} {mean:.3f} ({sum(t for _, t in got)}/{len(got)})")
            print(f"  {kind:<11} " + "  ".join(cells))


def _is_default(point: dict[str, Any]) -> bool:
    cal = evidence.CALIBRATION
    return all(
        getattr(cal, k) == v if hasattr(cal, k) else PRESETS["default"].w_fts == v
        for k, v in point.items()
    )


def grid_vector(sets: list[JudgedSet], model: str) -> None:
    """Sweep ``model``'s vector ramps (:data:`explorer.search.fusion.evidence.MODEL_RAMPS`) on the
    dev halves, everything else as the default; print the best by the worst dev margin of hybrid
    over the better single list, then by the mean."""
    singles = {
        s.name: max(score(s, SETTINGS["fts"])["dev"], score(s, SETTINGS["semantic"])["dev"])
        for s in sets
    }
    axes = {
        "cos_low": (0.0, 0.5, 0.6, 0.7, 0.75, 0.8),
        "cos_high": (0.8, 0.85, 0.9, 0.95, 1.0),
        "z_low": (0.0, 1.0, 2.0),
        "z_high": (2.0, 2.5, 3.0, 4.0, 6.0),
    }
    rows = []
    saved = dict(evidence.MODEL_RAMPS)
    for values in itertools.product(*axes.values()):
        point = dict(zip(axes, values, strict=True))
        if point["cos_high"] <= point["cos_low"] or point["z_high"] <= point["z_low"]:
            continue
        evidence.MODEL_RAMPS[model] = dict(point)
        scores = {s.name: score(s, PRESETS["default"]) for s in sets}
        devs = {name: r["dev"] for name, r in scores.items()}
        margin = min(devs[n] - singles[n] for n in devs)
        off = [b for r in scores.values() for b in r["best"]["off-dev"]]
        judged = [b for r in scores.values() for b in r["best"]["judged-dev"]]
        bar = evidence.CALIBRATION.close
        point["off"] = round(sum(b >= bar for b in off) / max(1, len(off)), 2)
        point["judged"] = round(sum(b >= bar for b in judged) / max(1, len(judged)), 2)
        rows.append((margin, sum(devs.values()) / len(devs), point, devs))
    evidence.MODEL_RAMPS.clear()
    evidence.MODEL_RAMPS.update(saved)
    rows.sort(key=lambda r: (-r[0], -r[1]))
    for margin, mean, point, devs in rows[:15]:
        cells = " ".join(f"{n}={d:.3f}" for n, d in devs.items())
        print(f"{margin:+.3f} mean {mean:.3f} {cells}", point)


def bars(sets: list[JudgedSet], options: SearchOptions) -> None:
    """The share of dev queries with a close match at each bar: judged (want high) and
    off-topic (want low), over every set."""
    judged: list[float] = []
    off: list[float] = []
    for s in sets:
        best = score(s, options)["best"]
        judged += best["judged-dev"]
        off += best["off-dev"]
    for bar in [x / 100 for x in range(15, 65, 5)]:
        j = sum(b >= bar for b in judged) / len(judged)
        o = sum(b >= bar for b in off) / len(off)
        print(f"bar {bar:.2f}: judged dev close {j:.2f}, off-topic dev close {o:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--data-dir", type=Path, required=True)
    c.add_argument("--tldr")
    c.add_argument("--scifact")
    c.add_argument("--anki-vault", help="the Anki manual's vault/ folder (anki-manual-vault)")
    c.add_argument("--anki-questions", help="anki-manual-questions.tsv")
    c.add_argument("--only", choices=("tldr", "scifact", "anki"), help="collect this set alone")
    c.add_argument("--intl", help="tldr-intl-vault's vault/ folder: collect the translated sets")
    c.add_argument("--model", help="as search's --model (pickles are named after it)")
    c.add_argument(
        "--titles",
        choices=("as-written", "file-names"),
        default="as-written",
        help="file-names: each note titled by its file name alone (explorer.evaluate.title_forms)",
    )
    c.add_argument(
        "--embed-form",
        choices=[f.value for f in parse.EmbedForm],
        help="embed chunks in this form (explorer.vault.parse.EmbedForm) instead of the default",
    )
    c.set_defaults(func=collect)
    r = sub.add_parser("report")
    r.add_argument("--data-dir", type=Path, required=True)
    r.add_argument("--grid", action="store_true")
    r.add_argument("--bars", action="store_true")
    r.add_argument(
        "--choose",
        action="store_true",
        help="sweep the constants the default was chosen by (issue 33)",
    )
    r.add_argument("--model", help="report the pickles collected with this --model")
    r.add_argument(
        "--file-names",
        type=Path,
        metavar="DIR",
        help="also the pickles of `collect --titles file-names` in DIR, as sets of their own",
    )
    r.set_defaults(func=report)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
