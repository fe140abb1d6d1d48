"""Reading frontmatter safely (explorer/vault/frontmatter.py): the fields the index uses, each
a short text or a short list of texts; anything that would expand past its budget is refused
and named, and the rest of the note is read."""

from __future__ import annotations

import pytest

from explorer.vault.frontmatter import MAX_BLOCK_CHARS, MAX_FIELD_CHARS, read_frontmatter
from tests.hostile_parsing import laughs


def test_the_fields_the_index_uses_are_read_and_no_other() -> None:
    text = (
        "---\ntitle: Deploying\ntags: [ops, '#deploy']\nstatus: Stale\naliases: [Ship it]\n"
        "alias: Old name\nowner: {name: x}\n---\n# Body\n"
    )
    front = read_frontmatter(text)
    assert front.fields == {
        "title": "Deploying",
        "tags": ["ops", "#deploy"],
        "status": "Stale",
        "aliases": ["Ship it"],
        "alias": "Old name",
    }
    assert text[front.end :] == "# Body\n" and front.warnings == ()


def test_no_frontmatter_and_an_empty_one() -> None:
    assert read_frontmatter("# Just a note\n").end == 0
    empty = read_frontmatter("---\n---\nbody\n")
    assert empty.fields == {} and empty.end == len("---\n---\n") and empty.warnings == ()


@pytest.mark.parametrize("field", ["status", "tags"])
def test_a_billion_laughs_is_refused_and_named_the_rest_read(field: str) -> None:
    text = laughs(9, field)
    assert len(text.encode()) < 600  # 9 ** 9 strings if expanded
    front = read_frontmatter(text)
    assert field not in front.fields
    assert front.fields["title"] == "Laughing note"
    assert front.fields["tags" if field == "status" else "status"] in (["kept"], "draft")
    assert len(front.warnings) == 1 and f"`{field}`" in front.warnings[0]
    assert text[front.end :].startswith("# Laughing note")


def test_a_long_text_used_again_and_again_is_refused_past_the_budget() -> None:
    word = "x" * 1000
    uses = MAX_FIELD_CHARS // 1000 + 1
    text = f"---\nw: &w {word}\naliases: [{', '.join(['*w'] * uses)}]\ntitle: T\n---\n"
    front = read_frontmatter(text)
    assert "aliases" not in front.fields and front.fields["title"] == "T"
    assert "`aliases`" in front.warnings[0] and f"{MAX_FIELD_CHARS:,}" in front.warnings[0]
    few = text.replace(", ".join(["*w"] * uses), "*w, *w")
    assert read_frontmatter(few).fields["aliases"] == [word, word]


def test_a_value_that_refers_to_itself_is_refused() -> None:
    front = read_frontmatter("---\nloop: &a [x, *a]\ntags: *a\nstatus: ok\n---\n")
    assert "tags" not in front.fields and front.fields["status"] == "ok"
    assert "`tags`" in front.warnings[0]


@pytest.mark.parametrize(
    ("yaml", "field"),
    [
        ("title: [a, b]", "title"),
        ("status: {a: 1}", "status"),
        ("tags: [a, [b, c]]", "tags"),
        ("aliases: {x: y}", "aliases"),
        ("status: 2024-13-45", "status"),  # looks like a date, is none
        ("title: !!binary aGVsbG8=", "title"),
    ],
)
def test_a_field_of_another_shape_is_refused_and_named(yaml: str, field: str) -> None:
    front = read_frontmatter(f"---\n{yaml}\nkept: 1\n---\nbody\n")
    assert field not in front.fields
    assert len(front.warnings) == 1 and f"`{field}`" in front.warnings[0]
    assert front.end > 0


def test_fields_not_read_are_never_built() -> None:
    # Values the YAML constructor would fail on, under keys the index does not read.
    front = read_frontmatter("---\nwhen: 2024-13-45\nblob: !!binary '%%'\ntitle: T\n---\n")
    assert front.fields == {"title": "T"} and front.warnings == ()


def test_scalars_keep_their_yaml_types_and_a_repeated_key_its_last_value() -> None:
    front = read_frontmatter("---\ntitle: 2024\ntags: [1, true, null, x]\ntitle: 7.5\n---\n")
    assert front.fields == {"title": 7.5, "tags": [1, True, None, "x"]}


def test_a_block_larger_than_its_budget_is_kept_as_text() -> None:
    big = "---\ntitle: Big\nfill: " + "y" * MAX_BLOCK_CHARS + "\n---\n# Heading\n"
    front = read_frontmatter(big)
    assert front.end == 0 and front.fields == {}
    warning = f"frontmatter is longer than {MAX_BLOCK_CHARS:,} characters, kept as text"
    assert front.warnings == (warning,)


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("---\ntitle: [broken\n---\n", "frontmatter is not valid YAML, kept as text"),
        ("---\n- a list\n---\n", "frontmatter is not a mapping, kept as text"),
        ("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n", "frontmatter is nested too deeply"),
        ("---\na: *nowhere\n---\n", "frontmatter is not valid YAML, kept as text"),
    ],
)
def test_frontmatter_that_is_no_mapping_is_kept_as_text(text: str, warning: str) -> None:
    front = read_frontmatter(text)
    assert front.end == 0 and front.fields == {}
    assert len(front.warnings) == 1 and front.warnings[0].startswith(warning)
