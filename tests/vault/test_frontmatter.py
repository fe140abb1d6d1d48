"""Reading frontmatter safely (explorer/vault/frontmatter.py): the fields the index uses, each
a short text or a short list of texts; anything that would expand past its budget is refused
and named, and the rest of the note is read.  Every test runs with each loader: libyaml's
(where PyYAML has it) and PyYAML's own."""

from __future__ import annotations

import pytest
import yaml

from explorer.vault import frontmatter
from explorer.vault.frontmatter import (
    FAST_NESTING,
    MAX_BLOCK_CHARS,
    MAX_FIELD_CHARS,
    read_frontmatter,
)
from tests.hostile_parsing import laughs


@pytest.fixture(params=["libyaml", "python"], autouse=True)
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test once with libyaml composing what it may, once with PyYAML composing all."""
    if request.param == "python":
        monkeypatch.setattr(frontmatter, "FAST_LOADER", None)
    elif frontmatter.FAST_LOADER is None:
        pytest.skip("PyYAML was built without libyaml")
    return str(request.param)


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
        # Deep enough to overflow libyaml's C stack (a crash, no exception) if it composed it.
        ("---\nx: " + "[" * 30000 + "]" * 30000 + "\n---\n", "frontmatter is nested too deeply"),
        ("---\nx: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n---\n", "frontmatter is nested too"),
        ("---\ntitle: a\udc80b\n---\n", "frontmatter is not valid YAML, kept as text"),
        ("---\ntitle: a\x01b\n---\n", "frontmatter is not valid YAML, kept as text"),
        ("---\na: *nowhere\n---\n", "frontmatter is not valid YAML, kept as text"),
    ],
    ids=["broken", "list", "deep", "deeper", "deep-maps", "surrogate", "control", "alias"],
)
def test_frontmatter_that_is_no_mapping_is_kept_as_text(text: str, warning: str) -> None:
    front = read_frontmatter(text)
    assert front.end == 0 and front.fields == {}
    assert len(front.warnings) == 1 and front.warnings[0].startswith(warning)


def test_libyaml_composes_only_the_blocks_both_loaders_read_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML was built without libyaml")
    composed: list[str] = []

    class Counting(yaml.CSafeLoader):
        def __init__(self, stream: str) -> None:
            composed.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(frontmatter, "FAST_LOADER", Counting)
    ordinary = "title: T\ntags:\n  - a\n  - b\ncreated: 2024-01-02\n"
    assert read_frontmatter(f"---\n{ordinary}---\nbody\n").fields["tags"] == ["a", "b"]
    assert composed == [ordinary]
    deep = "x: " + "[" * FAST_NESTING + "]" * FAST_NESTING + "\n"
    others = [
        deep,  # could nest past FAST_NESTING: libyaml's C recursion has no limit
        "title:\tx\n",  # a tab: PyYAML refuses it after a colon, libyaml reads it
        "title: x\n\ufeffk: y\n",  # a byte-order mark within the text
        "title: \udc80\n",  # a lone surrogate, which libyaml cannot take in
        'title: "\\ud800"\n',  # its escape: libyaml refuses it, PyYAML makes one
        "title: |#\n",  # a block scalar's header and a comment: PyYAML refuses it
        "aliases: [Why?]\n",  # a question mark in a flow list: PyYAML refuses it
    ]
    for block in others:
        read_frontmatter(f"---\n{block}---\n")
    assert composed == [ordinary]
    shallow = "x: " + "[" * (FAST_NESTING - 1) + "]" * (FAST_NESTING - 1) + "\n"
    assert read_frontmatter(f"---\n{shallow}---\n").end > 0
    assert composed == [ordinary, shallow]
