"""Parsing notes: title, tags, status, frontmatter, decoding."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from explorer.vault import parse
from explorer.vault.links import Link
from explorer.vault.parse import EmbedForm, NotANote, inline_tags, parse_note
from tests.hostile_parsing import Counted, laughs, link_lines


def test_title_from_frontmatter_then_heading_then_file_name() -> None:
    assert parse_note("a/x.md", b"---\ntitle: Front\n---\n# Head\n").title == "Front"
    assert parse_note("a/x.md", b"intro\n\n# Head line #\n").title == "Head line"
    assert parse_note("a/My Note.markdown", b"no heading here").title == "My Note"
    assert parse_note("x.md", b"```\n# not a title\n```\n").title == "x"


def test_tags_from_frontmatter_list_string_and_inline_outside_code() -> None:
    note = parse_note(
        "t.md",
        b"---\ntags: [Ops, '#Deploy']\n---\nText #incident and #Ops again, not `#code` or\n"
        b"```\n#fenced\n```\nnor a url http://x.org/p#frag nor #123 but #v2 and #a/b-c\n",
    )
    assert note.tags == ["ops", "deploy", "incident", "v2", "a/b-c"]
    assert parse_note("s.md", b"---\ntags: alpha, beta gamma\n---\n").tags == [
        "alpha",
        "beta",
        "gamma",
    ]


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("# Head line #", "Head line"),
        ("#\tTabbed\t##  ", "Tabbed"),
        ("# C#", "C#"),  # a closing sequence follows a space
        ("# C# #", "C#"),
        ("# #hashtag", "#hashtag"),
        ("# ##", "h"),  # an empty heading: the file name
    ],
)
def test_the_title_heading_loses_its_closing_marks(heading: str, title: str) -> None:
    assert parse_note("h.md", f"{heading}\nbody\n".encode()).title == title


def test_a_long_heading_of_closing_marks_is_read_once() -> None:
    """Each end the lazy title pattern tried ran over the marks after it (40 KB: 4.7 s)."""
    heading = "a" + " #" * 100_000 + "x"
    assert parse_note("h.md", f"# {heading}\n".encode()).title == heading


def test_heading_marks_are_not_tags() -> None:
    assert inline_tags("# Title\n## Sub\n#tag") == ["tag"]


def test_status_is_normalised() -> None:
    assert parse_note("s.md", b"---\nstatus: Stale\n---\nx").status == "stale"
    assert parse_note("s.md", b"x").status is None


def test_broken_frontmatter_is_body_text_not_an_error() -> None:
    note = parse_note("b.md", b"---\ntitle: [unclosed\n: : :\n---\n# Real\nbody words\n")
    assert note.body_start == 0
    assert "unclosed" in note.text[note.body_start :]
    assert note.title == "Real"
    assert any("frontmatter" in w for w in note.warnings)
    assert any("unclosed" in c.text for c in note.chunks)


def test_invalid_utf8_is_decoded_with_a_warning() -> None:
    note = parse_note("l.md", "# Café\n\nna\xefve".encode("latin-1"))
    assert note.title == "Café"
    assert "naïve" in note.text
    assert note.warnings and "UTF-8" in note.warnings[0]


def test_binary_content_is_refused() -> None:
    with pytest.raises(NotANote, match="binary"):
        parse_note("b.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")


def test_empty_note_has_no_chunks_but_is_a_note() -> None:
    note = parse_note("e.md", b"")
    assert note.title == "e"
    assert note.chunks == []


def test_each_chunk_is_embedded_with_its_title_and_the_headings_above_it() -> None:
    body = (
        "Intro.\n\n```\n# not a heading\n```\n\n## Eligibility\n\n"
        + "\n\n".join(f"Paragraph {i} " + "word " * 150 for i in range(3))
        + "\n\n### Exceptions\n\n"
        + "Sale items. " * 70
    )
    note = parse_note("guides/Refund policy.md", body.encode())
    texts = [note.embed_text(c) for c in note.chunks]
    assert len(texts) > 2
    # The file name is the title: every chunk carries it, the first one too.
    assert texts[0].startswith("Refund policy\nIntro.")
    assert texts[1].startswith("Refund policy › Eligibility\n")
    assert texts[-1].startswith("Refund policy › Eligibility\n### Exceptions\n")
    folder = note.embed_text(note.chunks[-1], EmbedForm.FOLDER_BREADCRUMB)
    assert folder.startswith("guides › Refund policy › Eligibility\n### Exceptions\n")
    assert note.embed_text(note.chunks[-1], EmbedForm.TITLE).startswith("Refund policy\n###")


def test_a_chunk_that_starts_with_the_title_or_its_own_heading_does_not_repeat_it() -> None:
    body = "# Deploy\n\n" + "\n\n".join(f"Paragraph {i} " + "word " * 150 for i in range(2))
    body += "\n\n## Rollback\n\n" + "Undo it. " * 30
    note = parse_note("x.md", body.encode())
    texts = [note.embed_text(c) for c in note.chunks]
    assert texts[0].startswith("# Deploy\n")
    assert texts[1].startswith("Deploy\nParagraph 1")
    assert texts[-1].startswith("Deploy\n## Rollback")


def test_the_form_of_before_adds_only_a_title_from_the_content() -> None:
    untitled = parse_note("name.md", ("word " * 400).encode())
    form = EmbedForm.CONTENT_TITLE
    assert all(untitled.embed_text(c, form) == c.text for c in untitled.chunks)


def test_lone_surrogates_from_yaml_escapes_become_replacement_characters() -> None:
    note = parse_note(
        "s.md", b'---\ntitle: "\\ud800 x \\ud83d\\ude00"\ntags: ["a\\udce9"]\n---\nb\n'
    )
    assert note.title == "\ufffd x \U0001f600"  # a valid pair is its character
    assert note.tags == ["a\ufffd"]
    note.title.encode("utf-8")  # storable


def test_frontmatter_nested_too_deep_is_kept_as_text() -> None:
    note = parse_note("d.md", ("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n# Deep\n").encode())
    assert note.title == "Deep" and note.body_start == 0
    assert note.warnings == ["frontmatter is nested too deeply, kept as text"]


@pytest.mark.parametrize("field", ["status", "tags"])
def test_a_billion_laughs_in_a_field_skips_that_field_and_keeps_the_note(field: str) -> None:
    note = parse_note("laughs.md", laughs(9, field).encode())
    assert note.title == "Laughing note" and note.body_start > 0
    if field == "status":
        assert note.status is None and note.tags == ["kept", "inline"]
    else:
        assert note.status == "draft" and note.tags == ["inline"]
    assert len(note.warnings) == 1 and f"`{field}`" in note.warnings[0]
    assert "laughbody" in note.search_text
    assert sum(len(c.text) for c in note.chunks) < 100


def test_the_chunks_of_40k_link_lines_read_each_link_a_few_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads = []
    real = parse.link_text

    def counting(
        text: str, links: Sequence[Link] | None = None, start: int = 0, end: int | None = None
    ) -> str:
        counted = Counted(links or [], limit=1_000_000)
        shown = real(text, counted, start, end)
        reads.append(counted.reads)
        return shown

    monkeypatch.setattr(parse, "link_text", counting)
    note = parse_note("many.md", link_lines(40_000).encode())
    assert "\n".join(c.text for c in note.chunks) == "\n".join(
        f"T{i % 10} {i}" for i in range(40_000)
    )
    assert len(note.chunks) > 100 and sum(reads) <= 2 * len(note.links)


def test_heading_paths_are_the_headings_in_force_at_every_chunk() -> None:
    """Looked up, not walked for each chunk (a note of 20,000 headings took 3 s to embed its
    chunks' texts, a 5 MB one minutes): the same paths as walking every heading before."""
    levels = [1, 2, 3, 3, 2, 4, 6, 1, 3, 2, 2, 5, 1] * 40
    body = "\n\n".join(
        f"{'#' * lv} H{i}\n\n" + "word " * (i % 7 * 30) for i, lv in enumerate(levels)
    )
    note = parse_note("big.md", body.encode())
    assert len(note.headings) == len(levels)
    for pos in [c.start for c in note.chunks] + [h[0] + 1 for h in note.headings]:
        stack: list[tuple[int, str]] = []
        for start, level, text in note.headings:
            if start >= pos:
                break
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
        assert note.heading_path(pos) == [t for _, t in stack]
