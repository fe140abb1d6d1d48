"""The Qt binding the window runs on does not corrupt the interpreter.

PySide6-Essentials 6.12.0 dropped a reference to ``None`` at every call of a Qt method that
returns nothing; on Python 3.11, where ``None`` is an ordinary counted object, the process then
aborts ("Fatal Python error: none_dealloc") after a few thousand such calls: a window left open
for an afternoon would crash.  ``pyproject.toml`` keeps that version out; this proves the one
installed keeps its count.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot


def test_calls_that_return_nothing_keep_the_count_of_none(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    before = sys.getrefcount(None)
    for i in range(1000):
        widget.resize(100 + i % 7, 100)
    # Other threads may take or drop a few references meanwhile; the bug drops one per call.
    assert sys.getrefcount(None) - before > -100
