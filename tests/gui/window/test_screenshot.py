"""The compact PNG of ``--screenshot``: a palette of the image's own colours."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from explorer.gui.window.screenshot import compact


def test_compact_keeps_the_colours_of_a_ui_picture(qapp: QApplication) -> None:
    image = QImage(120, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.fillRect(QRect(0, 0, 60, 40), QColor("#dceaff"))  # the lexical tint
    painter.fillRect(QRect(60, 0, 60, 40), QColor("#ffe9bf"))  # the vector tint
    painter.drawText(5, 25, "0.01616")  # antialiased text: shades in between
    painter.end()
    out = compact(image)
    assert out.format() == QImage.Format.Format_Indexed8
    assert out.pixelColor(2, 2) == QColor("#dceaff")
    assert out.pixelColor(118, 38) == QColor("#ffe9bf")
