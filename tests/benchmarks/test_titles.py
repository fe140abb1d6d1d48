"""benchmarks/titles.py: the near forms it types, and a vault retitled by its file names."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from titles import main, near_forms


def test_the_near_forms_of_a_name() -> None:
    assert near_forms("refund policy") == {
        "drop a word": "refund",
        "add a word": "about refund policy",
        "plural": "refund policies",
        "typo": "rfeund policy",  # the first of its longest words
    }
    assert "drop a word" not in near_forms("tabs")
    assert near_forms("tabs")["plural"] == "tab"


def test_retitle_names_each_file_by_its_title_and_removes_it_from_the_text(
    tmp_path: Path,
) -> None:
    source = tmp_path / "vault"
    (source / "sub").mkdir(parents=True)
    (source / "deck-options.md").write_text("# Deck Options\n\nHow cards are scheduled.\n")
    (source / "sub" / "a.md").write_text("---\ntitle: Adding/Editing\ntags: [x]\n---\nText.\n")
    (source / "plain.md").write_text("No title here.\n")
    out = tmp_path / "named"
    main(["retitle", str(source), str(out)])
    assert (out / "Deck Options.md").read_text() == "How cards are scheduled.\n"
    assert (out / "sub" / "Adding Editing.md").read_text() == "---\ntags: [x]\n---\nText.\n"
    assert (out / "plain.md").read_text() == "No title here.\n"
