"""The flow layout on its own: one line with room, more lines without, never wider than asked."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from explorer.gui.panels.flow_layout import FlowLayout


def test_items_wrap_onto_more_lines_when_the_row_is_narrow(qtbot: QtBot) -> None:
    outer = QWidget()
    qtbot.addWidget(outer)
    row = QWidget(outer)
    flow = FlowLayout(row, spacing=6, line_spacing=4)
    buttons = [QPushButton(f"button {n}", row) for n in range(6)]
    for button in buttons:
        button.setFixedWidth(100)
        flow.addWidget(button)
    column = QVBoxLayout(outer)
    column.setContentsMargins(0, 0, 0, 0)
    column.addWidget(row)
    column.addStretch(1)
    assert flow.sizeHint().width() == 6 * 100 + 5 * 6  # all on one line
    assert flow.minimumSize().width() == 100  # the widest item
    one_line = flow.heightForWidth(700)
    assert flow.heightForWidth(330) > one_line  # three a line: two lines
    outer.resize(700, 200)
    outer.show()
    qtbot.waitExposed(outer)
    qtbot.waitUntil(lambda: len({b.y() for b in buttons}) == 1)
    assert len(flow.lines(row.width())) == 1
    outer.resize(330, 200)
    qtbot.waitUntil(lambda: len({b.y() for b in buttons}) == 2)
    assert [len(line) for line in flow.lines(row.width())] == [3, 3]
    assert row.height() >= flow.heightForWidth(330)
    assert all(b.geometry().right() < row.width() for b in buttons)
    assert buttons[3].x() == buttons[0].x() and buttons[3].y() > buttons[0].y()
    assert flow.count() == 6 and flow.takeAt(5) is not None and flow.count() == 5
    assert flow.itemAt(5) is None
