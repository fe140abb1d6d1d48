"""Finding, reading and resolving Obsidian links (explorer/vault/links.py)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml

from explorer.vault.links import Link, Resolver, aliases, find_links, link_text, parse_wikilink
from tests.hostile_parsing import Counted, link_lines
from tests.obsidian_vault import HOME, HOME_TARGETS, IMAGE, NOTES, build_obsidian_vault


@pytest.mark.parametrize(
    ("inner", "expected"),
    [
        ("Note", ("Note", None, None, None)),
        ("Note|shown text", ("Note", None, None, "shown text")),
        ("Note#Heading", ("Note", "Heading", None, None)),
        ("#Heading", ("", "Heading", None, None)),
        ("Note#^abc", ("Note", None, "abc", None)),
        ("#^abc", ("", None, "abc", None)),
        ("Note#H|shown", ("Note", "H", None, "shown")),
        ("image.png|200", ("image.png", None, None, "200")),
        ("Note\\|shown", ("Note", None, None, "shown")),
        ("Note#A#B", ("Note", "B", None, None)),
        ("Folder/Note.md", ("Folder/Note.md", None, None, None)),
        ("  Note  |  a|b ", ("Note", None, None, "a|b")),
        ("", ("", None, None, None)),
        ("#", ("", None, None, None)),
        ("|", ("", None, None, "")),
    ],
)
def test_parse_wikilink(
    inner: str, expected: tuple[str, str | None, str | None, str | None]
) -> None:
    assert parse_wikilink(inner) == expected


def _one(text: str) -> Link:
    links = find_links(text)
    assert len(links) == 1, links
    return links[0]


def test_every_wikilink_form_reads_as_obsidian_shows_it() -> None:
    assert _one("[[Properties]]").shown == "Properties"
    alias = _one("x [[Properties|Note properties]] y")
    assert (alias.target, alias.shown, alias.start, alias.end) == (
        "Properties",
        "Note properties",
        2,
        32,
    )
    heading = _one("[[Properties#Types]]")
    assert (heading.target, heading.heading, heading.shown) == ("Properties", "Types", "Properties")
    local = _one("[[#Local heading]]")
    assert (local.target, local.heading, local.shown) == ("", "Local heading", "Local heading")
    block = _one("[[Properties#^blk1]]")
    assert (block.target, block.block, block.heading) == ("Properties", "blk1", None)
    folder = _one("[[Archive/Old/Properties.md]]")
    assert folder.shown == "Properties"
    assert not any(link.embed or link.markdown for link in (alias, heading, local, block, folder))


def test_embeds_and_markdown_links() -> None:
    image = _one("![[diagram.png|200]]")
    assert (image.embed, image.markdown, image.target, image.shown) == (
        True,
        False,
        "diagram.png",
        "200",
    )
    assert image.is_attachment
    note = _one("![[Embedded note#Part two]]")
    assert (note.embed, note.target, note.heading, note.is_attachment) == (
        True,
        "Embedded note",
        "Part two",
        False,
    )
    md = _one("[see](Guides/Setup.md)")
    assert (md.markdown, md.embed, md.target, md.shown) == (True, False, "Guides/Setup.md", "see")
    md_image = _one("![Diagram](attachments/diagram.png)")
    assert (md_image.markdown, md_image.embed, md_image.target) == (
        True,
        True,
        "attachments/diagram.png",
    )
    encoded = _one('[x](My%20Notes/Big%20plan.md#Next%20steps "title")')
    assert (encoded.target, encoded.heading) == ("My Notes/Big plan.md", "Next steps")
    angle = _one("[x](<My Notes/Big plan.md>)")
    assert angle.target == "My Notes/Big plan.md"
    anchor = _one("[up](#Top)")
    assert (anchor.target, anchor.heading) == ("", "Top")
    parens = _one("[x](notes/a(1).md)")
    assert parens.target == "notes/a(1).md"


def test_external_links_are_not_vault_links() -> None:
    text = (
        "[a](https://obsidian.md) [b](http://x.org/p.md) [m](mailto:me@x.org) "
        "![r](https://e.com/x.png) "
        "[f](file:///etc/passwd) [s](//host/x.md) [o](obsidian://open?vault=x) [e]()"
    )
    assert find_links(text) == []
    assert link_text(text) == text


def test_code_and_escapes_are_not_links() -> None:
    text = "`[[A]]` ``x [[B]] x``\n```\n[[C]]\n[d](d.md)\n```\n~~~md\n[[D]]\n~~~\n\\[[E]] [[F]]"
    assert [link.target for link in find_links(text)] == ["F"]
    assert find_links("```\n[[unclosed fence") == []


@pytest.mark.parametrize(
    ("dest", "target"),
    [
        ('a.md "A title"', "a.md"),
        ("a.md 'A title'", "a.md"),
        ("a.md (A title)", "a.md"),
        ('My note.md  "t"  ', "My note.md"),
        ('a.md"t"', 'a.md"t"'),  # a title follows white space
        ('"t"', '"t"'),
        ("a.md (t) b", "a.md (t) b"),
    ],
)
def test_a_markdown_link_title_is_left_out(dest: str, target: str) -> None:
    assert _one(f"[x]({dest})").target == target


def test_white_space_in_a_destination_is_read_once() -> None:
    """Each start of the title pattern ran over the white space after it (40 KB: 18 s)."""
    for gap in (" " * 200_000, " \t" * 100_000):
        assert _one(f"[x](a{gap}b.md)").target == f"a{gap}b.md"
        assert _one(f'[x](a{gap}b.md{gap}"t")').target == f"a{gap}b.md"


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("`[[A]]` [[B]]", ["B"]),
        ("``[[A]] ` [[B]]`` [[C]]", ["C"]),  # one backtick does not close two
        ("``[[A]]` [[B]]", ["A", "B"]),  # a run with no closer of its length is text
        ("`[[A]]\n[[B]]`", ["A", "B"]),  # nor does a run close on the next line
        ("` ``` [[A]] ``` `", []),
        ("x ```` [[A]] ` `` ``` ```` [[B]]", ["B"]),
    ],
)
def test_inline_code_is_closed_by_a_run_of_the_same_length(text: str, targets: list[str]) -> None:
    assert [link.target for link in find_links(text)] == targets


def test_lines_of_backticks_are_read_once() -> None:
    """A backtick run of every length (none closes another), and one run of 5,000: the regex
    with a backreference tried each length of each run against the rest of the line (20 KB of
    such runs: 164 s; the run of 5,000 did not end in 5 minutes)."""
    runs = "".join("`" * k + "x" for k in range(1, 600))
    text = runs + "[[A]]\nx " + "`" * 5000 + "[[B]]\n" + "`[[C]]` " + runs
    assert len(runs) > 180_000
    assert [link.target for link in find_links(text)] == ["A", "B"]


def test_line_numbers_and_order() -> None:
    links = find_links("[[A]]\n\n[b](B.md) and [[C]]\n![[D]]")
    assert [(link.target, link.line) for link in links] == [
        ("A", 1),
        ("B.md", 3),
        ("C", 3),
        ("D", 4),
    ]
    assert [link.start for link in links] == sorted(link.start for link in links)


def test_wikilink_inside_markdown_link_text_is_one_link() -> None:
    links = find_links("[[A]](b.md)")
    assert [link.target for link in links] == ["A"]


def test_link_text_replaces_only_links() -> None:
    text = (
        "Each note has [[Properties|Note properties]]; see [[Properties#Types]] and [[#Local]] "
        "or [[Properties#^blk1]]. ![[diagram.png]]![[diagram.png|200]] ![[Embedded note]] "
        "[see](Guides/Setup.md) [site](https://obsidian.md) **bold** [[Folder/Deep note]]."
    )
    assert link_text(text) == (
        "Each note has Note properties; see Properties and Local "
        "or Properties.  Embedded note "
        "see [site](https://obsidian.md) **bold** Deep note."
    )
    plain = "No links here: a [bracket] and a ]] and [[ and `[[code]]`."
    assert link_text(plain) == plain


def test_link_text_of_fixture_home_has_no_link_syntax() -> None:
    out = link_text(HOME.split("Code is not a link")[0])
    for syntax in ("[[", "]]", "|", "#^", "](Guides"):
        assert syntax not in out
    assert "Note properties" in out and "file types" in out and "see" in out


@pytest.mark.parametrize(
    "text",
    [
        "[[",
        "]]",
        "[[]]",
        "![[]]",
        "[[|]]",
        "[[#]]",
        "[[#^]]",
        "[[a[[b]]",
        "[]()",
        "![]()",
        "[x](<unclosed",
        "[x](a.md",
        "\\",
        "`",
        "```",
        "[[\ud800]]",
        "[x](%zz%ff.md)",
        "[[a]]" * 1000,
        "[" * 5000 + "]" * 5000,
        "(" * 3000 + "[x](" + "(" * 3000,
        "\x00[[\x00]]\x00",
    ],
)
def test_odd_input_never_raises(text: str) -> None:
    links = find_links(text)
    for link in links:
        assert 0 <= link.start < link.end <= len(text)
    link_text(text)
    resolver = Resolver([("a.md", ["x"])])
    for link in links:
        resolver.resolve_link(link, "a.md")


def _fixture_resolver() -> Resolver:
    notes = [(path, aliases(_meta(text))) for path, text in NOTES.items()]
    return Resolver(notes, attachments=[IMAGE])


def _meta(text: str) -> dict[str, object]:
    if not text.startswith("---\n"):
        return {}
    loaded = yaml.safe_load(text.split("---\n")[1])
    return loaded if isinstance(loaded, dict) else {}


def test_every_target_of_the_fixture_home_resolves_as_obsidian_does() -> None:
    resolver = _fixture_resolver()
    seen: dict[str, str | None] = {}
    for link in find_links(HOME):
        seen[link.target] = resolver.resolve_link(link, "Home.md")
    assert seen == HOME_TARGETS


def test_same_name_in_two_folders_the_shortest_path_wins() -> None:
    resolver = Resolver(
        [("Archive/Old/Properties.md", []), ("Properties.md", []), ("b/Properties.md", [])]
    )
    assert resolver.resolve("Properties") == "Properties.md"
    assert resolver.resolve("Old/Properties") == "Archive/Old/Properties.md"
    assert resolver.resolve("Archive/Old/Properties.md") == "Archive/Old/Properties.md"
    assert resolver.resolve("b/Properties") == "b/Properties.md"
    tie = Resolver([("y/Note.md", []), ("x/Note.md", []), ("deep/er/Note.md", [])])
    assert tie.resolve("note") == "x/Note.md"


def test_case_and_unicode_normalisation() -> None:
    resolver = Resolver([("Crème brûlée.md", []), ("Ops/CDN Purge.md", [])])
    decomposed = "Cre\u0300me bru\u0302le\u0301e"
    assert resolver.resolve(decomposed) == "Crème brûlée.md"
    assert resolver.resolve("CRÈME BRÛLÉE") == "Crème brûlée.md"
    assert resolver.resolve("cdn purge") == "Ops/CDN Purge.md"
    assert resolver.resolve("ops/cdn purge.MD") == "Ops/CDN Purge.md"


def test_aliases_count_but_a_real_name_beats_an_alias() -> None:
    resolver = Resolver([("Accepted file formats.md", ["Formats", "Types"]), ("Types.md", [])])
    assert resolver.resolve("formats") == "Accepted file formats.md"
    assert resolver.resolve("Types") == "Types.md"
    assert resolver.resolve("Unknown") is None


def test_aliases_from_frontmatter() -> None:
    assert aliases({"aliases": ["Formats", "Types", "Formats", "", None, 7]}) == [
        "Formats",
        "Types",
        "7",
    ]
    assert aliases({"aliases": "Single, with comma"}) == ["Single, with comma"]
    assert aliases({"alias": "Old", "aliases": ["New"]}) == ["New", "Old"]
    assert aliases({"aliases": {"not": "a list"}}) == []
    assert aliases({"aliases": True}) == []
    assert aliases({}) == []


def test_empty_target_is_the_source_note() -> None:
    resolver = Resolver([("a/b.md", [])])
    assert resolver.resolve("", "a/b.md") == "a/b.md"
    assert resolver.resolve("", None) is None


def test_markdown_links_relative_then_vault_relative_never_outside() -> None:
    resolver = Resolver(
        [("Home.md", []), ("Guides/Setup.md", []), ("Guides/Sub/Deep.md", []), ("Sub/Deep.md", [])],
        attachments=["attachments/diagram.png", "Guides/pic.png"],
    )
    assert resolver.resolve("../Home.md", "Guides/Setup.md", markdown=True) == "Home.md"
    assert resolver.resolve("Sub/Deep.md", "Guides/Setup.md", markdown=True) == "Guides/Sub/Deep.md"
    assert resolver.resolve("Sub/Deep.md", "Home.md", markdown=True) == "Sub/Deep.md"
    assert resolver.resolve("Guides/Setup", "Home.md", markdown=True) == "Guides/Setup.md"
    assert resolver.resolve("pic.png", "Guides/Setup.md", markdown=True) == "Guides/pic.png"
    assert resolver.resolve("/attachments/diagram.png", "Guides/Setup.md", markdown=True) == IMAGE
    assert resolver.resolve("Setup.md", "Home.md", markdown=True) == "Guides/Setup.md"
    assert resolver.resolve("../outside.png", "Home.md", markdown=True) is None
    assert resolver.resolve("../../Home.md", "Guides/Setup.md", markdown=True) is None
    assert resolver.resolve("./Nope.md", "Home.md", markdown=True) is None


def test_attachments_resolve_by_full_name_and_notes_only_when_asked() -> None:
    resolver = Resolver([("diagram.md", [])], attachments=["attachments/diagram.png"])
    assert resolver.resolve("diagram.png") == "attachments/diagram.png"
    assert resolver.resolve("diagram") == "diagram.md"
    assert resolver.is_note("diagram.md")
    assert not resolver.is_note("attachments/diagram.png")
    assert Resolver([("a.md", [])]).resolve("diagram.png") is None
    assert Resolver([("Release v1.2.md", [])]).resolve("release v1.2") == "Release v1.2.md"


def test_fixture_vault_is_written(tmp_path: Path) -> None:
    vault = build_obsidian_vault(tmp_path)
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md")) == sorted(NOTES)
    png = (vault / IMAGE).read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and b"IEND" in png
    assert (tmp_path / "outside.png").is_file()


def test_parsed_note_searches_shown_text_and_its_chunks_still_cover_the_note() -> None:
    from explorer.vault.parse import parse_note

    raw = (
        "---\naliases: [Other]\n---\n![[pic.png]]\n\nSee [[Target|the target]] and [[#Top]].\n\n"
        + "word " * 200
        + "\n\n![[end.png]]\n"
    )
    note = parse_note("a.md", raw.encode())
    assert note.aliases == ["Other"]
    assert [link.target for link in note.links] == ["pic.png", "Target", "", "end.png"]
    assert note.search_text.startswith("\n\nSee the target and Top.")
    assert "[[" not in note.search_text and "png" not in note.search_text
    spans = [(c.start, c.end) for c in note.chunks]
    assert spans[0][0] == note.body_start and spans[-1][1] == len(note.text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all(c.text and "[[" not in c.text for c in note.chunks)
    assert "top" not in note.tags  # [[#Top]] is a heading link, not a tag
    assert parse_note("h.md", b"# About [[Target|the target]]\n").title == "About the target"


def test_link_text_of_a_part_reads_only_the_links_inside_it() -> None:
    text = link_lines(40_000)
    found = find_links(text)
    assert len(found) == 40_000
    start = text.index("[[T7]] 20007")
    counted = Counted(found, limit=1000)
    assert link_text(text, counted, start, text.index("\n", start)) == "T7 20007"
    assert link_text(text, counted, start - 2, start + 3) == text[start - 2 : start + 3]
    assert counted.reads <= 4 * 17  # a binary search of 40,000 links, twice, for each part
