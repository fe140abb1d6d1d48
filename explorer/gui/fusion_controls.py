"""The fusion controls: k, the two weights, the candidate depth and the similarity floor.

Every change emits ``changed`` with the new :class:`FusionSettings` at once (the window re-fuses
the cached lists, no new query); "Reset" goes back to the defaults (k 60, 0.7 / 0.3, depth 50).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QWidget,
)

from explorer.search.fusion import DEFAULT_K, DEFAULT_WEIGHTS
from explorer.search.hybrid import DEFAULT_MIN_SIM


@dataclass(frozen=True)
class FusionSettings:
    k: float = float(DEFAULT_K)
    w_fts: float = float(DEFAULT_WEIGHTS["fts"])
    w_vec: float = float(DEFAULT_WEIGHTS["vector"])
    depth: int = 50
    min_sim: float = float(DEFAULT_MIN_SIM)


DEFAULTS = FusionSettings()


class FusionControls(QWidget):
    """A row of spin boxes; ``changed`` fires on every edit."""

    changed = Signal(object)  # FusionSettings

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.k_box = QSpinBox(self)
        self.k_box.setRange(1, 1000)
        self.k_box.setToolTip("RRF k: larger k flattens the difference between ranks")
        self.w_fts_box = self._weight("Weight of the lexical (FTS5) list")
        self.w_vec_box = self._weight("Weight of the vector list")
        self.depth_box = QSpinBox(self)
        self.depth_box.setRange(1, 1000)
        self.depth_box.setToolTip("Candidates taken from each list before fusion")
        self.min_sim_box = QDoubleSpinBox(self)
        self.min_sim_box.setRange(0.0, 1.0)
        self.min_sim_box.setDecimals(2)
        self.min_sim_box.setSingleStep(0.05)
        self.min_sim_box.setToolTip(
            "Similarity floor of the vector list: notes whose best passage is less similar "
            "than this are left out (0: no floor)"
        )
        self.reset_button = QPushButton("Reset", self)
        self.reset_button.setToolTip("k 60, weights 0.7 / 0.3, depth 50")
        self.reset_button.clicked.connect(self.reset)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        for label, widget in (
            ("k", self.k_box),
            ("lexical w", self.w_fts_box),
            ("vector w", self.w_vec_box),
            ("depth", self.depth_box),
            ("min-sim", self.min_sim_box),
        ):
            caption = QLabel(label, self)
            caption.setBuddy(widget)
            layout.addWidget(caption)
            layout.addWidget(widget)
        layout.addWidget(self.reset_button)
        self._quiet = False
        self.set_settings(DEFAULTS)
        for box in (self.k_box, self.depth_box):
            box.valueChanged.connect(self._emit)
        for dbox in (self.w_fts_box, self.w_vec_box, self.min_sim_box):
            dbox.valueChanged.connect(self._emit)

    def _weight(self, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(0.0, 10.0)
        box.setDecimals(2)
        box.setSingleStep(0.05)
        box.setToolTip(tip)
        return box

    def settings(self) -> FusionSettings:
        return FusionSettings(
            k=float(self.k_box.value()),
            w_fts=round(self.w_fts_box.value(), 4),
            w_vec=round(self.w_vec_box.value(), 4),
            depth=int(self.depth_box.value()),
            min_sim=round(self.min_sim_box.value(), 4),
        )

    def set_settings(self, settings: FusionSettings, *, emit: bool = False) -> None:
        self._quiet = True
        try:
            self.k_box.setValue(round(settings.k))
            self.w_fts_box.setValue(settings.w_fts)
            self.w_vec_box.setValue(settings.w_vec)
            self.depth_box.setValue(settings.depth)
            self.min_sim_box.setValue(max(0.0, settings.min_sim))
        finally:
            self._quiet = False
        if emit:
            self._emit()

    def reset(self) -> None:
        self.set_settings(DEFAULTS, emit=True)

    def _emit(self, *_: object) -> None:
        if not self._quiet:
            self.changed.emit(self.settings())
