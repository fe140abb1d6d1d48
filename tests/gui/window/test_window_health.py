"""The window is told how the index and the model are doing; it does not keep asking."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from explorer.embed.base import Embedder, FakeEmbedder
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.gui.window.actions import Action
from explorer.gui.window.main_window import MainWindow
from explorer.gui.window.screenshot import ScreenshotDriver
from explorer.gui.window.settings import Settings
from explorer.index import db as db_module
from explorer.live import writer as writer_module
from tests.gui.conftest import WindowFactory, wait_for_results, wait_indexed
from tests.gui.driver import drive


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    opened = threading.Event()
    yield opened
    opened.set()  # never leave a loader waiting


def repeating_timers(window: MainWindow) -> list[QTimer]:
    """The timers that would wake the window again and again while nothing happens."""
    return [t for t in window.findChildren(QTimer) if t.isActive() and not t.isSingleShot()]


def test_a_model_that_arrives_late_is_shown_and_searched_with_at_once(
    qtbot: QtBot, make_window: WindowFactory, sample_copy: Path, gate: threading.Event
) -> None:
    """The window looked at the model every 250 ms and at the index every second."""

    def load() -> Embedder:
        gate.wait(60)
        return FakeEmbedder()

    provider = EmbedderProvider("fake-bow-64", load)
    window = make_window(provider, sample_copy)
    drive(window).set_query("cdn purge")

    def lexical_meanwhile(w: MainWindow) -> None:
        assert provider.state is ModelState.LOADING
        assert "loading…" in drive(w).model_status()
        assert "Semantic search is loading" in w.banner.message()
        assert w.response is not None and not w.response.semantic.available
        assert drive(w).index_counts().startswith("51 notes")

    wait_for_results(qtbot, window, "cdn purge", lexical_meanwhile)
    assert repeating_timers(window) == [window.stall._timer]

    gate.set()

    def with_vectors(w: MainWindow) -> None:
        assert "fake-bow-64 (ready)" in drive(w).model_status()
        assert w.response is not None and w.response.semantic.available
        assert not w.banner.isVisible()

    wait_for_results(qtbot, window, "cdn purge", with_vectors)
    wait_indexed(qtbot, window)

    def counted(w: MainWindow) -> None:
        health = drive(w).health()
        assert health is not None and health.pending_embeddings == 0
        assert drive(w).index_counts().endswith(" 0 pending")
        assert drive(w).progress_words() == ""

    qtbot.waitUntil(lambda: counted(window))
    assert repeating_timers(window) == [window.stall._timer]


def test_the_status_bar_follows_a_note_saved_while_it_is_open(
    qtbot: QtBot, make_window: WindowFactory, sample_copy: Path
) -> None:
    window = make_window(EmbedderProvider.of(FakeEmbedder()), sample_copy)
    wait_indexed(qtbot, window)
    qtbot.waitUntil(lambda: _counts_start(window, "51 notes"))
    (sample_copy / "inbox" / "new.md").write_text("# New\n\nsaved while open\n")
    qtbot.waitUntil(lambda: _counts_start(window, "52 notes"))

    def embedded() -> None:
        health = drive(window).health()
        assert health is not None
        assert health.notes == 52 and health.pending_embeddings == 0
        assert drive(window).index_counts().endswith(" vectors · 0 pending")

    qtbot.waitUntil(embedded)


def _counts_start(window: MainWindow, text: str) -> None:
    assert drive(window).index_counts().startswith(text), drive(window).index_counts()


@pytest.mark.slow
def test_a_locked_index_is_shown_as_the_machine_with_what_to_do(
    qtbot: QtBot,
    make_window: WindowFactory,
    sample_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200)  # said after 0.2 s, not 30
    window = make_window(EmbedderProvider.of(FakeEmbedder()), sample_copy)
    wait_indexed(qtbot, window)
    drive(window).set_mode("fts")  # no semantic message in the banner: only the index's
    live = drive(window).live()
    assert live is not None
    locker = sqlite3.connect(live.db_path, isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")  # another program writing the index
    try:
        (sample_copy / "inbox" / "new.md").write_text("# New\n\nsaved while locked\n")

        def told() -> None:
            message = drive(window).banner()
            assert "The index is not being kept current</b>" in message, message
            assert "is busy" in message and "try again" in message and "bug" not in message
            # The status bar follows the health the banner was told from: on a loaded machine
            # a moment later, so it is waited for too, not read at once.
            assert drive(window).watcher_status() == "watcher: degraded"

        qtbot.waitUntil(told)
    finally:
        locker.rollback()
        locker.close()
    qtbot.waitUntil(lambda: _assert_hidden(window))  # the next reconcile caught up
    health = drive(window).health()
    assert health is not None and health.notes == 52
    assert [r for r in caplog.records if r.exc_info] == []


def test_a_bug_in_the_live_index_is_shown_as_a_bug(
    qtbot: QtBot,
    make_window: WindowFactory,
    sample_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    window = make_window(EmbedderProvider.of(FakeEmbedder()), sample_copy)
    wait_indexed(qtbot, window)
    drive(window).set_mode("fts")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a mistake in the sync")

    monkeypatch.setattr(writer_module, "sync_vault", broken)
    (sample_copy / "inbox" / "new.md").write_text("# New\n\nsaved into a bug\n")

    def told() -> None:
        message = drive(window).banner()
        assert "not being kept current because of a bug</b>" in message, message
        assert "RuntimeError: a mistake in the sync" in message and "report it" in message

    qtbot.waitUntil(told)
    assert any(r.exc_info and r.exc_info[0] is RuntimeError for r in caplog.records)


def _assert_hidden(window: MainWindow) -> None:
    assert not drive(window).banner_visible(), drive(window).banner()


def test_file_pause_embedding_holds_the_embedding_and_the_status_bar_says_so(
    qtbot: QtBot, make_window: WindowFactory, sample_copy: Path
) -> None:
    embedder = FakeEmbedder()
    window = make_window(EmbedderProvider.of(embedder), sample_copy)
    wait_indexed(qtbot, window)
    status = window.index_status
    qtbot.waitUntil(  # (the last count reaches the window after the index is idle)
        lambda: status.counts.toolTip() == "<p>51 of 51 notes searchable by meaning</p>"
    )
    action = drive(window).action(Action.PAUSE_EMBEDDING)
    assert action.isCheckable() and not action.isChecked()
    action.trigger()
    assert (live := drive(window).live()) is not None and live.embedding_paused
    calls = embedder.calls
    (sample_copy / "paused.md").write_text("# Paused\n\nwritten while embedding is held\n")

    def says_paused() -> None:
        assert status.progress.isVisible()
        assert status.progress.words() == "Embedding paused · 1 chunk waiting (0 of 1 done)"
        assert status.counts.toolTip() == "<p>51 of 52 notes searchable by meaning</p>"

    qtbot.waitUntil(says_paused)
    assert embedder.calls == calls

    action.trigger()  # resumed
    assert (live := drive(window).live()) is not None and not live.embedding_paused

    def embedded() -> None:
        assert not status.progress.isVisible()
        assert status.counts.toolTip() == "<p>52 of 52 notes searchable by meaning</p>"

    qtbot.waitUntil(embedded)
    assert embedder.calls > calls

    # Checked, it holds the embedding of a vault opened next too.
    action.trigger()
    drive(window).open_vault(sample_copy)
    assert (live := drive(window).live()) is not None and live.embedding_paused


def test_a_screenshot_of_a_vault_whose_embedding_is_paused_does_not_wait_for_it(
    qtbot: QtBot, gui_settings: Settings, data_dir: Path, sample_copy: Path, tmp_path: Path
) -> None:
    """On battery the embedding holds: ``gui --screenshot`` took the picture only at its
    timeout (900 s), waiting for vectors that were not coming."""
    window = MainWindow(
        EmbedderProvider.of(FakeEmbedder()), data_dir=str(data_dir), settings=gui_settings
    )
    qtbot.addWidget(window)
    window.resize(1400, 860)
    window.show()
    qtbot.waitExposed(window)
    drive(window).action(Action.PAUSE_EMBEDDING).setChecked(True)
    drive(window).open_vault(sample_copy)
    drive(window).set_query("deploy")
    codes: list[int] = []
    target = tmp_path / "paused.png"
    driver = ScreenshotDriver(window, target, "deploy", 120, codes.append)
    qtbot.waitUntil(lambda: codes == [0], timeout=60_000)
    assert driver.deadline.isActive() is False and target.stat().st_size > 0
    assert drive(window).progress_words().startswith("Embedding paused · ")
    assert "chunks waiting (0 of " in drive(window).progress_words()
    window.close()
