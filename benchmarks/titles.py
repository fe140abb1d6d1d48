"""A note's own name typed as the query: is the note found first? (issue 44, item 3)

    python benchmarks/titles.py measure VAULT [VAULT ...] --data-dir DATA [--modes fts,hybrid]
    python benchmarks/titles.py retitle VAULT OUT

``measure`` types every unique title and alias of each vault, in lower case, and reports the
share of them whose note is first (exact names) and, for four near forms of each name, the share
whose note is in the top 3: a word dropped (the last), a word added (``about`` before it), the
last word's plural (or singular, when it ends in ``s``), and one typo (two letters of its longest
word swapped).  A near form that is itself the name of some note is left out (it names that
note), and so is a form that cannot be made (a one-word name has no word to drop).  It also says
the share of those searches that have a close match (``closeMatch``) and the mean time of a
search.  A name held by several notes (``tar`` in two folders) is found when any of them is.

``retitle`` copies a vault in the form most Obsidian vaults have: each note's title only in its
file name (its first H1 and frontmatter ``title:`` removed, the file named by that title:
``deck-options.md`` with ``# Deck Options`` becomes ``Deck Options.md``).

The script searches with the ``explorer`` that Python imports: run it with
``PYTHONPATH=<checkout>`` to measure that checkout's code (before and after a change).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from explorer.embed.provider import shared_provider
from explorer.evaluate.corpus import open_vault_index
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions

KINDS = ("drop a word", "add a word", "plural", "typo")
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> tuple[str, ...]:
    """Lower case words, as the names are compared (punctuation aside)."""
    return tuple(_WORD.findall(text.casefold()))


def plural(word: str) -> str:
    """``word``'s plural, or its singular when it ends in ``s``."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and len(word) > 3:
        return word[:-1]
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def near_forms(name: str) -> dict[str, str]:
    """The near forms of ``name`` (lower case) that can be made, by kind."""
    parts = name.split()
    out: dict[str, str] = {}
    if len(parts) >= 2:
        out["drop a word"] = " ".join(parts[:-1])
    out["add a word"] = f"about {name}"
    last = parts[-1] if parts else ""
    if last.isalpha():
        out["plural"] = " ".join([*parts[:-1], plural(last)])
    longest = max(range(len(parts)), key=lambda i: len(parts[i]), default=None)
    if longest is not None and len(parts[longest]) >= 4 and parts[longest].isalpha():
        w = parts[longest]
        if w[1] != w[2]:
            swapped = w[0] + w[2] + w[1] + w[3:]
            out["typo"] = " ".join([*parts[:longest], swapped, *parts[longest + 1 :]])
    return out


@dataclass
class Tally:
    asked: int = 0
    found: int = 0
    close: int = 0
    missed: list[str] = field(default_factory=list)

    def add(self, query: str, found: bool, close: bool | None) -> None:
        self.asked += 1
        self.found += found
        self.close += bool(close)
        if not found:
            self.missed.append(query)

    def share(self, part: int) -> str:
        return f"{100 * part / self.asked:.1f} %" if self.asked else "-"


def names_of(db) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
    """Every unique title and alias of the index, in lower case, and the notes holding it."""
    names: dict[str, set[str]] = defaultdict(set)
    for path, title in db.conn.execute("SELECT path, title FROM notes"):
        if title.strip():
            names[title.strip().lower()].add(path)
    for path, alias in db.conn.execute(
        "SELECT n.path, a.alias FROM note_aliases a JOIN notes n ON n.id = a.note_id"
    ):
        if alias.strip():
            names[alias.strip().lower()].add(path)
    return names


