"""Filters worked out once per query (:mod:`explorer.search.query.restriction`): a filtered search's
lists are the unfiltered lists with only the notes the filters pass, in fts, semantic and hybrid.

What the notes pass is read here with :func:`tests.search.helpers.filter_clause` (one
condition on each row of ``notes``: the definition the restriction must keep), and each list of
the filtered query is compared, entry by entry (path, score, pass), with the unfiltered list of
the same words kept to those notes.  The lists are deep enough to hold every note that matches.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.explain.explain import explain
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import MAX_LIMIT, SearchOptions
from explorer.search.query.query import parse_query
from explorer.search.query.restriction import restriction, where_passing
from tests.conftest import build_index
from tests.search.helpers import filter_clause

Write = Callable[[str, str | bytes], Path]

DAY = 86400
#: The file times of the notes: days before now (so that ages and dates both split them).
AGES = (1, 3, 10, 40, 200, 400, 800, 2000)


def _note(i: int) -> tuple[str, str]:
    folder = ("garden", "garden/beds", "gardening", "kitchen", "ops", "ünïcode")[i % 6]
    status = ("open", "done", "In Progress", None)[i % 4]
    props = [f"status: {status}"] if status else []
    if i % 3 == 0:
        props.append(f"rating: {i % 7}")
    if i % 5 == 0:
        props.append(f"due: 2024-0{1 + i % 9}-1{i % 10}")
    if i % 4 == 1:
        props.append(f"created: 202{i % 5}-03-0{1 + i % 8}")
    front = "---\n" + "\n".join(props) + "\n---\n" if props else ""
    tags = " ".join(
        f"#{t}" for t, on in (("veg", i % 3 != 2), ("tools", i % 2), ("plan", i % 5 == 0)) if on
    )
    link = f"[[note-{i + 1}]]" if i % 2 else ""
    words = ("garden soil tomato", "garden shed roof", "kitchen tomato soup", "soil and roots")
    body = f"{front}# Note {i}\n\n{words[i % 4]} {words[(i * 3) % 4]} {tags} {link}\n"
    return f"{folder}/note-{i}.md", body


NOTES = dict(_note(i) for i in range(36))
FILTERS = [
    "[status:open]",
    "-[status:done]",
    "[rating:>2]",
    "[due]",
    "[due:<2024-05]",
    "tag:veg",
    "tag:plan tag:veg",
    "path:garden/",
    "path:garden",
    "path:ünïcode/",
    "linkto:note-6",
    "linkedfrom:note-7",
    "modified:<30d",
    "modified:>1y",
    "modified:<3650d",  # every note: stated by the notes it removes (none)
    "modified:>3650d",  # none
    f"modified:{time.gmtime(time.time() - 800 * DAY).tm_year}",  # the year of some notes
    "created:>2022",
    "created:<5y",
    "-kitchen",
    "[status:open] modified:<1y tag:veg",
    "-[status:done] path:garden/ modified:>5d -roof",
]
QUERIES = ("garden", "tomato soil", "why is the garden soil wet")


@pytest.fixture(scope="module")
def searcher(
    tmp_path_factory: pytest.TempPathFactory,
) -> Searcher:
    root = tmp_path_factory.mktemp("restricted") / "vault"
    now = time.time()
    for i, (rel, text) in enumerate(NOTES.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        when = now - AGES[i % len(AGES)] * DAY
        os.utime(path, (when, when))
    db = IndexDB.open(root, path=root.parent / "index.sqlite")
    return build_index(db, EmbedderProvider.of(FakeEmbedder()))


def _passing(searcher: Searcher, raw: str) -> set[str]:
    where, params = filter_clause(parse_query(raw))
    rows = searcher.db.conn.execute(f"SELECT n.path FROM notes n WHERE {where}", params)
    return {str(r[0]) for r in rows}


def _lists(candidates: Candidates) -> tuple[list[tuple[str, float, int]], list[str]]:
    lexical = [(p, s, candidates.lexical_tiers[p]) for p, s, _ in candidates.lexical]
    return lexical, [v.path for v in candidates.vector]


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("mode", ("fts", "semantic", "hybrid"))
def test_a_filtered_list_is_the_unfiltered_list_kept_to_the_notes_it_passes(
    searcher: Searcher, filters: str, mode: str
) -> None:
    options = SearchOptions(mode=mode, depth=len(NOTES), limit=len(NOTES), min_sim=-1.0)
    for words in QUERIES:
        passing = _passing(searcher, f"{words} {filters}")
        plain_lexical, plain_vector = _lists(searcher.candidates(words, options))
        lexical, vector = _lists(searcher.candidates(f"{words} {filters}", options))
        assert lexical == [entry for entry in plain_lexical if entry[0] in passing]
        assert vector == [path for path in plain_vector if path in passing]
        if mode != "fts":
            assert set(vector) == passing  # every note has a vector: the list is complete
        hits = searcher.search(f"{words} {filters}", options).hits
        assert {h.path for h in hits} <= passing


def test_the_fixture_tells_the_filters_apart(searcher: Searcher) -> None:
    """Each filter keeps some notes and removes others (but the two that are about all or
    none), so that the comparison above could fail."""
    everything = set(NOTES)
    for filters in FILTERS:
        passing = _passing(searcher, filters)
        if filters == "modified:<3650d":
            assert passing == everything
        elif filters == "modified:>3650d":
            assert passing == set()
        else:
            assert passing and passing != everything, filters


def test_a_date_filter_passing_most_notes_is_stated_by_the_few_it_removes(
    searcher: Searcher,
) -> None:
    conn = searcher.db.conn
    most = restriction(conn, parse_query("garden modified:<1000d"))
    assert most is not None and [s.keep for s in most.sets] == [False]
    few = restriction(conn, parse_query("garden modified:<30d"))
    assert few is not None and [s.keep for s in few.sets] == [True]
    every = restriction(conn, parse_query("garden modified:<3650d"))
    assert every is not None and every.sets == ()
    ids = np.array(sorted(i for (i,) in conn.execute("SELECT id FROM notes")), dtype=np.int64)
    for raw in ("garden modified:<1000d", "garden modified:<30d", "garden modified:<3650d"):
        limits = restriction(conn, parse_query(raw))
        assert limits is not None
        mask = limits.note_ids(conn).mask(ids)
        passing = _passing(searcher, raw)
        paths = dict(conn.execute("SELECT id, path FROM notes"))
        assert {paths[int(i)] for i in ids[mask]} == passing


def test_an_age_read_a_moment_later_is_the_same_set_until_a_note_crosses_it(
    searcher: Searcher,
) -> None:
    """``modified:<30d`` by a clock that moved: the same restriction (so the notes read for
    the first serve the next: :meth:`VectorIndex.filter`) while no note's time lies between the
    two bounds, and another one once a note crossed (its time now older than 30 days)."""
    conn = searcher.db.conn
    now = time.time()

    def at(moment: float, raw: str = "garden modified:<30d") -> object:
        return restriction(conn, parse_query(raw, now=moment))

    assert at(now) == at(now + 1) == at(now + 3600)
    assert at(now) != at(now + 25 * DAY)  # the notes 10 days old are then 35 days old
    assert at(now, "garden created:<5y") == at(now + 60, "garden created:<5y")
    options = SearchOptions(mode="hybrid")
    first = searcher.candidates("garden modified:<30d", options).allowed
    assert first is not None
    assert searcher.candidates("soil modified:<30d", options).allowed is first


def test_no_filter_no_restriction(searcher: Searcher) -> None:
    assert restriction(searcher.db.conn, parse_query("garden soil")) is None


@pytest.mark.parametrize("filters", [*FILTERS, "-tomato", "tag:veg -soil"])
def test_a_statement_over_the_notes_filters_by_the_same_sets(
    searcher: Searcher, filters: str
) -> None:
    """A listing, a lexical pass read whole and the title matches filter by the restriction's
    sets as one condition: exactly the notes the filters, stated one by one, pass."""
    conn = searcher.db.conn
    passing = _passing(searcher, filters)
    where, params = where_passing(restriction(conn, parse_query(filters)))
    rows = conn.execute(f"SELECT n.path FROM notes n WHERE {where}", params)
    assert {str(r[0]) for r in rows} == passing
    listing = searcher.candidates(filters, SearchOptions(limit=MAX_LIMIT))
    assert listing.listing and listing.matched == len(passing)


@pytest.mark.parametrize("filters", FILTERS)
def test_explain_says_a_note_fails_a_filter_as_the_restriction_keeps_it_out(
    searcher: Searcher, filters: str
) -> None:
    """``explain``'s verdict on each filter is the note in that filter's set of the search's
    own restriction: a note passes every filter (and holds no excluded word) exactly when the
    filters pass it."""
    passing = _passing(searcher, filters)
    rows = searcher.db.conn.execute("SELECT path FROM notes ORDER BY path LIMIT 12")
    for (path,) in rows:
        e = explain(searcher, f"garden {filters}", str(path), SearchOptions(mode="fts"))
        passes = all(f.passes for f in e.filters) and not any(x.present for x in e.exclusions)
        assert passes == (path in passing), (path, e.filters, e.exclusions)
