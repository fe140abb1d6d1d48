"""Scanning a vault: ignore rules, skipped files with reasons, no hang on link loops."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from explorer.vault.ignore import IgnoreRules
from explorer.vault.scan import MAX_NOTE_BYTES, scan_vault


def test_notes_and_ignore_rules(vault: Path, write: Callable[[str, str], Path]) -> None:
    for rel in [
        "a.md",
        "b.markdown",
        "C.MD",
        "sub/d.md",
        ".obsidian/x.md",
        ".git/y.md",
        "node_modules/z.md",
        "sub/.trash/t.md",
        "drafts/secret.md",
        "notes.txt",
        "build/out.md",
        "keep/build.md",
        "..md",
        ".hidden-file.md",
        ".#lock.md",
        ".~lock.x.md",
    ]:
        write(rel, "# x\n")
    write(".explorerignore", "drafts/\n/build/\n# comment\n")
    files = set(scan_vault(vault).files)
    assert files == {
        "a.md",
        "b.markdown",
        "C.MD",
        "sub/d.md",
        "keep/build.md",
        "..md",
        ".hidden-file.md",
    }


def test_too_large_and_links(vault: Path, write: Callable[[str, str | bytes], Path]) -> None:
    write("big.md", b"x" * (MAX_NOTE_BYTES + 1))
    write("ok.md", "ok")
    os.symlink(vault, vault / "loop")  # a folder link back to the root: never followed
    os.symlink(vault / "l1.md", vault / "l2.md")
    os.symlink(vault / "l2.md", vault / "l1.md")  # a file link loop
    os.symlink(vault / "ok.md", vault / "alias.md")  # a good file link is a note
    result = scan_vault(vault)
    assert set(result.files) == {"ok.md", "alias.md"}
    assert "too large" in result.skipped["big.md"]
    assert "l1.md" in result.skipped and "l2.md" in result.skipped


def test_ignore_rules_on_paths() -> None:
    rules = IgnoreRules(["*.tmp.md", "private/"])
    assert rules.ignores_file("x.tmp.md")
    assert rules.ignores_dir("a/private")
    assert rules.ignores_file("a/private/n.md")
    assert not rules.ignores_file("a/public/n.md")
    assert rules.ignores_file("a/n.txt")
