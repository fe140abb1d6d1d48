"""The preview's HTML: safe markdown, highlighting, the best chunk, the explain block."""

from __future__ import annotations

import contextlib
import html
import os
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.gui.budget import EMBED_CHARS, Budget
from explorer.gui.render import (
    BEST_ANCHOR,
    Colours,
    ExplainContext,
    NoteDocument,
    explain_html,
    filter_token,
    filter_url,
    formula,
    highlight,
    load_note,
    markdown_to_safe_html,
    parse_filter_url,
    render_note,
    replace_images,
    term_pattern,
    vault_links,
)
from explorer.index.vectors import CosineSpread
from explorer.search.hybrid import Hit, SearchOptions
from explorer.search.query import parse_query
from tests.hostile_parsing import laughs


def hit(**fields: object) -> Hit:
    base: dict[str, object] = {
        "path": "ops/cdn-purge.md",
        "title": "CDN purge",
        "snippet": "",
        "fused_score": 0.7 / 61 + 0.3 / 64,
        "contributions": {"fts": 0.7 / 61, "vector": 0.3 / 64},
        "fts_rank": 1,
        "vector_rank": 4,
        "fts_score": 7.1234,
        "vector_score": 0.6131,
        "source": "both",
        "best_chunk": None,
    }
    base.update(fields)
    return Hit(**base)  # type: ignore[arg-type]


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


def test_highlight_marks_words_in_text_only_and_ignores_accents() -> None:
    pattern = term_pattern(parse_query('creme brulee "cdn purge" href'))
    fragment = '<p><a href="x">Crème Brûlée</a> &amp; the CDN purged</p>'
    out = highlight(fragment, pattern, "S")
    assert '<span style="S">Crème</span>' in out
    assert '<span style="S">Brûlée</span>' in out
    assert '<span style="S">CDN purged</span>' in out
    assert '<a href="x">' in out  # the attribute was not touched although "href" is a term
    assert "&amp;" in out


def test_highlight_skips_stop_words_unless_they_are_all_there_is() -> None:
    out = highlight("<p>why were the styles stale</p>", term_pattern(parse_query("why stale")), "S")
    assert '<span style="S">stale</span>' in out and '<span style="S">why</span>' not in out
    out = highlight("<p>to be or not</p>", term_pattern(parse_query("to be")), "S")
    assert '<span style="S">to</span>' in out


def test_highlight_never_marks_a_word_the_lexical_list_ignores() -> None:
    # The preview marks the query's content terms, the words the lexical list matches on.
    pattern = term_pattern(parse_query("why were the styles stale after deploy? my what's"))
    out = highlight("<p>After the deploy, my styles were stale; what’s why</p>", pattern, "S")
    for word in ("deploy", "styles", "stale"):
        assert f'<span style="S">{word}</span>' in out
    assert out.count("<span") == 3
    # A quoted phrase of stop words is a content term.
    out = highlight("<p>The Who played</p>", term_pattern(parse_query('"the who" played')), "S")
    assert '<span style="S">The Who</span>' in out


def test_highlight_finds_cjk_substrings() -> None:
    out = highlight("<p>東京タワーに行った</p>", term_pattern(parse_query("東京")), "S")
    assert '<span style="S">東京</span>タワー' in out


#: The seed's weighted RRF, which the hand-computed numbers here are for.
SEED = SearchOptions(fusion="rrf", k=60, w_fts=0.7, w_vec=0.3)


def test_formula_has_the_numbers_filled_in() -> None:
    assert formula(hit(), SEED) == "0.7 / (60 + 1) + 0.3 / (60 + 4) = 0.01616"
    lexical_only = hit(vector_rank=None, fused_score=0.7 / 63, fts_rank=3)
    assert formula(lexical_only, SEED) == "0.7 / (60 + 3) = 0.01111"
    assert formula(hit(), replace(SEED, k=10, w_fts=1.0, w_vec=0.5)).startswith(
        "1 / (10 + 1) + 0.5 / (10 + 4)"
    )


def test_convex_formula_shows_each_lists_normalised_score() -> None:
    convex = replace(SEED, fusion="convex", w_fts=0.5, w_vec=0.5)
    both = hit(contributions={"fts": 0.35, "vector": 0.5}, fused_score=0.85)
    assert formula(both, convex) == "0.5 × 0.700 + 0.5 × 1.000 = 0.85000"
    vector_only = hit(fts_rank=None, contributions={"fts": 0.0, "vector": 0.2}, fused_score=0.2)
    assert formula(vector_only, convex) == "0.5 × 0.400 = 0.20000"
    out = explain_html(both, ExplainContext(convex, 1, 5, 5, 5, True), Colours())
    assert "Convex" in out and "best score of its list" in out and "RRF" not in out


