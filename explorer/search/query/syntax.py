"""The query syntax, written once: what :func:`explorer.search.query.query.parse_query` reads, as
rows of (form, meaning, example).

The README's table is generated from it (between :data:`BEGIN` and :data:`END`; a test fails
when the README holds another text: ``python -m explorer.search.query.syntax --write-readme``
rewrites it), the window's Help ▸ Query Syntax renders it as a table, and the MCP ``search``
tool describes its ``query`` argument with it (:func:`described`).  Text in backticks is
code: the README keeps it, the window shows it in a fixed font, the one-line forms drop the
backticks.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SyntaxRow:
    """One form of the syntax: how it is written, what it does, and an example to type."""

    form: str
    meaning: str
    example: str


ROWS: tuple[SyntaxRow, ...] = (
    SyntaxRow(
        "words",
        "notes with all the words first, then notes with any (stop words such as `the` alone "
        "never count)",
        "`cdn purge`",
    ),
    SyntaxRow('`"a phrase"`', "the exact phrase", '`"cache purge"`'),
    SyntaxRow(
        "`-word`",
        "leaves out notes with it, from both lists (only before a word of 2+ characters that "
        'starts with a letter, or a `"phrase"`: pasted flags such as `kill -9` are searched)',
        "`deploy -staging`",
    ),
    SyntaxRow("`a OR b`", "either word", "`cdn OR edge`"),
    SyntaxRow("`prefix*`", "words starting with it", "`roll*`"),
    SyntaxRow("`tag:NAME`", "only notes with the tag (several: all of them)", "`tag:ops`"),
    SyntaxRow(
        "`path:FOLDER/`",
        "only notes under the folder (several: any of them; quoted when it has spaces)",
        '`path:ops/`, `path:"my notes/"`',
    ),
    SyntaxRow(
        "`linkto:NOTE`",
        "only notes that link to the note (a vault path, with or without `.md`, a name or an "
        "alias; quoted when it has spaces)",
        '`linkto:"Accepted file formats"`',
    ),
    SyntaxRow("`linkedfrom:NOTE`", "only notes the note links to", "`linkedfrom:ops/runbook`"),
    SyntaxRow(
        "`[prop:value]`, `[prop]`, `-[…]`",
        "only notes whose frontmatter property has the value (without case; a list: any of its "
        'values; quoted when it has spaces or brackets, a `"` inside doubled), or has the '
        "property at all; `-[…]` leaves them out",
        '`[status:"in progress"]`, `[due]`',
    ),
    SyntaxRow(
        "`[prop:>N]`",
        "compares a number or a date (`>`, `>=`, `<`, `<=`); a date is the period it names: "
        "`[due:>2024-06]` is from July 2024 on; any year 1–9999; a time with an offset is the "
        "date as written, quoted or not (`2024-03-15T02:00+05:00` is the 15th)",
        "`[rating:>3]`, `[due:<2025-01-01]`",
    ),
    SyntaxRow(
        "`modified:DATE`, `created:DATE`",
        "the file time, or the creation date (the frontmatter's, else the file's), in the year, "
        "month or day named, or after or before it (`>`, `>=`, `<`, `<=`)",
        "`modified:>2024-06`",
    ),
    SyntaxRow(
        "`modified:AGE`, `created:AGE`",
        "an age in `h`, `d`, `w`, `m` (30 days) or `y` (365 days): `<7d` less than 7 days old, "
        "`>1y` more than a year",
        "`modified:<7d`",
    ),
    SyntaxRow(
        "nothing, or filters alone",
        "the most recently modified notes that pass the filters, as many as the limit (20; "
        "the window's 100), and how many pass",
        "`tag:ops`",
    ),
    SyntaxRow(
        "anything else",
        "searched as text (a malformed `[…]` too, with a one-line note): no query causes an "
        "FTS5 syntax error; one over 1,000 characters is refused",
        "`kill -9`",
    ),
)

#: The lines of the README that hold the generated table (kept, with the table between them).
BEGIN = "<!-- syntax:begin (python -m explorer.search.query.syntax --write-readme) -->"
END = "<!-- syntax:end -->"


def markdown_table() -> str:
    """The rows as a Markdown table, as the README holds it."""
    lines = ["| form | means | e.g. |", "| --- | --- | --- |"]
    for row in ROWS:
        cells = (_cell(row.form), _cell(row.meaning), _cell(row.example))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plain(text: str) -> str:
    """``text`` without its backticks (the one-line forms)."""
    return text.replace("`", "")


def forms() -> str:
    """Every form that is written some way, on one line: what a search field's tooltip can
    show (``words, "a phrase", -word, …``)."""
    return ", ".join(plain(r.form) for r in ROWS if r.form == "words" or r.form.startswith("`"))


def described() -> str:
    """Every form with its meaning and example, as one paragraph (the MCP ``search`` tool's)."""
    rows = (f"{plain(r.form)}: {plain(r.meaning)} (e.g. {plain(r.example)})" for r in ROWS)
    return "Query syntax: " + "; ".join(rows) + "."


def html_table() -> str:
    """The rows as an HTML table (rich text the window shows), code in a fixed font."""
    cells = "".join(
        f"<tr><td>{_html(row.form)}</td><td>{_html(row.meaning)}</td>"
        f"<td>{_html(row.example)}</td></tr>"
        for row in ROWS
    )
    head = "".join(f"<th align='left'>{name}</th>" for name in ("Form", "Means", "E.g."))
    return f"<table cellspacing='0' cellpadding='3'><tr>{head}</tr>{cells}</table>"


def readme_with_table(text: str) -> str:
    """``text`` (the README) with the generated table between its markers; ``ValueError``
    when they are missing."""
    start = text.find(BEGIN)
    end = text.find(END, start)
    if start < 0 or end < 0:
        raise ValueError(f"the README has no {BEGIN!r} … {END!r} markers")
    return text[: start + len(BEGIN)] + "\n" + markdown_table() + text[end:]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


_CODE = re.compile(r"`([^`]*)`")


def _html(text: str) -> str:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _CODE.sub(r"<code>\1</code>", escaped)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m explorer.search.query.syntax", description="The query syntax table."
    )
    parser.add_argument(
        "--write-readme",
        metavar="README",
        nargs="?",
        const=str(Path(__file__).resolve().parents[2] / "README.md"),
        help="write the table into README between its markers (default: the project's)",
    )
    args = parser.parse_args(argv)
    if args.write_readme is None:
        sys.stdout.write(markdown_table())
        return 0
    path = Path(args.write_readme)
    path.write_text(readme_with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
