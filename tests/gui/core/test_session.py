"""The vault session: one reader for every panel; a running search is cancelled by a newer
query or by closing, at once.

A search is held inside SQLite deterministically (:class:`tests.gui.conftest.Hold`).  Nothing
here waits on a clock: each wait is for a condition, with a generous timeout only as a safety
net.
"""

from __future__ import annotations

import contextlib
import gc
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer import entry
from explorer.commands.warm import served
from explorer.embed import provider as provider_module
from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.session import SearchResult, VaultSession
from explorer.index.db import IndexDB, index_path
from explorer.index.sync import sync_vault
from explorer.live import serve
from explorer.mcp.requests import SearchRequest, asked_for
from explorer.search.query.options import SearchOptions
from tests.gui.conftest import SAFETY_MS, Hold
from tests.live.helpers import matrix_reads, traced

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


def _serving(qtbot: QtBot, vault: Path, data_dir: Path, provider: EmbedderProvider) -> VaultSession:
    """A live session of three notes, open: the window's, serving the command line."""
    for i in range(3):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\nHow we deploy, part {i}.\n", "utf-8")
    svc = VaultSession(vault, str(data_dir), provider)
    with qtbot.waitSignal(svc.opened, timeout=SAFETY_MS):
        svc.open()
    return svc


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
    svc = _serving(qtbot, vault, data_dir, fake_provider)
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


def test_the_window_answers_commands_and_mcp_tools_with_its_one_reader(
    qtbot: QtBot,
    vault: Path,
    data_dir: Path,
    fake_provider: EmbedderProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VAULT_EXPLORER_WARM", "1")
    svc = _serving(qtbot, vault, data_dir, fake_provider)
    try:
        assert svc.server is not None
        qtbot.waitUntil(lambda: _assert(svc.settled()), timeout=SAFETY_MS)  # all embedded
        statements = traced(svc.reader)
        readers = _readers()
        delivered = results(svc)
        svc.search("deploy", SearchOptions())
        qtbot.waitUntil(lambda: _assert(len(delivered) == 1), timeout=SAFETY_MS)
        assert delivered[0].candidates is not None and delivered[0].candidates.vector
        who = asked_for(svc.vault, str(data_dir), fake_provider.name)
        command = served(svc.vault, str(data_dir), fake_provider.name, SEARCH)
        tool = serve.ask(
            index_path(svc.vault, str(data_dir)),
            "tool.search",
            {**who, "arguments": {"query": "deploy"}},
        )
        assert command is not None and command.error is None
        assert command.data is not None and "n0.md" in str(command.data["hits"])
        assert tool is not None and "n0.md" in tool["text"]
        assert svc.server.answered == 2
        # The window's search, the command's and the tool's: one reader, one matrix read.
        assert _readers() == readers
        assert matrix_reads(statements) == 1
    finally:
        svc.close(wait=True)


SEARCH = SearchRequest("deploy", SearchOptions())


def _readers() -> int:
    """The index readers' threads running in this process."""
    return sum(1 for thread in threading.enumerate() if thread.name == "index-reader")


def test_a_session_let_go_of_dies_on_the_gui_thread(
    qtbot: QtBot, vault: Path, data_dir: Path, fake_provider: EmbedderProvider
) -> None:
    """Its reader thread, which ends after the window let go of the session, holds nothing of
    it, and no cycle leaves it to Python's collector (which runs on whichever thread
    allocates): a QObject destroyed off the GUI thread corrupts Qt's state."""
    (vault / "n.md").write_text("# Note\n\nHow we deploy.\n", "utf-8")
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    db.close()
    svc = VaultSession(vault, str(data_dir), fake_provider, live=False)
    with qtbot.waitSignal(svc.opened, timeout=SAFETY_MS):
        svc.open()
    destroyed_on: list[str] = []
    svc.destroyed.connect(
        lambda *_: destroyed_on.append(threading.current_thread().name),
        Qt.ConnectionType.DirectConnection,
    )
    threads = list(svc.reader._jobs._threads)
    gc.collect()  # earlier tests' garbage, here: the collector thread below finds this test's
    gc.disable()  # only the collections this test makes
    try:
        svc.close()  # the reader stops in the background
        del svc
        qtbot.waitUntil(lambda: not any(t.is_alive() for t in threads), timeout=SAFETY_MS)
        collector = threading.Thread(target=gc.collect, name="collector")
        collector.start()
        collector.join(SAFETY_MS / 1000)
        gc.collect()  # what is left, here
        qtbot.waitUntil(lambda: len(destroyed_on) == 1, timeout=SAFETY_MS)
    finally:
        gc.enable()
    assert destroyed_on == [threading.main_thread().name]