def measure(args: argparse.Namespace) -> None:
    modes = args.modes.split(",")
    provider = shared_provider(None) if "hybrid" in modes else None
    for vault in args.vaults:
        db, _ = open_vault_index(Path(vault), str(args.data_dir), provider)
        try:
            names = names_of(db)
            aliases = db.conn.execute("SELECT count(*) FROM note_aliases").fetchone()[0]
            by_words = {words(n) for n in names}
            print(f"\n{vault}: {len(names)} unique names ({aliases} aliases)")
            for mode in modes:
                searcher = Searcher(db, provider or shared_provider(None), embed_timeout=60.0)
                options = SearchOptions(mode=mode, limit=10)
                exact = Tally()
                near = {kind: Tally() for kind in KINDS}
                spent = 0.0
                searches = 0

                def top(
                    query: str,
                    n: int,
                    searcher: Searcher = searcher,
                    options: SearchOptions = options,
                ) -> tuple[list[str], bool | None]:
                    nonlocal spent, searches
                    started = time.perf_counter()
                    response = searcher.search(query, options)
                    spent += time.perf_counter() - started
                    searches += 1
                    return [h.path for h in response.hits[:n]], response.close_match

                for name, paths in sorted(names.items()):
                    hits, close = top(name, 1)
                    exact.add(name, bool(paths & set(hits)), close)
                    for kind, form in near_forms(name).items():
                        if words(form) in by_words or not words(form):
                            continue  # it names a note of its own
                        hits, close = top(form, 3)
                        near[kind].add(form, bool(paths & set(hits)), close)
                print(
                    f"  {mode:6} exact {exact.asked:5}: rank 1 {exact.share(exact.found):>7}, "
                    f"close match {exact.share(exact.close):>7}   "
                    f"({1000 * spent / max(searches, 1):.1f} ms a search)"
                )
                for kind, tally in near.items():
                    print(
                        f"  {'':6} {kind:11} {tally.asked:5}: top 3 {tally.share(tally.found):>7}, "
                        f"close match {tally.share(tally.close):>7}"
                    )
                if args.show:
                    print(f"    exact missed: {exact.missed[: args.show]}")
                    for kind, tally in near.items():
                        print(f"    {kind} missed: {tally.missed[: args.show]}")
        finally:
            db.close()


_H1 = re.compile(r"^# +(.+?) *#*\s*$", re.MULTILINE)
_TITLE = re.compile(r"^title:.*\n", re.MULTILINE)
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]]')


def retitle(args: argparse.Namespace) -> None:
    """Copy ``args.vault`` to ``args.out`` with each title in its file name alone."""
    source, out = Path(args.vault), Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    taken: set[Path] = set()
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if path.is_dir() or any(part.startswith(".") for part in rel.parts):
            continue
        target = out / rel
        if path.suffix.lower() == ".md":
            text = path.read_text(encoding="utf-8")
            title = None
            if text.startswith("---\n"):
                end = text.find("\n---", 4)
                if end > 0:
                    front = text[: end + 1]
                    found = re.search(r"^title:\s*(.+)$", front, re.MULTILINE)
                    if found:
                        title = found.group(1).strip().strip("'\"")
                    text = _TITLE.sub("", front, count=1) + text[end + 1 :]
                    if text.startswith("---\n---"):
                        text = text[len("---\n---") :].lstrip("\n")
            heading = _H1.search(text)
            if heading:
                title = title or heading.group(1).strip()
                text = text[: heading.start()] + text[heading.end() :].lstrip("\n")
            if title:
                name = _UNSAFE.sub(" ", title).strip() or path.stem
                target = target.with_name(f"{name}.md")
                while target in taken:
                    target = target.with_name(f"{target.stem} ({rel.stem}).md")
            taken.add(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    print(f"{out}: {len(taken)} notes")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="type every title and alias; report rank 1 and top 3")
    m.add_argument("vaults", nargs="+")
    m.add_argument("--data-dir", type=Path, required=True, help="where the indexes go")
    m.add_argument("--modes", default="fts,hybrid", help="comma-separated: fts, hybrid")
    m.add_argument("--show", type=int, default=0, help="print this many misses of each kind")
    m.set_defaults(run=measure)
    r = sub.add_parser("retitle", help="copy a vault with its titles in its file names only")
    r.add_argument("vault")
    r.add_argument("out")
    r.set_defaults(run=retitle)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
