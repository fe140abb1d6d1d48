"""The preview's budgets: however a note nests its blocks or however big its tables, the HTML Qt
is given stays within them, and everything the note says is still shown."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from explorer.preview.budget import (
    CALLOUT_DEPTH,
    LONG_WORD,
    NESTING_DEPTH,
    TABLE_CELLS,
    TABLE_CHARS,
    TAG_CHARS,
    Budget,
)
from explorer.preview.markdown import markdown_to_safe_html
from explorer.preview.note import note_page
from explorer.preview.style import Colours

#: The blocks Qt lays out one inside another.
CONTAINERS = frozenset({"blockquote", "ul", "ol", "table"})


class _Depth(HTMLParser):
    """The deepest nesting of some tags in an HTML fragment, and the text inside tables."""

    def __init__(self, tags: frozenset[str]) -> None:
        super().__init__()
        self.tags = tags
        self.open: list[str] = []
        self.deepest = 0
        self.in_tables = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.tags:
            self.open.append(tag)
            self.deepest = max(self.deepest, len(self.open))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.tags and self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if "table" in self.open:
            self.in_tables += len(data)


def depth(html: str, tags: frozenset[str] = CONTAINERS) -> int:
    parser = _Depth(tags)
    parser.feed(html)
    return parser.deepest


def text_in_tables(html: str) -> int:
    parser = _Depth(frozenset({"table"}))
    parser.feed(html)
    return parser.in_tables


def render(text: str, budget: Budget | None = None) -> str:
    return markdown_to_safe_html(text, note_page("n.md", Colours(), None, budget=budget))


def staircase(levels: int) -> str:
    """Callouts nested ``levels`` deep, one a line, as the issue's hostile note."""
    return "".join("> " * d + f"[!note] Level {d}\n" for d in range(1, levels + 1))


@pytest.mark.slow
def test_callouts_nested_a_thousand_deep_stay_within_the_budgets() -> None:
    out = render(staircase(1000) + "\nAfter the callouts.\n")
    assert depth(out, frozenset({"table"})) <= CALLOUT_DEPTH
    assert depth(out) <= NESTING_DEPTH
    assert "Level 1000" in out and "<p>After the callouts.</p>" in out


def test_a_callout_deeper_than_the_budget_is_a_quote_under_its_coloured_title() -> None:
    out = render(staircase(CALLOUT_DEPTH + 1) + "> " * (CALLOUT_DEPTH + 1) + "The body.\n")
    assert out.count("<table") == CALLOUT_DEPTH
    deepest = out[out.index("<blockquote>") :]
    assert re.search(r'<p style="color:#[0-9a-f]{6}; ?font-weight:bold">✎ Level \d+</p>', deepest)
    assert f"Level {CALLOUT_DEPTH + 1}" in deepest and "The body." in deepest
    assert "[!note]" not in out


def _mixed(level: int) -> str:
    """The start of a line at ``level`` of a list in a quote in a list in a quote…"""
    inside = "".join("  " if n % 2 == 0 else "> " for n in range(level))
    return inside + ("- " if level % 2 == 0 else "> ")


@pytest.mark.parametrize(
    ("line", "last"),
    [
        (lambda d: ">" * (d + 1) + f" quote {d}\n", "quote 99"),
        (lambda d: "  " * d + f"- item {d}\n", "item 99"),
        (lambda d: "   " * d + f"1. step {d}\n", "step 99"),
        (lambda d: _mixed(d) + f"mixed {d}\n", "mixed 99"),
    ],
)
def test_blocks_nested_deeper_than_the_budget_are_shown_flat(line: object, last: str) -> None:
    text = "".join(line(d) for d in range(100)) + "\nThe paragraph after.\n"  # type: ignore[operator]
    out = render(text)
    assert depth(out) <= NESTING_DEPTH
    assert last in out and "<p>The paragraph after.</p>" in out


def test_a_table_in_blocks_at_the_nesting_budget_is_shown_as_its_lines() -> None:
    out = render("> " * NESTING_DEPTH + "| a | b |\n" + "> " * NESTING_DEPTH + "|---|---|\n")
    assert depth(out) == NESTING_DEPTH and "<table" not in out
    assert "| a | b |" in out


def table(rows: int, columns: int = 4, cell: str = "cell") -> str:
    head = "| " + " | ".join(f"h{c}" for c in range(columns)) + " |\n"
    rule = "|" + "---|" * columns + "\n"
    body = "".join(
        "| " + " | ".join(f"{cell} {r}.{c}" for c in range(columns)) + " |\n" for r in range(rows)
    )
    return head + rule + body


