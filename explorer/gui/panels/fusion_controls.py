"""The fusion controls: the method, k, the two weights, the candidate depth, the floors and the
recency prior (off at 0; its half-life greyed while it is off).

They edit the ranking part of a :class:`SearchOptions` (the mode is the search bar's).  Every
change emits ``changed`` at once (the window re-fuses the cached lists, no new query); "Reset"
goes back to the defaults.  A control the chosen method ignores is greyed, and its tooltip
says why (:func:`ignored`): k means something only to RRF.  The row wraps onto a second line on a
narrow window (:class:`~explorer.gui.panels.flow_layout.FlowLayout`), each caption with its box.
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

from explorer.gui.panels.flow_layout import FlowLayout
from explorer.search.query.options import (
    CALIBRATED_MAX_WEIGHT,
    FUSION_METHODS,
    PARAMETERS,
    PRESETS,
    RANKING,
    Fusion,
    SearchOptions,
    with_ranking_of,
)

DEFAULTS = SearchOptions()
#: The weight boxes' top under RRF and convex (under calibrated: CALIBRATED_MAX_WEIGHT).
MAX_WEIGHT = 10.0
METHOD_LABELS = {"rrf": "RRF", "convex": "Convex", "calibrated": "Calibrated"}
METHOD_TIPS = {
    "rrf": "Weighted Reciprocal Rank Fusion: Σ w / (k + rank). Sees only ranks.",
    "convex": (
        "Convex combination: Σ w · score / best score of its list (the lexical list per pass:"
        " phrase, all words, any word). Sees confidence."
    ),
    "calibrated": (
        "Calibrated evidence: each list's score read as evidence from 0 to 1 that means the same"
        " for every query (the cosine against this query's spread over the vault; the lexical"
        " pass and the share of the query's words a note holds), fused as the chance that either"
        " list is right: 1 − (1 − w·a)(1 − w·b). A weak match stays weak: no close match is said"
        " as such."
    ),
}
#: What a weight does under each method (its tooltip).
WEIGHT_TIPS = {
    "calibrated": "{list} weight: scales the {list} list's evidence before fusing (1 takes it "
    "as it is)",
}


def ignored(method: str) -> dict[str, str]:
    """The settings ``method`` does not use, each with the sentence that says why."""
    if method == Fusion.RRF:
        return {}
    name = METHOD_LABELS.get(method, method)
    uses = {
        "convex": "it adds the lists' normalised scores, not ranks",
        "calibrated": "it fuses each list's calibrated evidence, not ranks",
    }.get(method, "it does not use ranks")
    return {"k": f"k is RRF's: {name} fusion does not use it ({uses})"}


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
        self.recency_box = QDoubleSpinBox(self)
        self.recency_box.setRange(0.0, 1.0)
        self.recency_box.setDecimals(2)
        self.recency_box.setSingleStep(0.05)
        self.recency_box.setToolTip(help_of["recency"].capitalize())
        self.half_life_box = QDoubleSpinBox(self)
        self.half_life_box.setRange(0.1, 100_000.0)
        self.half_life_box.setDecimals(1)
        self.half_life_box.setSuffix(" d")
        self.half_life_box.setToolTip(help_of["half_life"].capitalize())
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
        self.flow = FlowLayout(self, spacing=10)
        for label, widget in (
            ("fusion", self.method_box),
            ("k", self.k_box),
            ("lexical w", self.w_fts_box),
            ("vector w", self.w_vec_box),
            ("depth", self.depth_box),
            ("min-sim", self.min_sim_box),
            ("min-rel", self.min_rel_box),
            ("recency", self.recency_box),
            ("half-life", self.half_life_box),
        ):
            pair = QWidget(self)
            caption = QLabel(label, pair)
            caption.setBuddy(widget)
            widget.setParent(pair)
            pair_layout = QHBoxLayout(pair)
            pair_layout.setContentsMargins(0, 0, 0, 0)
            pair_layout.setSpacing(4)
            pair_layout.addWidget(caption)
            pair_layout.addWidget(widget)
            self.flow.addWidget(pair)
        self.flow.addWidget(self.preset_button)
        self.flow.addWidget(self.reset_button)
        self._quiet = False
        self.set_options(DEFAULTS)
        self.method_box.currentIndexChanged.connect(self._emit)
        for box in (self.k_box, self.depth_box):
            box.valueChanged.connect(self._emit)
        for dbox in (
            self.w_fts_box,
            self.w_vec_box,
            self.min_sim_box,
            self.min_rel_box,
            self.recency_box,
            self.half_life_box,
        ):
            dbox.valueChanged.connect(self._emit)

    def append(self, widget: QWidget) -> None:
        """Put ``widget`` at the end of the row (it wraps with the controls)."""
        widget.setParent(self)
        self.flow.addWidget(widget)

    def _weight(self, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(0.0, MAX_WEIGHT)
        box.setDecimals(2)
        box.setSingleStep(0.05)
        box.setToolTip(tip)
        return box

    def options(self, base: SearchOptions = DEFAULTS) -> SearchOptions:
        """``base`` with the ranking settings shown here."""
        return replace(
            base,
            fusion=Fusion(self.method_box.currentData()),
            k=float(self.k_box.value()),
            w_fts=round(self.w_fts_box.value(), 4),
            w_vec=round(self.w_vec_box.value(), 4),
            depth=int(self.depth_box.value()),
            min_sim=round(self.min_sim_box.value(), 4),
            min_rel=round(self.min_rel_box.value(), 4),
            recency=round(self.recency_box.value(), 4),
            half_life=round(self.half_life_box.value(), 4),
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
            self.recency_box.setValue(options.recency)
            self.half_life_box.setValue(options.half_life)
        finally:
            self._quiet = False
        self._grey_ignored()
        if emit:
            self._emit()

    def reset(self) -> None:
        self.set_options(DEFAULTS, emit=True)

    def apply_preset(self, chosen: SearchOptions) -> None:
        """Show ``chosen``'s ranking settings and re-fuse."""
        self.set_options(with_ranking_of(self.options(), chosen), emit=True)

    def _grey_ignored(self) -> None:
        """Grey the controls the chosen method ignores, saying why in their tooltips."""
        method = str(self.method_box.currentData())
        why = ignored(method)
        self.k_box.setEnabled("k" not in why)
        self.k_box.setToolTip(why.get("k", self._help["k"]))
        self.method_box.setToolTip(METHOD_TIPS.get(method, self._help["fusion"].capitalize()))
        prior_on = self.recency_box.value() > 0
        self.half_life_box.setEnabled(prior_on)
        self.half_life_box.setToolTip(
            self._help["half_life"].capitalize()
            if prior_on
            else "The half-life is the recency prior's: it is off (recency 0)"
        )
        tip = WEIGHT_TIPS.get(method)
        for box in (self.w_fts_box, self.w_vec_box):  # above 1 calibrated scores saturate
            box.setMaximum(CALIBRATED_MAX_WEIGHT if method == Fusion.CALIBRATED else MAX_WEIGHT)
        for box, name, label in (
            (self.w_fts_box, "w_fts", "lexical"),
            (self.w_vec_box, "w_vec", "vector"),
        ):
            box.setToolTip(
                tip.format(list=label).capitalize() if tip else self._help[name].capitalize()
            )

    def _emit(self, *_: object) -> None:
        self._grey_ignored()
        if not self._quiet:
            self.changed.emit()


def _ranking(options: SearchOptions) -> list[tuple[str, object]]:
    """The settings these controls show, by name, as a person reads them."""
    data = options.to_json()
    return [(name, data[name]) for name in RANKING if name != "mode"]
