"""The URI that opens a note in Obsidian, and which folders are Obsidian vaults."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from explorer.vault.obsidian import is_obsidian_vault, open_uri


@pytest.mark.parametrize(
    ("vault", "note", "uri"),
    [
        ("notes", "ops/cdn purge.md", "obsidian://open?vault=notes&file=ops%2Fcdn%20purge.md"),
        ("My Vault", "a.md", "obsidian://open?vault=My%20Vault&file=a.md"),
        (
            "v",
            "C# & F#/tips #1.md",
            "obsidian://open?vault=v&file=C%23%20%26%20F%23%2Ftips%20%231.md",
        ),
        (
            "Café",
            "日記/été.md",
            "obsidian://open?vault=Caf%C3%A9&file=%E6%97%A5%E8%A8%98%2F%C3%A9t%C3%A9.md",
        ),
        ("a+b=c", "50%?.md", "obsidian://open?vault=a%2Bb%3Dc&file=50%25%3F.md"),
    ],
)
def test_the_uri_encodes_every_reserved_character(
    tmp_path: Path, vault: str, note: str, uri: str
) -> None:
    root = tmp_path / vault
    assert open_uri(root, note) == uri
    # Read back as any URI parser reads it, the names come back whole.
    parts = urlsplit(uri)
    assert (parts.scheme, parts.netloc, parts.path) == ("obsidian", "open", "")
    assert parse_qs(parts.query) == {"vault": [vault], "file": [note]}


def test_a_backslash_path_is_a_vault_relative_posix_path(tmp_path: Path) -> None:
    assert open_uri(tmp_path / "v", "ops\\cdn.md") == "obsidian://open?vault=v&file=ops%2Fcdn.md"


def test_only_a_folder_with_an_obsidian_folder_is_an_obsidian_vault(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    assert not is_obsidian_vault(vault)
    (vault / ".obsidian").write_text("not a folder")
    assert not is_obsidian_vault(vault)
    (vault / ".obsidian").unlink()
    (vault / ".obsidian").mkdir()
    assert is_obsidian_vault(vault)
    assert not is_obsidian_vault(tmp_path / "missing")
