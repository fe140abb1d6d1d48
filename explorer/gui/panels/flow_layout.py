"""A layout that lays its items out in a row and wraps them onto more rows when the row is too
narrow, like words in a paragraph.

The fusion controls are the window's widest row: in one line they would make the window's
minimum wider than a 1280-pixel screen with a desktop's larger fonts.  In a flow they take one
line when there is room and two on a narrow window; the minimum width is the widest item's.
Items are centred vertically on their line.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    """Items left to right, wrapped onto a new line where the next one does not fit."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6, line_spacing: int = 4):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._line_spacing = line_spacing
        self.setContentsMargins(0, 0, 0, 0)

    # ------------------------------------------------------------------ QLayout's API

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """All items on one line."""
        items = self._shown()
        width = sum(i.sizeHint().width() for i in items) + self._spacing * max(0, len(items) - 1)
        height = max((i.sizeHint().height() for i in items), default=0)
        return QSize(width, height).grownBy(self.contentsMargins())

    def minimumSize(self) -> QSize:
        """One item a line: the widest item's width."""
        size = QSize(0, 0)
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        return size.grownBy(self.contentsMargins())

    # ------------------------------------------------------------------ laying out

    def _shown(self) -> list[QLayoutItem]:
        return [i for i in self._items if not i.isEmpty()]

    def lines(self, width: int) -> list[list[QLayoutItem]]:
        """The items on each line at ``width`` (contents margins included)."""
        margins: QMargins = self.contentsMargins()
        room = width - margins.left() - margins.right()
        lines: list[list[QLayoutItem]] = [[]]
        used = 0
        for item in self._shown():
            wide = item.sizeHint().width()
            if lines[-1] and used + self._spacing + wide > room:
                lines.append([])
                used = 0
            used += (self._spacing if lines[-1] else 0) + wide
            lines[-1].append(item)
        return [line for line in lines if line]

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        """Place the items in ``rect`` (``move``) or only measure; the height they take."""
        margins = self.contentsMargins()
        inner = rect.marginsRemoved(margins)
        y = inner.y()
        for number, line in enumerate(self.lines(rect.width())):
            if number:
                y += self._line_spacing
            height = max(i.sizeHint().height() for i in line)
            x = inner.x()
            for item in line:
                hint = item.sizeHint()
                wide = min(hint.width(), inner.width())
                if move:
                    top = y + (height - hint.height()) // 2
                    item.setGeometry(QRect(QPoint(x, top), QSize(wide, hint.height())))
                x += wide + self._spacing
            y += height
        return y - inner.y() + margins.top() + margins.bottom()
