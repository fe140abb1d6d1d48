"""Python's cyclic garbage is collected on the GUI thread, never on a worker thread that
happens to allocate: a QObject in a cycle is destroyed where it lives."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QObject, Qt
from pytestqt.qtbot import QtBot

from explorer.gui.core.garbage import GuiThreadCollector
from tests.gui.conftest import SAFETY_MS


@pytest.fixture
def collecting() -> Iterator[None]:
    """Python collecting by itself, as without the window (as it was after the test)."""
    was = gc.isenabled()
    gc.collect()
    gc.enable()
    yield
    if not was:
        gc.disable()


def _cycle_holding_a_qobject(destroyed_on: list[str]) -> None:
    holder = QObject()
    holder.destroyed.connect(
        lambda *_: destroyed_on.append(threading.current_thread().name),
        Qt.ConnectionType.DirectConnection,
    )
    box: list[object] = [holder]
    box.append(box)  # only the collector frees it


def _allocate_on_a_worker() -> list[list[int]]:
    """Allocate (and keep) enough containers on a worker thread that Python would collect
    there."""
    kept: list[list[int]] = []

    def allocate() -> None:
        kept.extend([i] for i in range(10_000))

    worker = threading.Thread(target=allocate, name="worker")
    worker.start()
    worker.join(SAFETY_MS / 1000)
    return kept


def test_a_cycle_holding_a_qobject_dies_on_the_gui_thread(qtbot: QtBot, collecting: None) -> None:
    collector = GuiThreadCollector()
    destroyed_on: list[str] = []
    collector.start(interval_ms=10)
    try:
        _cycle_holding_a_qobject(destroyed_on)
        allocated = _allocate_on_a_worker()
        assert destroyed_on == []  # the worker's allocations collected nothing
        qtbot.waitUntil(lambda: destroyed_on == [threading.main_thread().name], timeout=SAFETY_MS)
        assert len(allocated) == 10_000
    finally:
        collector.stop()
    assert gc.isenabled()


def test_without_it_a_worker_thread_destroys_the_qobject(collecting: None) -> None:
    """What the collector prevents (and proof that the test above can fail)."""
    destroyed_on: list[str] = []
    _cycle_holding_a_qobject(destroyed_on)
    allocated = _allocate_on_a_worker()
    assert destroyed_on == ["worker"] and len(allocated) == 10_000
