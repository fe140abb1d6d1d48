"""Jobs off the GUI thread: a reply arrives on the GUI thread, only while its request is the
newest of its group, and is heard even when its job ended before anyone listened."""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject, Qt, QThread
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.gui.core.workers import reply_to, run_in_pool
from explorer.jobs import PriorityExecutor
from tests.gui.conftest import SAFETY_MS


def test_only_the_newest_request_of_a_group_answers_even_when_an_older_one_ended(
    qtbot: QtBot,
) -> None:
    pool = PriorityExecutor("test-gui-jobs")
    heard: list[tuple[str, bool]] = []

    app = QApplication.instance()
    assert app is not None

    def answered(text: str) -> None:
        heard.append((text, QThread.currentThread() is app.thread()))

    old = pool.submit(lambda: "old", group="preview")
    old.result(SAFETY_MS / 1000)  # ended, its reply not delivered yet …
    reply_to(old, answered)
    newest = run_in_pool(lambda: "newest", on_result=answered, pool=pool, group="preview")
    qtbot.waitUntil(lambda: _equal(len(heard), 1), timeout=SAFETY_MS)
    assert newest.job.done() and heard == [("newest", True)]  # the old one said nothing


def test_a_failure_is_heard_and_a_dropped_request_says_nothing(qtbot: QtBot) -> None:
    pool = PriorityExecutor("test-gui-jobs")
    failures: list[Exception] = []
    answers: list[object] = []
    started, go = threading.Event(), threading.Event()

    def fail() -> None:
        started.set()
        assert go.wait(SAFETY_MS / 1000)
        raise ValueError("no note")

    failing = run_in_pool(fail, on_error=failures.append, pool=pool)
    assert started.wait(SAFETY_MS / 1000)
    dropped = run_in_pool(lambda: 1, on_result=answers.append, pool=pool, group="around")
    request = pool.supersede("around")  # the dock closed: the answer on its way is dropped
    go.set()
    qtbot.waitUntil(lambda: _equal(len(failures), 1), timeout=SAFETY_MS)
    assert str(failures[0]) == "no note" and failing.job.done()
    assert dropped.job.cancelled() and not pool.is_latest("around", dropped.job.seq)
    assert pool.is_latest("around", request)
    QApplication.processEvents()
    assert answers == []


def _equal(a: object, b: object) -> None:
    assert a == b


def test_what_a_job_holds_is_let_go_of_on_the_gui_thread(qtbot: QtBot) -> None:
    """A job's call may hold a window's object (a panel's ``self``); once its reply is
    delivered, nothing of it waits for Python's collector, which runs on whichever thread
    happens to allocate: a QObject destroyed on a worker thread corrupts Qt's state (the hung
    CI run of test_facets_panel)."""
    pool = PriorityExecutor("test-gui-jobs")
    destroyed_on: list[str] = []
    delivered: list[bool] = []
    gc.disable()  # only the collections this test makes
    try:
        holder = QObject()  # the window's own, held by the job alone
        holder.destroyed.connect(
            lambda *_: destroyed_on.append(threading.current_thread().name),
            Qt.ConnectionType.DirectConnection,
        )
        reply = run_in_pool(lambda held=holder: held is not None, pool=pool)
        reply.destroyed.connect(lambda *_: delivered.append(True))
        del holder, reply
        qtbot.waitUntil(lambda: _equal(delivered, [True]), timeout=SAFETY_MS)
        collector = threading.Thread(target=gc.collect, name="collector")
        collector.start()
        collector.join(SAFETY_MS / 1000)
        gc.collect()  # what is left, here
        qtbot.waitUntil(lambda: _equal(len(destroyed_on), 1), timeout=SAFETY_MS)
    finally:
        gc.enable()
    assert destroyed_on == [threading.main_thread().name]
