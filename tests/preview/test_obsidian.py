"""Obsidian's markdown as the preview renders it: links, embeds, block ids, callouts (HTML only)."""

from __future__ import annotations

import re

import pytest

from explorer.preview.budget import CALLOUT_DEPTH, EMBED_CHARS, EMBED_READ_CHARS
from explorer.preview.markdown import markdown_to_safe_html
from explorer.preview.note import note_page
from explorer.preview.obsidian import (
    Page,
    anchor_name,
    callout_colours,
    family,
    heading_key,
    note_url,
    parse_callout_url,
    parse_missing_url,
    parse_note_url,
    section,
)
from explorer.preview.style import Colours
from explorer.vault.links import Resolver

NOTES = [
    ("Home.md", []),
    ("Properties.md", []),
    ("Archive/Old/Properties.md", []),
    ("Accepted file formats.md", ["Formats"]),
    ("Guides/Setup.md", []),
    ("Embedded note.md", []),
]
EMBEDDED = (
    "# Embedded\n\nFirst part.\n\n## Part two\n\nSecond part ^b2\n\n## Part three\n\nThird.\n"
)


class Links:
    """A vault's links without a vault: a resolver over fixed names, notes from a dict."""

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self.resolver = Resolver(NOTES, ["attachments/diagram.png"])
        self.texts = texts or {"Embedded note.md": EMBEDDED}

    def resolve(self, target: str, source: str | None = None, markdown: bool = False) -> str | None:
        return self.resolver.resolve(target, source, markdown=markdown)

    def embed(self, path: str) -> str | None:
        return self.texts.get(path)


def render(text: str, source: str = "Home.md", links: Links | None = None, **page: object) -> str:
    base = note_page(source, Colours(), links or Links())  # type: ignore[arg-type]
    fields = {**base.__dict__, **page}
    return markdown_to_safe_html(text, Page(**fields))  # type: ignore[arg-type]


