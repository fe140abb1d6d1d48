"""The preview's HTML: safe markdown, highlighting, the best chunk, the explain block."""

from __future__ import annotations

from pathlib import Path

from explorer.preview.budget import EMBED_CHARS, Budget
from explorer.preview.document import load_note
from explorer.preview.links import vault_links
from explorer.preview.note import (
    BEST_ANCHOR,
    filter_url,
    parse_filter_url,
    render_note,
)
from explorer.preview.style import Colours
from explorer.search.query.query import parse_query
from tests.preview.helpers import hit


def test_best_chunk_is_anchored_and_wrapped(tmp_path: Path) -> None:
    text = "---\ntags: [ops]\n---\n# Title\n\nFirst paragraph.\n\nThe best passage here.\n\nLast.\n"
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "n.md").write_text(text, encoding="utf-8")
    doc = load_note(tmp_path, "ops/n.md")
    start = doc.text.index("The best")
    end = start + len("The best passage here.")
    out = render_note(doc, hit(best_chunk=(start, end)), parse_query("passage"), Colours())
    anchor = out.index(f'name="{BEST_ANCHOR}"')
    assert out.index("First paragraph") < anchor < out.index("The best") < out.index("Last.")
    assert "tags:" in out and filter_url("tag", "ops") in out
    assert filter_url("path", "ops/") in out
    assert "---" not in out  # frontmatter is not rendered as text


def test_the_pieces_of_a_note_share_one_embed_budget(tmp_path: Path) -> None:
    part = "Words of the embedded note.\n\n" * (EMBED_CHARS // 3 // 29 + 1)  # two fit
    (tmp_path / "e.md").write_text(part, encoding="utf-8")
    embeds = "![[e]]\n\n" * 3
    text = f"# Title\n\n{embeds}The best passage.\n\n{embeds}Last.\n\n{embeds}"
    (tmp_path / "n.md").write_text(text, encoding="utf-8")
    doc = load_note(tmp_path, "n.md")
    start = doc.text.index("The best")
    chunk = (start, doc.text.index("Last.") + 5)  # three pieces, three embeds in each
    out = render_note(doc, hit(best_chunk=chunk), None, Colours(), vault_links(tmp_path))
    assert out.count("embedded from") == 2  # not two in each piece
    assert out.count("characters the preview embeds: shown as a link") == 7


def test_the_best_passage_is_shown_when_the_html_budget_runs_out_before_it(tmp_path: Path) -> None:
    text = "# Long\n\n" + "A paragraph before the passage.\n\n" * 2000 + "The best passage.\n"
    (tmp_path / "n.md").write_text(text, encoding="utf-8")
    doc = load_note(tmp_path, "n.md")
    start = doc.text.index("The best")
    best = hit(best_chunk=(start, start + len("The best passage.")))
    out = render_note(doc, best, None, Colours(), budget=Budget(html=20_000))
    assert f'name="{BEST_ANCHOR}"' in out and "The best passage." in out
    assert out.count("the rest of this note is not shown") == 1
    assert out.count("A paragraph before") < 2000
    assert out.index("A paragraph before") < out.index("The best passage.")


def test_filter_links_round_trip() -> None:
    url = filter_url("path", "dev/a b/")
    assert parse_filter_url(url) == ("path", "dev/a b/")
    assert parse_filter_url("https://example.com") is None
