"""Help ▸ Query Syntax on a laptop's screen (issue 46, row 4)."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QDialogButtonBox, QMainWindow
from pytestqt.qtbot import QtBot

from explorer.gui.window.help import SyntaxDialog, show_syntax


def test_the_query_syntax_scrolls_and_its_ok_button_is_on_a_768_pixel_screen(
    qtbot: QtBot,
) -> None:
    """It was a message box 500×1,439 with no scroll bar, its OK button off the screen."""
    parent = QMainWindow()
    qtbot.addWidget(parent)
    dialog = show_syntax(parent, QRect(0, 0, 1366, 768))
    qtbot.waitExposed(dialog)
    assert isinstance(dialog, SyntaxDialog)
    frame = dialog.frameGeometry()
    assert frame.height() <= 768 - 60, frame  # room for a panel and a title bar
    assert frame.width() <= 1366
    bar = dialog.text.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)  # the rest is a scroll away
    assert "tag:" in dialog.text.toPlainText()
    ok = dialog.findChild(QDialogButtonBox)
    assert ok is not None and ok.isVisible()
    assert dialog.rect().contains(ok.geometry())
    ok.accepted.emit()
    qtbot.waitUntil(lambda: not dialog.isVisible())
