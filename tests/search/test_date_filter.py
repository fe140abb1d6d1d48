"""``modified:`` and ``created:``: dates as periods, durations as ages, created's sources."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.index.store import created_of
from explorer.index.sync import sync_vault
from explorer.search.hybrid import Searcher
from explorer.search.lexical import filter_clause
from explorer.search.options import SearchOptions
from explorer.search.query import parse_query
from explorer.vault.parse import parse_note
from explorer.vault.scan import FileStat
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]
DAY = 86400
#: "Now" for the ages: 2024-07-15 12:00 UTC.
NOW = dt.datetime(2024, 7, 15, 12, tzinfo=dt.UTC).timestamp()


def _at(year: int, month: int, day: int) -> float:
    return dt.datetime(year, month, day, 12, tzinfo=dt.UTC).timestamp()


#: Each note's file time, and its frontmatter.
NOTES = {
    "march.md": (_at(2024, 3, 14), "created: 2023-01-02\n"),
    "june.md": (_at(2024, 6, 30), "date: 2024-06-01\n"),
    "july.md": (_at(2024, 7, 12), ""),
    "old.md": (_at(2022, 5, 1), ""),
}


@pytest.fixture
def dated(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> IndexDB:
    for rel, (when, front) in NOTES.items():
        body = f"---\n{front}---\n" if front else ""
        path = write(rel, body + "# Plan\n\nthe garden plan\n")
        os.utime(path, (when, when))
    db = open_db(vault)
    sync_vault(db)
    return db


def _kept(db: IndexDB, raw: str) -> set[str]:
    query = parse_query(raw, now=NOW)
    assert query.notes == [] and query.dates
    where, params = filter_clause(query)
    rows = db.conn.execute(f"SELECT n.path FROM notes n WHERE {where}", params)
    return {str(p) for (p,) in rows}


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("modified:2024", {"march.md", "june.md", "july.md"}),
        ("modified:2024-03", {"march.md"}),
        ("modified:2024-03-14", {"march.md"}),
        ("modified:>2024-06", {"july.md"}),  # after June: from July on
        ("modified:>=2024-06", {"june.md", "july.md"}),
        ("modified:<2024-03", {"old.md"}),
        ("modified:<=2024-03", {"old.md", "march.md"}),
        ("modified:<7d", {"july.md"}),  # less than 7 days old
        ("modified:7d", {"july.md"}),
        ("modified:<3w", {"june.md", "july.md"}),
        ("modified:>1y", {"old.md"}),  # more than a year old
        ("modified:<12h", set()),
        ("modified:<6m", {"march.md", "june.md", "july.md"}),
        ("MODIFIED:2024 modified:<3w", {"june.md", "july.md"}),
        ("created:2023", {"march.md"}),  # the frontmatter's created
        ("created:2024-06", {"june.md"}),  # its date
        ("created:>1y", {"march.md"}),
    ],
)
def test_each_date_form_keeps_its_notes(dated: IndexDB, raw: str, kept: set[str]) -> None:
    assert _kept(dated, raw) == kept


@pytest.mark.parametrize("value", ["yesterday", "7x", "2024-13", "", ">"])
def test_a_malformed_date_is_searched_as_text_with_a_note(value: str) -> None:
    query = parse_query(f"garden modified:{value}")
    assert query.dates == []
    assert len(query.notes) == 1 and "is not a date filter" in query.notes[0]
    assert len(query.terms) == 2


def test_created_comes_from_the_frontmatter_the_birth_time_or_the_first_index(
    dated: IndexDB, vault: Path
) -> None:
    sources = dict(
        dated.conn.execute(
            "SELECT n.path, c.source FROM notes n JOIN note_created c ON c.note_id = n.id"
        ).fetchall()
    )
    born = "file" if FileStat("x", 0, 0).birth_ns is not None else "indexed"
    assert sources == {
        "march.md": "frontmatter",
        "june.md": "frontmatter",
        "july.md": born,
        "old.md": born,
    }
    note = parse_note("a.md", b"# A\n")
    assert created_of(note, FileStat("a.md", 4, 1, birth_ns=55), 99) == (55, "file")
    assert created_of(note, FileStat("a.md", 4, 1), 99) == (99, "indexed")
    # An edit keeps the first index time; a created: added later wins.
    first = dated.conn.execute(
        "SELECT c.created_ns FROM note_created c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = 'july.md'"
    ).fetchone()
    (vault / "july.md").write_text("# Plan\n\nthe garden plan, edited\n")
    sync_vault(dated)
    again = dated.conn.execute(
        "SELECT c.created_ns, c.source FROM note_created c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = 'july.md'"
    ).fetchone()
    if born == "indexed":
        assert again == (first[0], "indexed")
    (vault / "july.md").write_text("---\ncreated: 2020-02-02\n---\n# Plan\n")
    sync_vault(dated)
    assert _kept(dated, "created:2020-02") == {"july.md"}


@pytest.mark.parametrize("mode", ("fts", "semantic", "hybrid"))
def test_date_filters_narrow_every_mode_and_the_listing(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB], mode: str
) -> None:
    now = time.time()
    for rel, age in (("fresh.md", 2 * DAY), ("stale.md", 40 * DAY)):
        path = write(rel, "# Plan\n\nthe garden plan\n")
        os.utime(path, (now - age, now - age))
    searcher: Searcher = build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))
    options = SearchOptions(mode=mode, min_sim=-1.0)
    assert {h.path for h in searcher.search("garden modified:<7d", options).hits} == {"fresh.md"}
    assert {h.path for h in searcher.search("garden modified:>30d", options).hits} == {"stale.md"}
    listing = searcher.search("modified:<7d")
    assert listing.listing and [h.path for h in listing.hits] == ["fresh.md"]


def test_explain_names_the_date_filter_that_removed_a_note(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    from explorer.search.explain import explain
    from explorer.search.explain_text import explanation_lines

    path = write("old.md", "# Plan\n\nthe garden plan\n")
    os.utime(path, (_at(2022, 5, 1), _at(2022, 5, 1)))
    searcher = build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))
    e = explain(searcher, "garden modified:>2024-06", "old.md", SearchOptions(mode="fts"))
    assert "filtered" in e.reasons
    assert (
        "not listed: `modified:>2024-06` excludes it, it was modified 2022-05-01 12:00 UTC"
        in explanation_lines(e)
    )