def hrefs(out: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', out)


@pytest.mark.parametrize(
    ("markdown", "href", "shown"),
    [  # the same name in two folders: the shortest path; an alias finds its note
        ("[[Properties]]", "vault-note:Properties.md", "Properties"),
        ("[[properties|Note properties]]", "vault-note:Properties.md", "Note properties"),
        ("[[Properties#Types]]", "vault-note:Properties.md#Types", "Properties › Types"),
        ("[[#Local heading]]", "vault-note:Home.md#Local%20heading", "Local heading"),
        ("[[Properties#^blk1]]", "vault-note:Properties.md#%5Eblk1", "Properties"),
        ("[[Formats]]", "vault-note:Accepted%20file%20formats.md", "Formats"),
        ("[[Archive/Old/Properties]]", "vault-note:Archive/Old/Properties.md", None),
        ("[see](Guides/Setup.md)", "vault-note:Guides/Setup.md", "see"),
        ("[see](Guides/Setup.md#Install)", "vault-note:Guides/Setup.md#Install", "see"),
        ("[up](<#Local heading>)", "vault-note:Home.md#Local%20heading", "up"),
    ],
)
def test_each_link_form_leads_to_its_note(markdown: str, href: str, shown: str | None) -> None:
    out = render(markdown)
    assert hrefs(out) == [href]
    if shown is not None:
        assert f">{shown}</a>" in out
    assert "[[" not in out and "]]" not in out


def test_note_urls_round_trip() -> None:
    url = note_url("Guides/My setup.md", "^b 1")
    assert parse_note_url(url) == ("Guides/My setup.md", "^b 1")
    assert parse_note_url(note_url("a.md")) == ("a.md", None)
    assert parse_note_url("https://example.com") is None
    assert parse_missing_url("vault-missing:No%20where") == "No where"
    assert parse_callout_url("vault-callout:0-12") == "0-12"


def test_an_unresolved_link_is_muted_with_a_tooltip() -> None:
    out = render("See [[Nowhere|over there]] and [gone](Missing.md).")
    assert 'href="vault-missing:Nowhere"' in out
    assert "no note named “Nowhere”" in out
    assert "over there" in out and "[[" not in out
    assert 'href="vault-missing:Missing.md"' in out
    assert out.count("font-style:italic") == 2


def test_without_a_vault_links_show_their_text_unresolved() -> None:
    out = markdown_to_safe_html("[[Properties|Note properties]] ![[Other]]")
    assert "Note properties" in out and "vault-missing:" in out and "[[" not in out


def test_links_inside_tables_lists_and_headings_render() -> None:
    out = render(
        "## About [[Properties]]\n\n- item [[Formats|f]]\n\n| a | b |\n|---|---|\n"
        "| [[Properties\\|shown]] | x |\n"
    )
    assert "[[" not in out and "|shown" not in out
    assert out.count('href="vault-note:') == 3
    assert ">shown</a></td>" in out


def test_links_in_code_stay_code() -> None:
    out = render("`[[Properties]]`\n\n```\n[[Properties]]\n```\n")
    assert "vault-note:" not in out
    assert out.count("[[Properties]]") == 2


def test_external_links_keep_their_address_and_javascript_is_dropped() -> None:
    out = render("[site](https://example.com/x) [bad](javascript:alert(1)) <https://a.b/>")
    assert 'href="https://example.com/x"' in out
    assert 'href="javascript' not in out


def test_headings_and_blocks_are_anchored_and_block_ids_hidden() -> None:
    out = render("## Types & Values!\n\nA paragraph. ^abc-1\n\n- item ^li\n")
    assert f'<a name="{anchor_name("Types & Values!")}"></a>' in out
    assert anchor_name("types values") == anchor_name("Types & Values!")
    assert anchor_name("Crème brûlée") == anchor_name("creme brulee")
    assert '<a name="block-abc-1"></a>A paragraph.' in out
    assert '<a name="block-li"></a>' in out
    assert "^abc" not in out and "^li" not in out
    assert heading_key("  Spaces --- and_under ") == "spaces-and-under"


def test_image_embeds_are_sized_and_relative_to_the_shown_note() -> None:
    out = render("![[diagram.png|200]] ![[diagram.png|30x20]] ![[diagram.png]]", "Guides/Setup.md")
    assert '<img src="../attachments/diagram.png" alt="diagram.png" width="200">' in out
    assert 'width="30" height="20"' in out
    assert out.count("<img") == 3
    missing = render("![[nothere.png]]")
    assert "<img" not in missing and "image not found in the vault: nothere.png" in missing


def test_markdown_images_stay_for_the_image_loader_to_judge() -> None:
    out = render("![a](attachments/diagram.png) ![b](../outside.png) ![c](https://x.org/y.png)")
    assert 'src="attachments/diagram.png"' in out
    assert 'src="../outside.png"' in out  # refused later: outside the vault
    assert "remote image not loaded" in out and "x.org" not in out.replace("alt", "")


def test_a_note_embed_shows_the_note_or_its_section() -> None:
    whole = render("![[Embedded note]]")
    assert "embedded from" in whole
    assert "First part." in whole and "Third." in whole
    part = render("![[Embedded note#Part two]]")
    assert "Second part" in part and "First part." not in part and "Third." not in part
    block = render("![[Embedded note#^b2]]")
    assert "Second part" in block and "First part." not in block and "^b2" not in block
    nowhere = render("![[Embedded note#No such heading]]")
    assert "no heading “No such heading”" in nowhere
    assert 'href="vault-note:Embedded%20note.md' in part  # the name links to the note


def test_embeds_are_one_level_deep_and_cycles_are_cut() -> None:
    texts = {
        "Embedded note.md": "Inside A.\n\n![[Properties]]\n",
        "Properties.md": "Inside B.\n",
    }
    out = render("![[Embedded note]]", links=Links(texts))
    assert "Inside A." in out and "Inside B." not in out
    assert "an embed inside an embed: shown as a link" in out
    assert 'href="vault-note:Properties.md"' in out
    self_embed = render("![[Home]]", links=Links({"Home.md": "Me again.\n"}))
    assert "Me again." not in self_embed and "already shown" in self_embed


def test_an_unresolved_or_unreadable_embed_is_a_muted_link() -> None:
    out = render("![[Nowhere]]\n\n![[Properties]]", links=Links({}))
    assert 'href="vault-missing:Nowhere"' in out
    assert "cannot be read" in out


@pytest.mark.parametrize(
    ("kind", "title"),
    [
        ("note", "Note"), ("abstract", "Abstract"), ("summary", "Summary"), ("tldr", "Tldr"),
        ("info", "Info"), ("todo", "Todo"), ("tip", "Tip"), ("hint", "Hint"),
        ("important", "Important"), ("success", "Success"), ("check", "Check"), ("done", "Done"),
        ("question", "Question"), ("help", "Help"), ("faq", "Faq"), ("warning", "Warning"),
        ("caution", "Caution"), ("attention", "Attention"), ("failure", "Failure"),
        ("fail", "Fail"), ("missing", "Missing"), ("danger", "Danger"), ("error", "Error"),
        ("bug", "Bug"), ("example", "Example"), ("quote", "Quote"), ("cite", "Cite"),
        ("custom", "Custom"),
    ],
)  # fmt: skip
def test_every_callout_type_is_a_box_titled_with_its_name(kind: str, title: str) -> None:
    out = render(f"> [!{kind.upper()}]\n> The body.\n")
    assert out.startswith("<table") and "bgcolor=" in out
    assert f"{title}</p>" in out
    assert "The body." in out and "[!" not in out and "<blockquote" not in out


def test_callout_families_share_a_colour_and_both_palettes_differ() -> None:
    light, dark = Page(), Page(dark=True, surface="#1e1e1e")
    assert callout_colours("caution", light) == callout_colours("warning", light)
    assert callout_colours("warning", light) != callout_colours("danger", light)
    bar, wash, title = callout_colours("tip", light)
    dbar, dwash, dtitle = callout_colours("tip", dark)
    assert bar == dbar and wash != dwash and title != dtitle
    assert _lightness(wash) > 0.85 and _lightness(dwash) < 0.35  # a wash under readable text
    assert _lightness(title) < 0.5 < _lightness(dtitle)
    assert family("tldr")[1] == family("abstract")[1]


def _lightness(colour: str) -> float:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return (max(r, g, b) + min(r, g, b)) / 2 / 255


def test_a_callout_keeps_its_title_markdown_and_its_body_blocks() -> None:
    out = render("> [!tip] Use **[[Properties]]**\n> - one\n> - two\n>\n> Para.\n")
    assert '<strong><a href="vault-note:Properties.md"' in out
    assert "<li>one</li>" in out and "Para." in out


def test_a_folded_callout_shows_its_title_only_until_unfolded() -> None:
    text = "Before.\n\n> [!warning]- Folded title\n> Hidden body.\n\nAfter.\n"
    folded = render(text)
    assert "Folded title" in folded and "▸" in folded
    assert "Hidden body." not in folded
    assert "Before." in folded and "After." in folded
    ident = parse_callout_url(re.findall(r'href="(vault-callout:[^"]*)"', folded)[0])
    assert ident is not None
    unfolded = render(text, toggled=frozenset({ident}))
    assert "Hidden body." in unfolded and "▾" in unfolded
    opened = render("> [!tip]+ Open\n> Shown body.\n")
    assert "Shown body." in opened and "▾" in opened and "vault-callout:" in opened
    plain = render("> [!tip] Plain\n> Body.\n")
    assert "vault-callout:" not in plain


def test_nested_callouts_and_plain_quotes() -> None:
    out = render("> [!note] Outer\n> > [!bug] Inner\n> > inner body\n\n> just a quote\n")
    assert out.count("<table") == 2 and "inner body" in out
    assert "<blockquote>" in out and "just a quote" in out


def test_section_of_a_note() -> None:
    text = (
        "# A\n\nintro\n\n## B\n\nb text\n\n```\n# not a heading\n```\n\n### C\n\nc\n\n## D\n\nd\n"
    )
    part = section(text, "b", None)
    assert part is not None and part.startswith("## B") and "c" in part and "## D" not in part
    assert section(text, "not a heading", None) is None
    assert section(text, None, None) == text
    assert section("one\ntwo ^x\n\nthree", None, "x") == "one\ntwo ^x"


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("# Title\n## Part\nThe block ^b\n", "The block ^b"),
        ("# Title\nFirst line\nthe block ^b\n\nafter", "First line\nthe block ^b"),
        ("## Steps\n- one\n- two\n- the block ^b\n- four", "- the block ^b"),
        ("1. one\n2. the block\n   goes on ^b\n", "2. the block\n   goes on ^b"),
        ("> quoted\n> block ^b\n", "> quoted\n> block ^b"),
        ("## A heading ^b\ntext", "## A heading ^b"),
    ],
)
def test_the_section_of_a_block_is_the_block_only(text: str, block: str) -> None:
    assert section(text, None, "b") == block


