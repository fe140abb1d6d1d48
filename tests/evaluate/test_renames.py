"""bench --renames: what renaming a note and a folder of 100 notes costs."""

from __future__ import annotations

from pathlib import Path

from explorer.embed.base import FakeEmbedder
from explorer.evaluate.renames import FOLDER_NOTES, format_renames, rename_costs


def test_a_rename_costs_one_sync_and_the_renamed_notes_chunks_embedded_again(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(FOLDER_NOTES + 1):
        (vault / f"n{i:03d}.md").write_text(f"# Title {i}\n\nBody of note {i}.\n")
    before = sorted(p.read_bytes() for p in vault.iterdir())
    figures = rename_costs(vault, tmp_path / "scratch", FakeEmbedder())
    assert figures["note"]["moved"] == 1
    # Titled by its file name (the copy drops the H1): its one chunk gets a new text.
    assert figures["note"]["chunksEmbeddedAgain"] == 1
    assert figures["note"]["notesOnStandIns"] == 1
    # The folder is not part of what is embedded: a folder moved re-embeds nothing.
    assert figures["folder"]["moved"] == FOLDER_NOTES
    assert figures["folder"]["chunksEmbeddedAgain"] == 0
    assert sorted(p.read_bytes() for p in vault.iterdir()) == before  # never touched
    assert not (tmp_path / "scratch" / "renames").exists()
    lines = format_renames(figures)
    assert lines[1].startswith("  one note ") and "1 chunk embedded again" in lines[1]


def test_a_vault_too_small_says_so(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("one\n")
    figures = rename_costs(tmp_path, tmp_path / "scratch", FakeEmbedder())
    assert format_renames(figures) == [
        f"renames: the vault has fewer than {FOLDER_NOTES + 1} notes"
    ]
