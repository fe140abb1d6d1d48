"""The fusion controls: the method, k, the two weights, the candidate depth and the floors.

They edit the ranking part of a :class:`SearchOptions` (the mode is the search bar's).  Every
change emits ``changed`` at once (the window re-fuses the cached lists, no new query); "Reset"
goes back to the defaults.  k means something only to RRF, so it is disabled for the convex
combination.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSpinBox,
    QWidget,
)

from explorer.search.options import (
    FUSION_METHODS,
    PARAMETERS,
    PRESETS,
    RANKING,
    SearchOptions,
    with_ranking_of,
)

DEFAULTS = SearchOptions()
METHOD_LABELS = {"rrf": "RRF", "convex": "Convex"}
METHOD_TIPS = {
    "rrf": "Weighted Reciprocal Rank Fusion: Σ w / (k + rank). Sees only ranks.",
    "convex": (
        "Convex combination: Σ w · score / best score of its list (the lexical list per pass:"
        " phrase, all words, any word). Sees confidence."
    ),
}


class FusionControls(QWidget):
    """A row of controls; ``changed`` fires on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._help = help_of = {p.name: p.help for p in PARAMETERS}
        self.method_box = QComboBox(self)
        for method in FUSION_METHODS:
            self.method_box.addItem(METHOD_LABELS.get(method, method), method)
            self.method_box.setItemData(
                self.method_box.count() - 1,
                METHOD_TIPS.get(method, ""),
                Qt.ItemDataRole.ToolTipRole,
            )
        self.method_box.setToolTip(help_of["fusion"].capitalize())
        self.k_box = QSpinBox(self)
        self.k_box.setRange(1, 1000)
        self.k_box.setToolTip(help_of["k"])
        self.w_fts_box = self._weight(help_of["w_fts"].capitalize())
        self.w_vec_box = self._weight(help_of["w_vec"].capitalize())
        self.depth_box = QSpinBox(self)
        self.depth_box.setRange(1, 1000)
        self.depth_box.setToolTip(help_of["depth"].capitalize())
        self.min_sim_box = QDoubleSpinBox(self)
        self.min_sim_box.setRange(0.0, 1.0)
        self.min_sim_box.setDecimals(2)
        self.min_sim_box.setSingleStep(0.05)
        self.min_sim_box.setToolTip(
            "Similarity floor of the vector list: notes whose best passage is less similar "
            "than this are left out (0: no floor)"
        )
        self.min_rel_box = QDoubleSpinBox(self)
        self.min_rel_box.setRange(0.0, 1.0)
        self.min_rel_box.setDecimals(2)
        self.min_rel_box.setSingleStep(0.05)
        self.min_rel_box.setToolTip(
            "Relative floor of the vector list: notes whose best passage is less similar than "
            "this fraction of the query's best match are left out (0: none). A clear best match "
            "stays even when its cosine is modest."
        )
        self.reset_button = QPushButton("Reset", self)
        self.reset_button.setToolTip(
            "Back to the defaults: " + ", ".join(f"{k} {v}" for k, v in _ranking(DEFAULTS))
        )
        self.reset_button.clicked.connect(self.reset)
        self.preset_button = QPushButton("Presets", self)
        self.preset_button.setToolTip("Start from named settings")
        menu = QMenu(self.preset_button)
        for name, chosen in PRESETS.items():
            action = menu.addAction(name)
            action.setToolTip(", ".join(f"{k} {v}" for k, v in _ranking(chosen)))
            action.triggered.connect(lambda _=False, c=chosen: self.apply_preset(c))
        menu.setToolTipsVisible(True)
        self.preset_button.setMenu(menu)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        for label, widget in (
            ("fusion", self.method_box),
            ("k", self.k_box),
            ("lexical w", self.w_fts_box),
            ("vector w", self.w_vec_box),
            ("depth", self.depth_box),
            ("min-sim", self.min_sim_box),
            ("min-rel", self.min_rel_box),
        ):
            caption = QLabel(label, self)
            caption.setBuddy(widget)
            layout.addWidget(caption)
            layout.addWidget(widget)
        layout.addWidget(self.preset_button)
        layout.addWidget(self.reset_button)
        self._quiet = False
        self.set_options(DEFAULTS)
        self.method_box.currentIndexChanged.connect(self._emit)
        for box in (self.k_box, self.depth_box):
            box.valueChanged.connect(self._emit)
        for dbox in (self.w_fts_box, self.w_vec_box, self.min_sim_box, self.min_rel_box):
            dbox.valueChanged.connect(self._emit)

    def _weight(self, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(0.0, 10.0)
        box.setDecimals(2)
        box.setSingleStep(0.05)
        box.setToolTip(tip)
        return box

    def options(self, base: SearchOptions = DEFAULTS) -> SearchOptions:
        """``base`` with the ranking settings shown here."""
        return replace(
            base,
            fusion=str(self.method_box.currentData()),
            k=float(self.k_box.value()),
            w_fts=round(self.w_fts_box.value(), 4),
            w_vec=round(self.w_vec_box.value(), 4),
            depth=int(self.depth_box.value()),
            min_sim=round(self.min_sim_box.value(), 4),
            min_rel=round(self.min_rel_box.value(), 4),
        )

    def set_options(self, options: SearchOptions, *, emit: bool = False) -> None:
        """Show the ranking settings of ``options`` (its mode and limit are not shown here)."""
        self._quiet = True
        try:
            index = self.method_box.findData(options.fusion)
            self.method_box.setCurrentIndex(max(index, 0))
            self.k_box.setValue(round(options.k))
            self.w_fts_box.setValue(options.w_fts)
            self.w_vec_box.setValue(options.w_vec)
            self.depth_box.setValue(options.depth)
            self.min_sim_box.setValue(max(0.0, options.min_sim))
            self.min_rel_box.setValue(options.min_rel)
        finally:
            self._quiet = False
        self._enable_k()
        if emit:
            self._emit()

    def reset(self) -> None:
        self.set_options(DEFAULTS, emit=True)

    def apply_preset(self, chosen: SearchOptions) -> None:
        """Show ``chosen``'s ranking settings and re-fuse."""
        self.set_options(with_ranking_of(self.options(), chosen), emit=True)

    def _enable_k(self) -> None:
        rrf = self.method_box.currentData() == "rrf"
        self.k_box.setEnabled(rrf)
        self.k_box.setToolTip(
            self._help["k"] if rrf else "k is RRF's: the convex combination does not use it"
        )

    def _emit(self, *_: object) -> None:
        self._enable_k()
        if not self._quiet:
            self.changed.emit()


def _ranking(options: SearchOptions) -> list[tuple[str, object]]:
    """The settings these controls show, by name, as a person reads them."""
    data = options.to_json()
    return [(name, data[name]) for name in RANKING if name != "mode"]