@pytest.mark.parametrize(
    "markdown",
    [
        "[[", "]]", "[[]]", "![[]]", "[[|]]", "[[#]]", "[[#^]]", "![[|x]]", "[[a|b|c]]",
        "> [!", "> [!]\n", "> [!note", "[[a\nb]]", "![[" * 50, "[[x]]" * 200,
        "> [!note]-\n" * 30, "\x00[[\u202e]]", "![[../../etc/passwd]]", "[x](../../../etc/passwd)",
    ],
)  # fmt: skip
def test_odd_input_never_raises(markdown: str) -> None:
    out = render(markdown)
    assert "<script" not in out
    assert "passwd" not in "".join(hrefs(out)) or "vault-missing:" in "".join(hrefs(out))


class Counting(Links):
    """Links whose notes are read by embeds: how often each was read."""

    def __init__(self, texts: dict[str, str]) -> None:
        super().__init__(texts)
        self.reads: dict[str, int] = {}

    def embed(self, path: str) -> str | None:
        self.reads[path] = self.reads.get(path, 0) + 1
        return super().embed(path)


def test_embeds_spend_a_budget_of_characters_the_rest_are_links_that_say_why() -> None:
    big = "A line of the big note.\n\n" * (1_000_000 // 25)  # 1 MB, as in the issue
    links = Counting({"Embedded note.md": big})
    out = render("# Twenty embeds\n\n" + "![[Embedded note]]\n\n" * 20, links=links)
    assert "A line of the big note." not in out
    why = f"over the {EMBED_CHARS:,} characters the preview embeds: shown as a link"
    assert out.count(why) == 20
    assert out.count('href="vault-note:Embedded%20note.md"') == 20
    assert links.reads == {"Embedded note.md": 1}  # read once, not twenty times


def test_embeds_that_fit_are_shown_until_the_budget_is_spent() -> None:
    part = "Some words of the embedded note.\n\n" * (EMBED_CHARS // 3 // 34)
    out = render("![[Embedded note]]\n\n" * 5, links=Links({"Embedded note.md": part}))
    shown = out.count("embedded from")
    assert shown == 2 and shown * len(part) <= EMBED_CHARS
    assert out.count("characters the preview embeds: shown as a link") == 3


def test_notes_read_for_embeds_are_bounded_too() -> None:
    texts = {f"Big {n}.md": "x" * (EMBED_CHARS + 1) for n in range(100)}
    links = Counting(texts)
    links.resolver = Resolver([(name, []) for name in texts], [])
    out = render("".join(f"![[Big {n}#Small]]\n\n" for n in range(100)), links=links)
    assert sum(links.reads.values()) <= EMBED_READ_CHARS // (EMBED_CHARS + 1) + 1
    assert f"over the {EMBED_READ_CHARS:,} characters read for embeds: shown as a link" in out


def test_an_embed_nested_in_boxes_to_the_budget_is_a_link() -> None:
    quote = "> " * CALLOUT_DEPTH
    callouts = "".join("> " * d + "[!note] Box\n" for d in range(1, CALLOUT_DEPTH + 1))
    out = render(callouts + quote + "![[Embedded note]]\n")
    assert "First part." not in out
    assert "nested too deeply: shown as a link" in out
