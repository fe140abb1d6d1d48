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
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import parse_query
from explorer.vault.parse import parse_note
from explorer.vault.scan import FileStat
from tests.conftest import build_index
from tests.search.helpers import filter_clause

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
    assert query.dates and all("before the year 1" in note for note in query.notes)
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
            "SELECT n.path, c.source FROM notes n JOIN note_creation c ON c.note_id = n.id"
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
    # In microseconds: the birth and the first index are known in nanoseconds.
    assert created_of(note, FileStat("a.md", 4, 1, birth_ns=55_000), 99_000) == (55, "file")
    assert created_of(note, FileStat("a.md", 4, 1), 99_000) == (99, "indexed")
    # An edit keeps the first index time; a created: added later wins.
    first = dated.conn.execute(
        "SELECT c.created_us FROM note_creation c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = 'july.md'"
    ).fetchone()
    (vault / "july.md").write_text("# Plan\n\nthe garden plan, edited\n")
    sync_vault(dated)
    again = dated.conn.execute(
        "SELECT c.created_us, c.source FROM note_creation c JOIN notes n ON n.id = c.note_id "
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
    from explorer.search.explain.explain import explain
    from explorer.search.explain.explain_text import explanation_lines

    path = write("old.md", "# Plan\n\nthe garden plan\n")
    os.utime(path, (_at(2022, 5, 1), _at(2022, 5, 1)))
    searcher = build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))
    e = explain(searcher, "garden modified:>2024-06", "old.md", SearchOptions(mode="fts"))
    assert "filtered" in e.reasons
    assert (
        "not listed: `modified:>2024-06` excludes it, it was modified 2022-05-01 12:00 UTC"
        in explanation_lines(e)
    )


#: Frontmatter dates beyond the nanoseconds SQLite holds (1677 to 2262), and what YAML does not
#: read as a date (year 0, a fifth digit): each note is indexed all the same.
ANY_YEAR = {
    "columbus.md": "date: 1492-10-12\n",
    "future.md": "created: 2300-01-01\n",
    "first.md": "created: 0001-01-01\n",
    "last.md": "created: 9999-12-31T23:59:59\n",
    "zero.md": "created: 0000-01-01\n",
    "huge.md": "created: 10000-01-01\n",
    "today.md": "created: 2024-07-01\n",
}


@pytest.fixture
def any_year(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> IndexDB:
    for rel, front in ANY_YEAR.items():
        path = write(rel, f"---\n{front}---\n# Voyage\n\nthe voyage log\n")
        os.utime(path, (_at(2024, 7, 1), _at(2024, 7, 1)))
    db = open_db(vault)
    report = sync_vault(db)
    assert report.skipped == {}
    return db


def test_a_date_of_any_year_is_indexed_filtered_sorted_and_shown(any_year: IndexDB) -> None:
    from explorer.search.explain.note_dates import note_dates
    from explorer.search.fusion.order import sort_hits

    assert _kept(any_year, "created:1492-10-12") == {"columbus.md"}
    assert _kept(any_year, "created:<1500") == {"columbus.md", "first.md"}
    assert _kept(any_year, "created:>2262") == {"future.md", "last.md"}
    assert _kept(any_year, "created:0001") == {"first.md"}
    assert _kept(any_year, "created:9999-12-31") == {"last.md"}
    searcher = Searcher(any_year, EmbedderProvider.of(FakeEmbedder()))
    hits = searcher.search("voyage", SearchOptions(mode="fts", sort="created")).hits
    dated = [h.path for h in hits if h.path not in ("zero.md", "huge.md")]  # created: now
    assert dated == ["last.md", "future.md", "today.md", "columbus.md", "first.md"]
    assert sort_hits(any_year.conn, hits, "created") == hits
    for path, day in (
        ("columbus.md", "1492-10-12"),
        ("first.md", "0001-01-01"),
        ("last.md", "9999-12-31 23:59"),
    ):
        dates = note_dates(any_year.conn, path)
        assert dates is not None and f"created {day} (from its frontmatter)" in dates.line()


def test_a_file_time_beyond_2262_is_indexed(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    path = write("later.md", "# Later\n\nset by touch\n")
    os.utime(path, (1e10, 1e10))  # 2286, which a file system holds
    if os.stat(path).st_mtime_ns < 2**63:
        pytest.skip("this file system does not hold a time beyond 2262")
    db = open_db(vault)
    assert sync_vault(db).skipped == {}
    assert _kept(db, "modified:>2262") == {"later.md"}
    assert sync_vault(db).unchanged == 1


#: Filters whose bound lies beyond what the index holds, with what they keep of NOTES.
OUT_OF_RANGE = [
    ("modified:<400y", set(NOTES)),
    ("modified:<999999d", set(NOTES)),
    ("modified:>999999d", set()),
    ("modified:>2300", set()),
    ("modified:0001", set()),
    ("modified:9999", set()),
    ("created:<1500", set()),
    ("created:>9999", set()),
    ("created:<999999y", set(NOTES)),
    ("created:>=0001", set(NOTES)),
]


@pytest.mark.parametrize(("raw", "kept"), OUT_OF_RANGE)
def test_a_date_filter_beyond_the_index_has_its_plain_meaning(
    dated: IndexDB, raw: str, kept: set[str]
) -> None:
    assert _kept(dated, raw) == kept
    searcher = Searcher(dated, EmbedderProvider.of(FakeEmbedder()))
    for query in (raw, f"garden {raw}"):
        for mode in ("fts", "hybrid"):
            hits = searcher.search(query, SearchOptions(mode=mode, min_sim=-1.0)).hits
            assert {h.path for h in hits} == kept


def test_an_age_older_than_the_calendar_says_what_it_passes() -> None:
    (every,) = parse_query("modified:<999999d", now=NOW).notes
    assert every == "modified:<999999d reaches back before the year 1: every note passes it"
    (none,) = parse_query("created:>999999y", now=NOW).notes
    assert none == "created:>999999y reaches back before the year 1: no note passes it"
    assert parse_query("modified:<400y", now=NOW).notes == []