def test_explain_block_has_scores_ranks_and_formula() -> None:
    ctx = ExplainContext(SEED, 2, 20, 34, 50, True)
    out = explain_html(hit(best_chunk=(10, 400)), ctx, Colours())
    for fragment in (
        "Fused rank 2",
        "rank 1 of 34",
        "bm25 7.1234",
        "rank 4 of 50",
        "cosine 0.6131",
        "0.7 / (60 + 1) + 0.3 / (60 + 4) = 0.01616",
        "characters 10–400",
    ):
        assert fragment in out
    degraded = ExplainContext(SEED, 1, 5, 5, 0, False, "model x is still loading")
    out = explain_html(hit(vector_rank=None, source="fts"), degraded, Colours())
    assert "unavailable (model x is still loading)" in out


def test_explain_block_states_each_lists_evidence_and_the_calibrated_formula() -> None:
    calibrated = replace(SEED, fusion="calibrated", w_fts=1.0, w_vec=1.0)
    spread = CosineSpread(notes=51, mean=0.12, std=0.07)
    a, b = 0.9, 0.83
    both = hit(
        fts_pass="all words",
        coverage=1.0,
        fts_score=7.2,
        vector_score=0.48,
        vector_sigmas=spread.sigmas(0.48),
        evidence={"fts": a, "vector": b},
        fused_score=1 - (1 - a) * (1 - b),
        contributions={"fts": a - a * b / 2, "vector": b - a * b / 2},
    )
    ctx = ExplainContext(calibrated, 1, 5, 5, 5, True, content_words=4, spread=spread)
    out = html.unescape(explain_html(both, ctx, Colours()))
    for fragment in (
        "cosine 0.4800, 5.1 σ above this query's vault mean 0.120 → vector evidence 0.83000",
        "all words pass, holds 4 of 4 content words, bm25 7.2000 → lexical evidence 0.90000",
        "Calibrated",
        "Calibrated\u00a0 <code>fused = 1 − (1 − a)(1 − b)</code>",
        "<br/><code>= 1 − (1 − 0.90000)(1 − 0.83000) = 0.98300</code>",
        "a = 1 × 0.90000 = 0.90000 (lexical), b = 1 × 0.83000 = 0.83000 (vector)",
        "contributions a − ab/2 = 0.52650, b − ab/2 = 0.45650",
    ):
        assert fragment in out, fragment
    assert "RRF" not in out and "Convex" not in out
    one = replace(both, fts_rank=None, evidence={"vector": b}, fused_score=b)
    out = html.unescape(explain_html(one, ctx, Colours()))
    assert "<code>fused = a = 0.83000</code> <span" in out and "(one list found it:" in out
    assert "<br/>a = 1 × 0.83000 = 0.83000 (vector): weight × evidence" in out
    # The evidence is stated under every method (it is what "close match" is decided on).
    out = html.unescape(explain_html(both, replace(ctx, options=SEED), Colours()))
    assert "→ vector evidence 0.83000" in out and "a − ab/2" not in out


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


def test_the_preview_reads_frontmatter_as_the_index_does(tmp_path: Path) -> None:
    (tmp_path / "status.md").write_text(laughs(9, "status"), encoding="utf-8")
    (tmp_path / "aliases.md").write_text(
        laughs(9, "tags").replace("tags: [kept,", "aliases: [Other,"), encoding="utf-8"
    )
    doc = load_note(tmp_path, "status.md")
    assert doc.title == "Laughing note" and doc.status is None and doc.tags == ("kept", "inline")
    assert len(doc.warnings) == 1 and "`status`" in doc.warnings[0]
    assert doc.text[doc.body_start :].startswith("# Laughing note")
    assert vault_links(tmp_path).notes == {"aliases.md": [], "status.md": []}


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
    assert filter_token("tag", "ops") == "tag:ops"
    assert filter_token("path", "my notes/") == '"path:my notes/"'


def test_note_that_is_not_text_is_shown_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_bytes(b"\x00\x01binary")
    doc = load_note(tmp_path, "b.md")
    assert isinstance(doc, NoteDocument) and "binary" in doc.text


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


def test_a_note_that_became_a_link_out_of_the_vault_is_not_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (tmp_path / "secret.txt").write_text("root:x:0:0:SECRET", encoding="utf-8")
    (vault / "passwd.md").symlink_to(tmp_path / "secret.txt")
    doc = load_note(vault, "passwd.md")
    assert "SECRET" not in doc.text
    assert "outside the vault" in doc.text


def test_a_note_that_became_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    fifo = vault / "pipe.md"
    os.mkfifo(fifo)
    docs: list[NoteDocument] = []
    reader = threading.Thread(target=lambda: docs.append(load_note(vault, "pipe.md")))
    reader.start()
    reader.join(60)  # a safety net only: an open that waits for a writer would wait forever
    try:
        assert not reader.is_alive(), "the preview's worker blocked on the FIFO"
    finally:
        with contextlib.suppress(OSError):  # let a blocked reader go, if there is one
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join()
    assert "not a regular file" in docs[0].text


def test_refused_images_are_replaced_by_a_placeholder_with_the_reason() -> None:
    fragment = markdown_to_safe_html("![a &amp; b](x.png) ![kept](y.png)")
    out = replace_images(fragment, lambda src: "outside the vault" if src == "x.png" else None)
    assert '<span class="blocked">[image not shown, outside the vault: a &amp; b]</span>' in out
    assert '<img src="y.png" alt="kept"' in out or 'src="y.png"' in out
