"""The window's query kept by its flow: snippets are made for the hits the table shows only, and
they are the very snippets a search that made them all would show; a query costs the reader one
round trip, and is fused once."""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.window.main_window import MainWindow
from explorer.index.db import IndexDB
from explorer.search.fusion import cached
from explorer.search.fusion.cached import fetch_options
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests.gui.conftest import WindowFactory, wait_for_results, wait_indexed
from tests.gui.driver import drive

NOTES = 70  # more than the default depth (50), fewer than a fetch (100)


def _all_snippets(vault: Path, data_dir: Path, window: MainWindow) -> dict[str, str]:
    """Every lexical note's snippet, as a search that makes them all gives them."""
    db = IndexDB.open_reader(vault, data_dir)
    try:
        searcher = Searcher(db, EmbedderProvider.disabled())
        found = searcher.candidates("cache", fetch_options(drive(window).options()))
    finally:
        db.close()
    return {path: snippet for path, _, snippet in found.lexical}


def test_snippets_are_made_for_the_shown_hits_and_for_more_when_more_are_shown(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    vault: Path,
    data_dir: Path,
) -> None:
    for i in range(NOTES):
        words = " ".join(["filler"] * i)
        (vault / f"n{i:02}.md").write_text(
            f"# Note {i}\n\n{words} The cache was purged {i} times.\n", encoding="utf-8"
        )
    window = make_window(fake_provider, vault)
    wait_indexed(qtbot, window)
    drive(window).set_mode("fts")
    drive(window).set_query("cache")
    wait_for_results(qtbot, window, "cache", lambda w: _assert(len(drive(w).rows()) == 50))
    lists = window.flow.shown.lists
    assert lists is not None
    snipped = [path for path, _, snippet in lists.candidates.lexical if snippet]
    assert len(lists.candidates.lexical) == NOTES
    assert len(snipped) == 50 and len(lists.candidates.unsnipped) == NOTES - 50
    expected = _all_snippets(vault, data_dir, window)
    assert {hit.path: hit.snippet for hit in drive(window).response().hits} == {
        path: expected[path] for path in drive(window).rows()
    }

    drive(window).set_options(replace(drive(window).options(), depth=NOTES), emit=True)
    qtbot.waitUntil(lambda: _assert(len(drive(window).rows()) == NOTES))
    response = drive(window).response()
    assert response is not None
    assert {hit.path: hit.snippet for hit in response.hits} == expected
    assert all(hit.snippet for hit in response.hits)


def _assert(condition: bool) -> None:
    assert condition


#: The reader's job groups of the window's query (a search, and what showing it reads).
FLOW_GROUPS = ("search", "settle", "snippets", "order")


def test_a_sorted_query_costs_one_round_trip_and_one_fusion(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    vault: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for i in range(NOTES):
        note = vault / f"n{i:02}.md"
        note.write_text(f"# Note {i}\n\n{'filler ' * i}The cache was purged.\n", encoding="utf-8")
        os.utime(note, ns=(10**18 + i * 10**9, 10**18 + (i * 37 % NOTES) * 10**9))
    window = make_window(fake_provider, vault)
    wait_indexed(qtbot, window)
    drive(window).set_mode("fts")
    drive(window).set_sort("modified")
    session = window.session
    assert session is not None
    jobs: list[str | None] = []
    submit = session.reader.submit
    in_flow = threading.local()  # set while one of this window's flow jobs runs

    def counted(fn, *, group, priority):  # type: ignore[no-untyped-def]
        jobs.append(group)

        def flow_job(*args, **kwargs):  # type: ignore[no-untyped-def]
            in_flow.on = group in FLOW_GROUPS
            try:
                return fn(*args, **kwargs)
            finally:
                in_flow.on = False

        return submit(flow_job, group=group, priority=priority)

    # The fusions of this window's query, in its flow's jobs or on the GUI thread (not those an
    # earlier test's reader may still be running).
    fusions: list[object] = []
    fuse = cached.fuse

    def fused(candidates, options):  # type: ignore[no-untyped-def]
        if getattr(in_flow, "on", False) or threading.current_thread() is threading.main_thread():
            fusions.append(options)
        return fuse(candidates, options)

    monkeypatch.setattr(session.reader, "submit", counted)
    monkeypatch.setattr(cached, "fuse", fused)
    drive(window).set_query("cache")
    wait_for_results(qtbot, window, "cache", lambda w: _assert(len(drive(w).rows()) == 50))
    assert [group for group in jobs if group in FLOW_GROUPS] == ["search"]
    assert len(fusions) == 1  # on the reader; the window shows what it fused
    assert drive(window).options().sort == "modified"
    expected = _searched(vault, data_dir, drive(window).options())
    assert drive(window).rows() == expected  # as ``search --sort modified`` orders them
    assert all(hit.snippet for hit in drive(window).response().hits)  # type: ignore[union-attr]

    jobs.clear()
    deeper = replace(drive(window).options(), depth=NOTES)  # more hits: snippets and order
    drive(window).set_options(deeper, emit=True)
    qtbot.waitUntil(lambda: _assert(len(drive(window).rows()) == NOTES))
    assert [group for group in jobs if group in FLOW_GROUPS] == ["settle"]
    assert drive(window).rows() == _searched(vault, data_dir, deeper)


def _searched(vault: Path, data_dir: Path, options: SearchOptions) -> list[str]:
    """The paths a search of "cache" alone shows with ``options`` (the command line's path)."""
    db = IndexDB.open_reader(vault, data_dir)
    try:
        searcher = Searcher(db, EmbedderProvider.disabled())
        return [hit.path for hit in searcher.search("cache", options).hits]
    finally:
        db.close()
