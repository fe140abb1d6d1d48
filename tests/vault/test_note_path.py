"""The one normaliser of typed note paths: which paths name a note id, which are refused, and
when a backslash is part of a name."""

from __future__ import annotations

import pytest

from explorer.vault.note_path import BACKSLASH_SEPARATES, BadNotePath, note_id, readings


@pytest.mark.parametrize(
    ("path", "rel"),
    [
        ("ops/cdn.md", "ops/cdn.md"),
        ("ops\\cdn.md", "ops/cdn.md"),
        ("./ops//cdn.md", "ops/cdn.md"),
        ("a.md/", "a.md"),
        ("C# & F#/tips #1.md", "C# & F#/tips #1.md"),
        ("..md", "..md"),  # a name that starts with dots is no way up
        ("bell\x07.md", "bell\x07.md"),
    ],
)
def test_a_vault_relative_path_is_a_note_id(path: str, rel: str) -> None:
    assert note_id(path) == rel
    assert note_id(path, lambda _: False) == rel


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("", "give a note's path"),
        ("   ", "give a note's path"),
        ("./", "give a note's path"),
        ("a\x00.md", "give a note's path"),
        ("/etc/passwd", "absolute path"),
        ("\\\\server\\share\\x.md", "absolute path"),
        ("C:\\notes\\x.md", "absolute path"),
        ("C:x.md", "absolute path"),
        ("file:///etc/passwd", "file: URI"),
        ("../x.md", "leads out of the vault"),
        ("ops/../../x.md", "leads out of the vault"),
        ("ops\\..\\..\\x.md", "leads out of the vault"),
    ],
)
def test_a_path_that_is_no_note_id_is_refused(path: str, said: str) -> None:
    with pytest.raises(BadNotePath, match=said):
        note_id(path, lambda _: False)


@pytest.mark.skipif(BACKSLASH_SEPARATES, reason="on Windows a backslash always separates")
def test_on_posix_a_backslash_is_kept_when_a_note_has_that_name() -> None:
    names = {"back\\slash.md", "C:x.md"}
    assert note_id("back\\slash.md", names.__contains__) == "back\\slash.md"
    assert note_id("./back\\slash.md", names.__contains__) == "back\\slash.md"
    assert note_id("C:x.md", names.__contains__) == "C:x.md"  # a legal name, not a drive
    assert note_id("sub\\x.md", names.__contains__) == "sub/x.md"
    assert readings("back\\slash.md") == ["back\\slash.md", "back/slash.md"]
    assert readings("a.md") == ["a.md"]
    # No name makes a way up or an absolute path of a literal reading.
    with pytest.raises(BadNotePath, match="leads out"):
        note_id("a/../b\\c.md", lambda _: True)
    with pytest.raises(BadNotePath, match="absolute"):
        note_id("/b\\c.md", lambda _: True)


def test_a_name_as_safe_text_shows_it_is_that_name_when_it_exists() -> None:
    names = {"bell\x07.md", "evil\u202egpj.md"}
    assert note_id("bell\\x07.md", names.__contains__) == "bell\x07.md"
    assert note_id("evil\\u202egpj.md", names.__contains__) == "evil\u202egpj.md"
    # An escape of a character safe_text leaves alone is no escape; NUL is never a name.
    assert note_id("caf\\xe9.md", lambda _: True) != "café.md"
    assert "a\x00.md" not in readings("a\\x00.md")
