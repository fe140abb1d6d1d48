"""The legend under the results: what the row tints and bar colours mean."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QWidget,
)

from explorer.gui.core.theme import tints
from explorer.gui.statusbar.elided import ElidedLabel

#: What the bar's colours are, on its swatch.
BAR_TIP = (
    "Each hit's bar: the lexical list's contribution (blue), the vector list's (amber) and, when "
    "the recency prior is on, the prior's (green); its full width is the top hit's score"
)


class Legend(QWidget):
    """What the row tints and bar colours mean: painted swatches with a frame, so that even a
    pale tint is visible as a swatch."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.setSpacing(6)
        self._swatches: dict[str, QLabel] = {}
        for key, text in (
            ("fts", "lexical only"),
            ("vector", "vector only"),
            ("both", "both lists"),
            ("bar", "share of the fused score"),  # by its swatch of the bar's colours
        ):
            swatch = QLabel(self)
            label = QLabel(text, self)
            layout.addWidget(swatch)
            layout.addWidget(label)
            layout.addSpacing(4)  # the legend and its note fit a laptop's results pane
            self._swatches[key] = swatch
        # Cut with "…" when the pane is narrow, whole in its tooltip.
        self.note = ElidedLabel(self, least=("(tints…",))
        self.note.setObjectName("legendNote")
        # The note comes and goes with the mode: it must not widen the results pane's minimum
        # (the pane would jump, and a saved splitter position would depend on the mode).
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.note, 1)  # takes the room left (its size hint is ignored)
        self.update_legend(True)

    def update_legend(self, tinted: bool) -> None:
        t = tints(self.palette())
        frame = self.palette().color(QPalette.ColorRole.Mid)
        base = self.palette().color(QPalette.ColorRole.Base)
        size = self.fontMetrics().height()
        self._swatches["fts"].setPixmap(_swatch(size, [t.fts], frame))
        self._swatches["vector"].setPixmap(_swatch(size, [t.vector], frame))
        self._swatches["both"].setPixmap(_swatch(size, [base], frame))
        # The bar's parts: the lexical list's, the vector list's and the recency prior's (a
        # third part when the prior is on), in one swatch as wide as two: the legend must fit
        # a laptop's results pane.
        bar = _swatch(size, [t.fts_bar, t.vector_bar, t.recency_bar], frame, 2)
        self._swatches["bar"].setPixmap(bar)
        self._swatches["bar"].setToolTip(BAR_TIP)
        self.note.setText("" if tinted else "(tints mark Hybrid results)")

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.update_legend(not self.note.full_text())


def _swatch(size: int, colours: list[QColor], frame: QColor, width_factor: int = 1) -> QPixmap:
    """A framed rectangle filled with ``colours`` side by side."""
    w, h = int(size * 1.4) * width_factor, size
    pixmap = QPixmap(w, h)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    part = (w - 2) // len(colours)
    for i, colour in enumerate(colours):
        painter.fillRect(
            1 + i * part, 1, part if i < len(colours) - 1 else w - 2 - i * part, h - 2, colour
        )
    painter.setPen(frame)
    painter.drawRect(0, 0, w - 1, h - 1)
    painter.end()
    return pixmap
