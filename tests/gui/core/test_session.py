"""The vault session: one reader for every panel; a running search is cancelled by a newer
query or by closing, at once.

A search is held inside SQLite deterministically (:class:`tests.gui.conftest.Hold`).  Nothing
here waits on a clock: each wait is for a condition, with a generous timeout only as a safety
net.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer import entry
from explorer.embed import provider as provider_module
from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.session import SearchResult, VaultSession
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.query.options import SearchOptions
from tests.gui.conftest import SAFETY_MS, Hold

FTS = SearchOptions(mode="fts")


@pytest.fixture
def service(
    qtbot: QtBot, vault: Path, data_dir: Path, fake_provider: EmbedderProvider
) -> Iterator[VaultSession]:
    for i in range(5):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\nHow we deploy, part {i}.\n", "utf-8")
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    db.close()
    svc = VaultSession(vault, str(data_dir), fake_provider, live=False)
    with qtbot.waitSignal(svc.opened, timeout=SAFETY_MS):
        svc.open()
    assert svc.reader.db is not None
    conn = svc.reader.db.conn
    yield svc
    # Whatever happened, leave no search spinning (a failing run would otherwise never end).
    svc.close()
    while svc.reader.alive:
        with contextlib.suppress(sqlite3.ProgrammingError):  # closed: nothing runs on it
            conn.interrupt()
        svc.reader.close(0.1)


def results(svc: VaultSession) -> list[SearchResult]:
    out: list[SearchResult] = []
    svc.searched.connect(out.append)
    return out


def test_closing_interrupts_a_search_held_inside_sqlite(
    qtbot: QtBot, service: VaultSession
) -> None:
    assert service.reader.db is not None
    hold = Hold(service.reader.db.conn)
    delivered = results(service)
    service.search("deploy", FTS)
    qtbot.waitUntil(lambda: _assert(hold.entered == 1), timeout=SAFETY_MS)  # held in SQLite
    service.close()  # returns at once: it waits for nothing
    # The reader thread finishes by itself: the statement was interrupted, not released.
    qtbot.waitUntil(lambda: _assert(not service.reader.alive), timeout=SAFETY_MS)
    QApplication.processEvents()  # deliver whatever the thread emitted
    assert delivered == []  # an interrupted search is no error, and no result
    assert service.reader.db is None  # and the connection is closed


def test_closing_with_wait_returns_once_the_search_is_interrupted(
    qtbot: QtBot, service: VaultSession
) -> None:
    assert service.reader.db is not None
    hold = Hold(service.reader.db.conn)
    service.search("deploy", FTS)
    qtbot.waitUntil(lambda: _assert(hold.entered == 1), timeout=SAFETY_MS)
    service.close(wait=True)  # the window's exit: bounded, and short since it interrupts
    assert not service.reader.alive
    assert hold.entered == 1


def test_a_new_query_supersedes_a_running_search(qtbot: QtBot, service: VaultSession) -> None:
    assert service.reader.db is not None
    hold = Hold(service.reader.db.conn)
    delivered = results(service)
    first = service.search("deploy", FTS)
    qtbot.waitUntil(lambda: _assert(hold.entered == 1), timeout=SAFETY_MS)
    second = service.search("deploy part", FTS)
    # The first statement is interrupted and the second search starts (one search thread).
    qtbot.waitUntil(lambda: _assert(hold.entered == 2), timeout=SAFETY_MS)
    assert delivered == []  # the first was dropped silently, not reported as an error
    hold.release()  # let the second one finish
    qtbot.waitUntil(lambda: _assert(len(delivered) == 1), timeout=SAFETY_MS)
    result = delivered[0]
    assert result.request == second != first
    assert result.error is None and result.candidates is not None
    assert result.candidates.lexical  # it found the notes


def _assert(condition: bool) -> None:
    assert condition


def test_an_open_vault_answers_the_command_line_as_it_would_alone(
    qtbot: QtBot,
    vault: Path,
    data_dir: Path,
    fake_provider: EmbedderProvider,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The command's model is the window's: the fake one, under its name.
    monkeypatch.setitem(provider_module._SHARED, fake_provider.name, fake_provider)
    for i in range(3):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\nHow we deploy, part {i}.\n", "utf-8")
    svc = VaultSession(vault, str(data_dir), fake_provider)
    with qtbot.waitSignal(svc.opened, timeout=SAFETY_MS):
        svc.open()
    try:
        assert svc.server is not None and svc.server.path is not None
        assert svc.server.path.exists()
        argv = ["search", str(vault), "deploy", "--data-dir", str(data_dir), "--json"]
        argv += ["--model", fake_provider.name, "--mode", "fts"]
        monkeypatch.setenv("VAULT_EXPLORER_WARM", "0")
        assert entry.main(argv) == 0
        alone = capsys.readouterr()
        monkeypatch.setenv("VAULT_EXPLORER_WARM", "1")
        assert entry.main([*argv, "-v"]) == 0
        warm = capsys.readouterr()
        assert "answered by the window" in warm.err
        assert warm.out == alone.out and "n0.md" in alone.out
    finally:
        svc.close(wait=True)
    assert not svc.server.path.exists()
