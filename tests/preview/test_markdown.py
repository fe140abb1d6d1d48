"""Markdown to safe HTML: sanitised, formatting kept, deep nesting rendered, images checked."""

from __future__ import annotations

import pytest

from explorer.preview.markdown import markdown_to_safe_html, replace_images


@pytest.mark.parametrize(
    ("markdown", "absent", "present"),
    [
        ("<script>alert(1)</script>", "<script", "&lt;script&gt;"),
        ('<img src="x" onerror="alert(1)">', "<img", "&lt;img"),
        ("[x](javascript:alert(1))", 'href="javascript', "[x]"),
        ("![tracker](https://example.com/pixel.png)", "<img", "remote image not loaded"),
        ("![tracker](//example.com/pixel.png)", "<img", "remote image not loaded"),
        ('<a href="https://example.com" onclick="x()">a</a>', "<a ", "&lt;a"),
    ],
)
def test_note_html_is_sanitised(markdown: str, absent: str, present: str) -> None:
    out = markdown_to_safe_html(markdown)
    assert absent not in out
    assert present in out


def test_markdown_keeps_formatting_links_and_local_images() -> None:
    out = markdown_to_safe_html(
        "# Title\n\n*em* **strong** `code`\n\n[site](https://example.com) ![pic](img/a.png)\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    for fragment in ("<h1>", "<em>", "<strong>", "<code>", 'href="https://example.com"'):
        assert fragment in out
    assert '<img src="img/a.png"' in out
    assert "<table" in out and "<td>1</td>" in out


def test_text_after_a_list_nested_twelve_levels_deep_is_rendered() -> None:
    items = "".join("  " * depth + f"- level {depth}\n" for depth in range(12))
    out = markdown_to_safe_html(items + "\nThe paragraph after the list.\n\n## A heading after\n")
    assert "The paragraph after the list." in out
    assert '<h2><a name="h-a-heading-after"></a>A heading after</h2>' in out
    for depth in range(12):  # the deepest levels too, flattened if need be
        assert f"level {depth}" in out


def test_text_after_deeply_nested_quotes_is_rendered() -> None:
    out = markdown_to_safe_html(">" * 200 + " deep quote\n\nAfter the quote.\n")
    assert "deep quote" in out
    assert "<p>After the quote.</p>" in out


def test_refused_images_are_replaced_by_a_placeholder_with_the_reason() -> None:
    fragment = markdown_to_safe_html("![a &amp; b](x.png) ![kept](y.png)")
    out = replace_images(fragment, lambda src: "outside the vault" if src == "x.png" else None)
    assert '<span class="blocked">[image not shown, outside the vault: a &amp; b]</span>' in out
    assert '<img src="y.png" alt="kept"' in out or 'src="y.png"' in out