def cells(html: str) -> int:
    return len(re.findall(r"<t[dh][ >]", html))


def test_a_table_over_the_cell_budget_shows_the_rest_of_its_rows_as_lines() -> None:
    rows = TABLE_CELLS // 4 + 50
    out = render(table(rows) + "\nAfter the table.\n")
    assert cells(out) <= TABLE_CELLS
    assert f"cell {rows - 1}.3" in out and "<p>After the table.</p>" in out
    tail = out[out.rindex("</table>") :]
    assert f"| cell {rows - 1}.0 | cell {rows - 1}.1 |" in tail
    assert f"at most {TABLE_CELLS:,} table cells" in tail


def test_tables_of_one_note_share_the_cell_budget() -> None:
    out = render("\n".join(table(9) for _ in range(TABLE_CELLS // 40 + 10)))
    assert cells(out) <= TABLE_CELLS
    assert out.count("cell 8.3") == TABLE_CELLS // 40 + 10  # every table's rows are shown


def test_a_table_over_the_character_budget_shows_the_rest_as_lines() -> None:
    out = render(table(20, columns=2, cell="x" * (TABLE_CHARS // 10)))
    assert text_in_tables(out) <= TABLE_CHARS
    out = out.replace("\u200b", "")  # long words may break
    assert out.count("x" * (TABLE_CHARS // 10)) == 40
    assert f"at most {TABLE_CHARS:,} characters in tables" in out


def test_callout_boxes_spend_the_character_budget_then_are_quotes() -> None:
    body, count = "word " * 1000, TABLE_CHARS // 4000
    out = render("\n".join(f"> [!tip] Box {n}\n> {body}\n" for n in range(count)))
    assert text_in_tables(out) <= TABLE_CHARS
    boxes, quotes = out.count("<table"), out.count("<blockquote>")
    assert boxes + quotes == count and boxes >= TABLE_CHARS // 5100 and quotes > 0
    assert out.count(body.strip()) == count  # every callout's text is there
    assert out.rindex("<table") < out.index("<blockquote>")  # boxes first


def test_a_table_of_a_header_only_is_a_table() -> None:
    out = render("| a | b |\n|---|---|\n\nAfter.\n")
    assert cells(out) == 2 and "<p>After.</p>" in out


@pytest.mark.parametrize(
    "text",
    [
        "> > a\n> b\n",
        "> > a\nb\n",
        "> a\n> > b\n> c\n\nd\n",
        "- > a\n  b\n- > c\n  > > d\n  e\n",
        "> > a\n> > b\n>\n> c\n",
        "> - a\n>   > b\n> c\n",
    ],
)
def test_quotes_inside_blocks_continue_lazily_as_commonmark_says(text: str) -> None:
    commonmark = MarkdownIt("commonmark").render(text)
    assert render(text) == commonmark


def test_quotes_growing_deeper_and_shallower_are_all_shown() -> None:
    text = "".join("> " * (n % 30 + 1) + f"line {n}\n" for n in range(3000))
    out = render(text)
    assert depth(out) <= NESTING_DEPTH
    assert all(f"line {n}" in out for n in range(3000))


def test_a_long_word_gets_places_to_break_outside_code_blocks() -> None:
    word, code = "x" * (LONG_WORD * 5), "y" * (LONG_WORD * 5)
    out = render(f"{word} and &amp;{'&amp;' * LONG_WORD * 2}\n\n```\n{code}\n```\n")
    text = re.sub(r"<pre>.*?</pre>|<[^>]*>", " ", out, flags=re.DOTALL)
    assert max(len(run) for run in re.split(r"[\s\u200b]+", text)) <= LONG_WORD * len("&amp;")
    assert (
        max(len(run) for run in re.split(r"[\s\u200b]+", text.replace("&amp;", "&"))) <= LONG_WORD
    )
    assert word in out.replace("\u200b", "") and f"<code>{code}\n</code>" in out


def test_formatting_spends_the_html_budget_faster_than_text() -> None:
    text = render("plain words " * 5000, Budget(html=20_000))
    emphasis = render("*a* " * 15000, Budget(html=20_000))
    assert emphasis.count("<em>") < 20_000 // (2 * TAG_CHARS)  # a tag costs as much as text
    assert "the rest of this note is not shown" in text and len(text) > len(emphasis) // 2


def test_the_html_of_a_render_stops_at_its_budget_and_says_so() -> None:
    out = render("[[A missing note]] and more words. " * 5000, Budget(html=20_000))
    assert 15_000 < len(out) + TAG_CHARS * out.count("<") < 21_000
    assert out.endswith("open it in your editor)</span></p>")
    assert out.count("the rest of this note is not shown") == 1
