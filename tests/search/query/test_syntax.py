"""The query syntax table: one source (:mod:`explorer.search.query.syntax`) for the README, the
window's help and the MCP tool, and true to what the parser reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.mcp.server import QUERY_SYNTAX
from explorer.search.query import syntax
from explorer.search.query.query import parse_query

README = Path(__file__).resolve().parents[3] / "README.md"
_CODE = re.compile(r"`([^`]*)`")


def test_the_readme_holds_the_generated_table() -> None:
    text = README.read_text(encoding="utf-8")
    assert syntax.readme_with_table(text) == text, (
        "README.md's syntax table is not the generated one: run "
        "python -m explorer.search.query.syntax --write-readme"
    )


def test_write_readme_replaces_a_stale_table_and_keeps_the_rest(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{syntax.BEGIN}\n| old | table |\n{syntax.END}\n\nafter\n")
    assert syntax.main(["--write-readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text == f"# Title\n\n{syntax.BEGIN}\n{syntax.markdown_table()}{syntax.END}\n\nafter\n"
    assert "| old |" not in text
    with pytest.raises(ValueError, match="markers"):
        syntax.readme_with_table("no markers here")


def test_the_table_is_one_line_a_form() -> None:
    lines = syntax.markdown_table().splitlines()
    assert len(lines) == len(syntax.ROWS) + 2
    assert all(line.count(" | ") == 2 for line in lines[2:])


def test_every_filter_example_is_read_as_a_filter() -> None:
    """Each example of a filter row parses to that filter, not to words (a malformed one would
    be searched as text with a note)."""
    for row in syntax.ROWS:
        if not any(mark in row.form for mark in (":", "[")):
            continue
        for example in _CODE.findall(row.example):
            query = parse_query(example)
            assert query.has_filters and not query.notes, example
            assert not query.terms, example


def test_every_form_the_parser_reads_is_in_the_table() -> None:
    text = syntax.markdown_table()
    for form in ('"', "-word", " OR ", "*", "tag:", "path:", "linkto:", "linkedfrom:", "[prop"):
        assert form in text, form
    for form in ("-[…]", "modified:", "created:", ">=", "7d", "y` (365 days)"):
        assert form in text, form


def test_the_mcp_tool_describes_its_query_with_the_table() -> None:
    assert syntax.described() == QUERY_SYNTAX
    for row in syntax.ROWS:
        assert syntax.plain(row.meaning) in QUERY_SYNTAX


def test_the_html_table_has_a_row_a_form_with_code_in_a_fixed_font() -> None:
    html = syntax.html_table()
    assert html.count("<tr>") == len(syntax.ROWS) + 1
    assert "<code>tag:NAME</code>" in html and "`" not in html
    assert "<code>[prop:&gt;N]</code>" in html
