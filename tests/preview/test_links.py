"""Where the preview's links lead: notes and aliases from the index or the disk, attachments
from the disk."""

from __future__ import annotations

from pathlib import Path

from explorer.index.db import IndexDB
from explorer.index.links import note_names
from explorer.index.sync import sync_vault
from explorer.preview.links import links_from_index, vault_links


def test_vault_links_reads_notes_aliases_and_attachments(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / ".obsidian").mkdir()
    (vault / "a.md").write_text("---\naliases: [Alpha, First]\n---\n# A\n", encoding="utf-8")
    (vault / "sub" / "b.md").write_text("---\ntitle: no aliases here\n---\nB\n", encoding="utf-8")
    (vault / "sub" / "pic.png").write_bytes(b"x")
    (vault / ".obsidian" / "hidden.png").write_bytes(b"x")
    links = vault_links(vault)
    assert links.resolve("alpha") == "a.md"
    assert links.resolve("First") == "a.md"
    assert links.resolve("b") == "sub/b.md"
    assert links.resolve("pic.png") == "sub/pic.png"
    assert links.resolve("hidden.png") is None
    assert links.embed("sub/b.md") == "B\n"
    assert links.embed("gone.md") is None


def test_vault_links_update_only_the_notes_that_changed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    (vault / "gone.md").write_text("# Gone\n", encoding="utf-8")
    links = vault_links(vault)
    assert links.resolve("Alpha") is None and links.resolve("gone") == "gone.md"
    (vault / "a.md").write_text("---\naliases: Alpha\n---\n# A\n", encoding="utf-8")
    (vault / "gone.md").unlink()
    (vault / "new.md").write_text("# New\n", encoding="utf-8")
    (vault / "unseen.md").write_text("# Unseen\n", encoding="utf-8")  # not reported
    after = links.updated(["a.md", "gone.md", "new.md"])
    assert after.resolve("Alpha") == "a.md"
    assert after.resolve("gone") is None
    assert after.resolve("new") == "new.md"
    assert after.resolve("unseen") is None  # only the notes reported were read
    assert links.resolve("gone") == "gone.md"  # the old links are unchanged


def test_links_from_the_index_are_the_notes_and_aliases_the_sync_stored(
    tmp_path: Path, data_dir: Path
) -> None:
    """No rescan of the vault, no frontmatter parsed again: the index has both already."""
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "a.md").write_text("---\naliases: [Alpha, First]\n---\n# A\n", encoding="utf-8")
    (vault / "sub" / "b.md").write_text("# B\n\nbody\n", encoding="utf-8")
    (vault / "sub" / "pic.png").write_bytes(b"x")
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        (vault / "unindexed.md").write_text("# Not yet\n", encoding="utf-8")
        (vault / "a.md").write_text("# A without its aliases, not synced\n", encoding="utf-8")
        links = links_from_index(db.conn, vault)
    finally:
        db.close()
    assert links.notes == {"a.md": ["Alpha", "First"], "sub/b.md": []}
    assert links.resolve("first") == "a.md" and links.resolve("b") == "sub/b.md"
    assert links.resolve("unindexed") is None  # the index's notes, not the folder's
    assert links.resolve("pic.png") == "sub/pic.png"  # attachments are found on disk
    assert links.embed("sub/b.md") == "# B\n\nbody\n"  # the note as it is on disk


def test_links_follow_the_notes_the_index_changed_and_keep_the_rest(
    tmp_path: Path, data_dir: Path
) -> None:
    """After a sync, only the changed notes are read from the index again: a new note and a
    new alias resolve, a deleted note no longer does, the others and the attachments stay."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    (vault / "b.md").write_text("# B\n", encoding="utf-8")
    (vault / "gone.md").write_text("# Gone\n", encoding="utf-8")
    (vault / "pic.png").write_bytes(b"x")
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        links = links_from_index(db.conn, vault)
        (vault / "gone.md").unlink()
        (vault / "a.md").write_text("---\naliases: [Alpha]\n---\n# A\n", encoding="utf-8")
        (vault / "new.md").write_text("# New\n", encoding="utf-8")
        sync_vault(db)
        changed = ["a.md", "gone.md", "new.md"]
        names = note_names(db.conn, changed)
    finally:
        db.close()
    assert names == {"a.md": ["Alpha"], "new.md": []}
    after = links.indexed(changed, names)
    assert after.notes == {"a.md": ["Alpha"], "b.md": [], "new.md": []}
    assert after.resolve("alpha") == "a.md" and after.resolve("gone") is None
    assert after.resolve("pic.png") == "pic.png"
