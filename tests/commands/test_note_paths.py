"""Every path search shows opens in ``get_note``, ``related`` and ``explain``, on the command
line and over MCP: names with a backslash (one file on Linux and macOS) or a control character,
and the harmless spellings of a path (``./a.md``, ``a.md/``, ``sub//x.md``), all read by one
normaliser (:func:`explorer.vault.note_path.note_id`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.console import UsageError
from explorer.embed.base import FakeEmbedder
from explorer.embed.models import DEFAULT_MODEL
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import IndexDB
from explorer.mcp.reader import VaultReader
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import QueryError
from explorer.vault.note_path import BACKSLASH_SEPARATES
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]

pytestmark = pytest.mark.skipif(BACKSLASH_SEPARATES, reason="a backslash separates on Windows")

ODD_NAMES = ("back\\slash.md", "bell\x07.md", "tab\there.md")


@pytest.fixture
def reader(
    vault: Path, write: Write, data_dir: Path, open_db: Callable[[Path], IndexDB]
) -> VaultReader:
    for name in ODD_NAMES:
        write(name, f"# {name[:4]}\n\nKettle descaling with vinegar, {name[:4]}.\n")
    write("a.md", "# A\n\nKettle limescale and vinegar.\n")
    write("sub/x.md", "# X\n\nDescaling a kettle.\n")
    write("back/slash.md", "# The other one\n\nA folder named back, a note named slash.\n")
    build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder(name=DEFAULT_MODEL)))
    return VaultReader(vault, str(data_dir), EmbedderProvider.disabled())


FTS = SearchOptions(mode="fts")


def test_every_path_search_shows_opens_in_every_tool(reader: VaultReader) -> None:
    shown = [hit.path for hit in reader.search("kettle", FTS).response.hits]
    assert set(ODD_NAMES) <= set(shown)
    for path in shown:
        assert reader.get_note(path).path == path
        assert reader.related(path, 5).path == path
        assert reader.explain("kettle", path, FTS).path == path


def test_a_backslash_names_the_file_that_has_it_and_else_separates(reader: VaultReader) -> None:
    assert "Kettle descaling" in reader.get_note("back\\slash.md").text
    assert reader.related("back\\slash.md", 5).path == "back\\slash.md"
    # No file is called sub\x.md: the backslash is a separator, as in a path from Windows.
    assert reader.get_note("sub\\x.md").path == "sub/x.md"
    assert reader.related("sub\\x.md", 5).path == "sub/x.md"
    assert "A folder named back" in reader.get_note("back/slash.md").text


@pytest.mark.parametrize(
    ("typed", "note"), [("./a.md", "a.md"), ("a.md/", "a.md"), ("sub//x.md", "sub/x.md")]
)
def test_harmless_spellings_of_a_path_open_the_note(
    reader: VaultReader, typed: str, note: str
) -> None:
    assert reader.get_note(typed).path == note
    assert reader.related(typed, 5).path == note
    assert reader.explain("kettle", typed, FTS).path == note


@pytest.mark.parametrize("typed", ["../a.md", "/etc/passwd", "C:\\x.md", "file:///etc/passwd"])
def test_a_path_out_of_the_vault_is_refused_by_every_tool(reader: VaultReader, typed: str) -> None:
    with pytest.raises(UsageError):
        reader.get_note(typed)
    with pytest.raises((UsageError, QueryError)):
        reader.related(typed, 5)
    with pytest.raises((UsageError, QueryError)):
        reader.explain("kettle", typed, FTS)


@pytest.mark.parametrize("typed", [*ODD_NAMES, "./a.md", "sub//x.md"])
def test_the_command_line_opens_them_too(
    reader: VaultReader, typed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = str(reader.vault)
    capsys.readouterr()
    assert main(["related", vault, typed, "--json"]) == 0, capsys.readouterr().err
    related = json.loads(capsys.readouterr().out)
    assert main(["explain", vault, "kettle", typed, "--mode", "fts", "--json"]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert related["path"] == explained["path"] == typed.replace("./", "").replace("//", "/")


def test_linkto_takes_the_name_with_a_backslash(
    reader: VaultReader, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    write("links.md", "# Links\n\nSee [[back\\slash]] and [[a]].\n")
    build_index(open_db(reader.vault), None)
    hits = reader.search("linkto:back\\slash.md", FTS).response.hits
    assert [hit.path for hit in hits] == ["links.md"]


def test_a_name_as_the_text_output_shows_it_opens_the_note(
    reader: VaultReader, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", str(reader.vault), "kettle", "--mode", "fts", "--no-sync"]) == 0
    table = capsys.readouterr().out
    for name, shown in (("bell\x07.md", "bell\\x07.md"), ("tab\there.md", "tab\\x09here.md")):
        assert shown in table and name not in table  # what a person reads, and copies
        assert reader.get_note(shown).path == name
        assert reader.related(shown, 5).path == name
        assert reader.explain("kettle", shown, FTS).path == name
        assert main(["related", str(reader.vault), shown]) == 0, capsys.readouterr().err
