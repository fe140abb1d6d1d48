"""The model's state changes reach the GUI thread as a signal, without anyone asking."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThread
from pytestqt.qtbot import QtBot

from explorer.embed.base import Embedder, FakeEmbedder
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.gui.core.model_bridge import ModelBridge


def test_the_state_arrives_on_the_gui_thread_when_the_model_is_ready(qtbot: QtBot) -> None:
    gate = threading.Event()

    def load() -> Embedder:
        gate.wait(30)
        return FakeEmbedder()

    provider = EmbedderProvider("fake-bow-64", load)
    bridge = ModelBridge(provider)
    seen: list[tuple[ModelState, bool]] = []

    def record(state: ModelState) -> None:
        seen.append((state, QThread.currentThread() is bridge.thread()))

    bridge.stateChanged.connect(record)
    with qtbot.waitSignal(bridge.stateChanged, check_params_cb=lambda s: s is ModelState.LOADING):
        provider.start()
    with qtbot.waitSignal(bridge.stateChanged, check_params_cb=lambda s: s is ModelState.READY):
        gate.set()
    assert seen == [(ModelState.LOADING, True), (ModelState.READY, True)]


def test_a_closed_bridge_reports_nothing(qtbot: QtBot) -> None:
    gate = threading.Event()

    def load() -> Embedder:
        gate.wait(30)
        return FakeEmbedder()

    provider = EmbedderProvider("fake-bow-64", load)
    bridge = ModelBridge(provider)
    kept = ModelBridge(provider)
    seen: list[ModelState] = []
    bridge.stateChanged.connect(seen.append)
    bridge.close()
    provider.start()
    with qtbot.waitSignal(kept.stateChanged, check_params_cb=lambda s: s is ModelState.READY):
        gate.set()
    assert seen == []
