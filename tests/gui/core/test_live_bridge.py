"""The live index seen from the GUI thread: its health arrives as a signal when it changes,
without a timer and without a database read on the window's side."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QThread
from pytestqt.qtbot import QtBot

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.live_bridge import LiveBridge
from explorer.live import Health, LiveIndex, WatcherState


def test_health_changes_arrive_on_the_gui_thread(qtbot: QtBot, vault: Path, data_dir: Path) -> None:
    (vault / "a.md").write_text("# A\n\nalpha\n")
    live = LiveIndex(vault, str(data_dir), EmbedderProvider.of(FakeEmbedder()), quiet=0.1)
    bridge = LiveBridge(live)
    received: list[tuple[Health, bool]] = []
    bridge.healthChanged.connect(
        lambda h: received.append((h, QThread.currentThread() is bridge.thread()))
    )
    bridge.start()
    try:

        def counted(notes: int) -> None:
            assert bridge.last_health is not None
            assert bridge.last_health.notes == notes and bridge.last_health.vectors == notes
            assert bridge.last_health.pending_embeddings == 0

        qtbot.waitUntil(lambda: counted(1))
        (vault / "b.md").write_text("# B\n\nbravo\n")
        qtbot.waitUntil(lambda: counted(2))
        assert all(on_gui_thread for _, on_gui_thread in received)
        states = [h.watcher.state for h, _ in received if h.watcher is not None]
        assert states[0] is WatcherState.STARTING and states[-1] is WatcherState.RUNNING
        assert received[-1][0] == bridge.last_health
    finally:
        bridge.stop(wait=True)
