"""Time and peak memory of showing hostile notes in the preview, each in a fresh process.

    QT_QPA_PLATFORM=offscreen python benchmarks/preview_budgets.py [CASE,CASE,...] [--timeout 600]

For each case a temporary vault is written, then, as the preview does it: the vault's links and
the note are read (``load``), rendered to HTML (``markdown``: the preview's worker thread), set
on a ``QTextBrowser`` 900×700, laid out and painted once (``qt``: the GUI thread).  Wall seconds
and CPU seconds of each phase are printed (on a loaded machine the CPU seconds are the steadier
figure), with the process's peak resident memory.  A case that does not finish within the
timeout is killed and said so.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
]
CAP = 5 * 1024 * 1024 - 4096  # just under the 5 MB a note may have


def _words(n: int, rnd: random.Random) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(n))


def _fill(line: Callable[[int], str]) -> str:
    """Lines ``line(0)``, ``line(1)``… until the size cap is reached."""
    out, size, n = [], 0, 0
    while size < CAP:
        text = line(n)
        out.append(text)
        size += len(text)
        n += 1
    return "".join(out)


def cases() -> dict[str, dict[str, str]]:
    """Each case: the files of its vault, the note shown being ``n.md``."""
    rnd = random.Random(1)
    out: dict[str, dict[str, str]] = {}

    def staircase(depth: int) -> str:
        return "".join("> " * d + f"[!note] Level {d}\n" for d in range(1, depth + 1))

    out["callouts-1000"] = {"n.md": staircase(1000)}
    for depth in (8, 12, 14):
        out[f"callouts-{depth}"] = {"n.md": staircase(depth)}
    forty = "".join(">" * d + f" [!note] Note at depth {d}\n" for d in range(1, 41))
    out["callouts-40-lines"] = {"n.md": forty}  # 1.8 KB
    twenty = ("# Twenty embeds\n\n" + "![[big]]\n\n" * 20).ljust(217)  # 217 bytes
    big, size = [], 0
    while size < 1_000_000:
        big.append(_words(60, rnd) + "\n\n")
        size += len(big[-1])
    out["embed-20x1MB"] = {"n.md": twenty, "big.md": "".join(big)}
    out["5MB-one-line"] = {"n.md": _words(CAP // 5, rnd)[:CAP]}
    out["5MB-nested-lists"] = {
        "n.md": _fill(lambda n: "  " * (n % 30) + f"- item {n} {_words(4, rnd)}\n")
    }
    header = "| " + " | ".join(f"h{c}" for c in range(8)) + " |\n|" + "---|" * 8 + "\n"
    row = " | ".join(["{}"] * 8)
    out["5MB-table"] = {
        "n.md": header
        + _fill(lambda n: "| " + row.format(*(_words(2, rnd) for _ in range(8))) + " |\n")
    }
    out["5MB-nested-quotes"] = {
        "n.md": _fill(lambda n: "> " * (n % 30 + 1) + _words(6, rnd) + "\n")
    }
    stack = "> [!note] a\n> > [!tip] b\n> > > [!bug] c\n> > > "
    out["5MB-callouts-3deep"] = {"n.md": _fill(lambda n: stack + _words(8, rnd) + "\n\n")}
    one = "> [!note] One line callout "
    out["5MB-sibling-callouts"] = {"n.md": _fill(lambda n: one + _words(3, rnd) + "\n\n")}
    body = "".join("> > " + _words(60, rnd) + "\n> >\n" for _ in range(CAP // 400))
    out["5MB-in-one-callout"] = {"n.md": "> [!note] Everything\n> > [!tip] Inside\n" + body}
    code = "".join(_words(8, rnd) + "\n" for _ in range(CAP // 50))
    out["5MB-code"] = {"n.md": "```\n" + code + "```\n"}
    out["5MB-empty-embeds"] = {"n.md": "![[empty]]\n\n" * (CAP // 12), "empty.md": ""}
    out["5MB-wide-table"] = {"n.md": "|" + "a|" * (CAP // 4) + "\n|" + "-|" * (CAP // 4) + "\n"}
    out["5MB-wikilinks"] = {"n.md": "[[empty]] " * (CAP // 10), "empty.md": ""}
    out["5MB-emphasis"] = {"n.md": "*a* " * (CAP // 4)}
    small = "".join(_words(30, rnd) + "\n\n" for _ in range(10))
    out["5MB-embeds"] = {"n.md": "![[small]]\n\n" * (CAP // 12), "small.md": small}
    out["5MB-word"] = {"n.md": "x" * CAP}
    return out


def run(case: str) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    vault = Path(tempfile.mkdtemp())
    for name, text in cases()[case].items():
        (vault / name).write_text(text, encoding="utf-8")
    size = (vault / "n.md").stat().st_size
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from explorer.gui.preview import NoteBrowser, palette_colours
    from explorer.preview.document import load_note
    from explorer.preview.links import vault_links
    from explorer.preview.note import render_note
    from explorer.preview.style import document_css

    browser = NoteBrowser()
    browser.resize(900, 700)
    browser.vault = vault
    colours = palette_colours(browser.palette())
    browser.document().setDefaultStyleSheet(document_css(colours))
    browser.show()
    app.processEvents()
    wall, cpu = [time.perf_counter()], [time.process_time()]

    def lap() -> None:
        wall.append(time.perf_counter())
        cpu.append(time.process_time())

    links = vault_links(vault)
    doc = load_note(vault, "n.md")
    lap()
    html = render_note(doc, None, None, colours, links)
    lap()
    browser.setHtml(html)
    browser.document().size()  # the whole layout
    browser.viewport().grab()  # and a paint
    app.processEvents()
    lap()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    phases = "  ".join(
        f"{name} {wall[i + 1] - wall[i]:6.2f} s ({cpu[i + 1] - cpu[i]:6.2f} cpu)"
        for i, name in enumerate(("load", "markdown", "qt"))
    )
    print(
        f"{case:22s} {size:>9,} B  html {len(html):>10,}  {phases}  peak {peak:5.0f} MB", flush=True
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", default="all")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run(args.cases)
        return
    names = list(cases()) if args.cases == "all" else args.cases.split(",")
    for name in names:
        try:
            command = [sys.executable, __file__, name, "--one"]
            subprocess.run(command, timeout=args.timeout, check=False)
        except subprocess.TimeoutExpired:
            print(f"{name:22s} did not finish within {args.timeout:.0f} s (killed)", flush=True)


if __name__ == "__main__":
    main()
