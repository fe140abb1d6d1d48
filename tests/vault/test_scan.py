"""Scanning a vault: ignore rules, skipped files with reasons, no hang on link loops."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from explorer.vault.ignore import IgnoreRules
from explorer.vault.scan import (
    MAX_NOTE_BYTES,
    NOT_UTF8_NAME,
    FileStat,
    escape_name,
    read_note,
    scan_vault,
    stat_note,
)


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


def test_a_sub_folder_scan_names_notes_from_the_vault_root(
    vault: Path, write: Callable[[str, str], Path]
) -> None:
    for rel in ["top.md", "a/b/c/deep.md", "a/b/x.md", "a/.git/h.md", "a/b/.trash/t.md"]:
        write(rel, "# x\n")
    assert set(scan_vault(vault, under="a/b").files) == {"a/b/c/deep.md", "a/b/x.md"}
    assert set(scan_vault(vault, under="a").files) == {"a/b/c/deep.md", "a/b/x.md"}
    rules = IgnoreRules()
    assert rules.ignores_file("a/.git/h.md") and not rules.ignores_file("a/b/..md")


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


def _bytes_write(vault: Path, rel: bytes, content: str = "# x\n\nwords\n") -> None:
    """Write a file whose name is given as bytes (possibly not UTF-8), as Linux allows."""
    path = os.path.join(os.fsencode(vault), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(content)


def test_names_that_are_not_utf8_are_skipped_under_an_escaped_name(
    vault: Path, write: Callable[[str, str], Path]
) -> None:
    write("good.md", "# good\n")
    _bytes_write(vault, b"caf\xe9.md")
    _bytes_write(vault, b"d\xff/inner.md")  # a folder whose name is not UTF-8
    _bytes_write(vault, b"d\xff/picture.png")  # not a note: not listed
    result = scan_vault(vault)
    assert set(result.files) == {"good.md"}
    assert result.skipped == {
        "caf\\xe9.md": NOT_UTF8_NAME,
        "d\\xff/inner.md": NOT_UTF8_NAME,
    }
    assert "rename" in NOT_UTF8_NAME
    for name in result.skipped:
        name.encode("utf-8")  # every name the scanner hands out can be stored as text
    bad = os.fsdecode(b"caf\xe9.md")
    assert stat_note(vault, bad) == NOT_UTF8_NAME
    assert stat_note(vault, os.fsdecode(b"d\xff/inner.md")) == NOT_UTF8_NAME
    assert escape_name(bad) == "caf\\xe9.md"
    assert escape_name("plain/é.md") == "plain/é.md"


def _links(vault: Path, outside: Path) -> None:
    (vault / "sub").mkdir()
    (vault / "sub" / "real.md").write_text("# real\n\ninside words\n")
    outside.mkdir()
    (outside / "secret.md").write_text("root:x:0:0:root:/root:/bin/bash\n")
    os.symlink(outside / "secret.md", vault / "out.md")  # absolute, out of the vault
    os.symlink("../outside/secret.md", vault / "relative-out.md")  # relative, out of the vault
    os.symlink("sub/real.md", vault / "in.md")  # inside: a note
    os.symlink(vault / "sub" / "real.md", vault / "sub" / "abs-in.md")  # inside, absolute
    os.symlink(vault / "sub" / "real.md", vault / "hop.md")
    os.symlink(outside, vault / "sub" / "outdir")  # a folder link: never followed
    os.symlink("hop.md", vault / "chain.md")  # a link to a link to a note inside
    os.symlink(vault / "nowhere.md", vault / "dangling.md")
    os.mkfifo(vault / "pipe.md")
    os.symlink("pipe.md", vault / "to-pipe.md")


LINK_REASONS = {
    "out.md": "symlink to a file outside the vault",
    "relative-out.md": "symlink to a file outside the vault",
    "pipe.md": "not a regular file",
    "to-pipe.md": "not a regular file",
}


def test_symlinked_files_are_notes_only_inside_the_vault(vault: Path, tmp_path: Path) -> None:
    _links(vault, tmp_path / "outside")
    result = scan_vault(vault)
    assert set(result.files) == {"sub/real.md", "in.md", "sub/abs-in.md", "hop.md", "chain.md"}
    assert {k: v for k, v in result.skipped.items() if k != "dangling.md"} == LINK_REASONS
    assert "broken symlink" in result.skipped["dangling.md"]
    # The targeted look at one path (the watcher's) decides the same.
    for rel, reason in LINK_REASONS.items():
        assert stat_note(vault, rel) == reason
    assert "broken symlink" in str(stat_note(vault, "dangling.md"))
    for rel in result.files:
        assert isinstance(stat_note(vault, rel), FileStat)
    assert stat_note(vault, "sub/outdir/secret.md") is None  # behind a folder link: no note
    assert stat_note(vault, "never-existed.md") is None


def test_reading_never_leaves_the_vault_nor_opens_a_fifo(vault: Path, tmp_path: Path) -> None:
    _links(vault, tmp_path / "outside")
    assert read_note(vault, "in.md") == b"# real\n\ninside words\n"
    read: dict[str, object] = {}

    def read_all() -> None:
        for rel in ["out.md", "relative-out.md", "pipe.md", "to-pipe.md", "sub/outdir/secret.md"]:
            read[rel] = read_note(vault, rel)

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    reader.join(60)  # a safety net only: opening the FIFO would block for ever
    assert not reader.is_alive(), "read_note blocked (opened a FIFO)"
    assert read == {**LINK_REASONS, "sub/outdir/secret.md": "symlink to a file outside the vault"}
    assert read_note(vault, "gone.md") is None


def test_a_fifo_named_like_the_ignore_file_is_never_waited_on(
    vault: Path, write: Callable[[str, str], Path]
) -> None:
    write("a.md", "# a\n")
    os.mkfifo(vault / ".explorerignore")
    found: list[set[str]] = []
    scanner = threading.Thread(target=lambda: found.append(set(scan_vault(vault).files)))
    scanner.daemon = True
    scanner.start()
    scanner.join(60)  # a safety net only: opening the FIFO would block for ever
    assert not scanner.is_alive(), "the scan blocked on the FIFO"
    assert found == [{"a.md"}]
