"""The file-named form of a collection: titles moved from the text into the file names."""

from __future__ import annotations

from pathlib import Path

from explorer.evaluate.datasets import BeirDataset, Doc
from explorer.evaluate.title_forms import (
    file_name,
    file_named_corpus,
    file_named_vault,
    untitled_text,
)
from explorer.vault.parse import parse_note


def test_a_title_from_an_h1_or_the_frontmatter_leaves_the_text() -> None:
    assert untitled_text("# Deck Options\n\nBody.\n") == ("Body.\n", "Deck Options")
    text, title = untitled_text("---\ntitle: Refund policy\ntags: [a]\n---\n# Other\n\nB.\n")
    assert title == "Refund policy"
    assert text == "---\ntags: [a]\n---\n# Other\n\nB.\n"
    assert untitled_text("```\n# code\n```\n") == ("```\n# code\n```\n", None)
    assert untitled_text("No title here.\n") == ("No title here.\n", None)


def test_file_names_hold_no_character_a_file_system_refuses() -> None:
    assert file_name("Adding/Editing: a *guide*?") == "Adding Editing a guide"
    assert file_name("...") == "untitled"
    assert len(file_name("x" * 500)) == 120


def test_a_vault_is_written_titled_by_its_file_names(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "deck-options.md").write_text("# Deck Options\n\nHow cards are scheduled.\n")
    (vault / "sub" / "a.md").write_text("# Same\n\nOne.\n")
    (vault / "sub" / "b.md").write_text("# same\n\nTwo.\n")
    (vault / "sub" / "plain.md").write_text("Nothing gives a title.\n")
    (vault / "image.png").write_bytes(b"\x89PNG")
    renamed = file_named_vault(vault, tmp_path / "out")
    assert renamed == {
        "deck-options.md": "Deck Options.md",
        "sub/a.md": "sub/Same.md",
        "sub/b.md": "sub/same (2).md",
        "sub/plain.md": "sub/plain.md",
    }
    note = parse_note("Deck Options.md", (tmp_path / "out" / "Deck Options.md").read_bytes())
    assert (note.title, note.title_from_content) == ("Deck Options", False)
    assert (tmp_path / "out" / "image.png").read_bytes() == b"\x89PNG"


def test_a_corpus_is_written_one_file_per_title(tmp_path: Path) -> None:
    dataset = BeirDataset(
        name="tiny",
        corpus={"1": Doc("Vitamin D and bones", "Abstract one."), "2": Doc("", "Untitled.")},
        queries={},
        qrels={},
    )
    names = file_named_corpus(dataset, tmp_path / "c")
    assert names == {"Vitamin D and bones.md": "1", "2.md": "2"}
    assert (tmp_path / "c" / "Vitamin D and bones.md").read_text() == "Abstract one.\n"
