"""The pinned baseline: the actions that pin and unpin it, and the line above the results.

"Pin as baseline" keeps the settings on screen (mode, fusion, k, weights, depth, floors); while
one is pinned every result is compared with it (:mod:`explorer.search.answers.compare`): the table
gets a Base rank column and shows the move against the baseline, and this bar says how much the two
rankings overlap — ``vs baseline hybrid RRF k=60 …: Jaccard@10 0.60 · RBO(p=0.9) 0.71 · lists
agree …``.  The preset pairs pin one setting and show the other in one click.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, replace

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QToolButton, QWidget

from explorer.display import safe_text
from explorer.search.answers.compare import Comparison, describe
from explorer.search.query.options import PRESETS, Mode, SearchOptions, with_ranking_of

PIN_KEYS = "Ctrl+B"
UNPIN_KEYS = "Ctrl+Shift+B"


def _seed_vs_default(current: SearchOptions) -> tuple[SearchOptions, SearchOptions]:
    seed = with_ranking_of(current, PRESETS["seed"])
    default = with_ranking_of(current, PRESETS["default"])
    return replace(seed, mode=Mode.HYBRID), replace(default, mode=Mode.HYBRID)


def _hybrid_vs_semantic(current: SearchOptions) -> tuple[SearchOptions, SearchOptions]:
    return replace(current, mode=Mode.HYBRID), replace(current, mode=Mode.SEMANTIC)


@dataclass(frozen=True, slots=True)
class Pair:
    """A one-click comparison: pin the first of ``settings(current)``, show the second."""

    label: str
    tip: str
    settings: Callable[[SearchOptions], tuple[SearchOptions, SearchOptions]]


PAIRS = (
    Pair(
        "Seed RRF vs Default",
        "Pin the seed's weighted RRF (no similarity floor) and show the default settings",
        _seed_vs_default,
    ),
    Pair(
        "Hybrid vs Semantic",
        "Pin hybrid with the current fusion settings and show the vector list alone",
        _hybrid_vs_semantic,
    ),
)


def overlap_line(baseline: SearchOptions, comparison: Comparison) -> str:
    """The bar's text (rich text, escaped): the baseline, the overlap, the lists' agreement."""
    a, b = comparison.lists_a, comparison.lists_b
    lists = (
        f"lists agree @10: base {_agree(a.jaccard10, a.lexical, a.vector)}, "
        f"now {_agree(b.jaccard10, b.lexical, b.vector)} · "
        f"{b.hits_in_both} of {_shown(comparison)} hits in both lists"
    )
    gone = len(comparison.gone)
    left = f" · {gone} left the top" if gone else ""
    reason = comparison.semantic_reason
    unavailable = f" · semantic unavailable: {safe_text(reason)}" if reason else ""
    return (
        f"<b>vs baseline</b> {html.escape(safe_text(describe(baseline)))}: "
        f"{html.escape(comparison.overlap_text())} · {lists}{left}{html.escape(unavailable)}"
    )


def _agree(jaccard: float, lexical: int, vector: int) -> str:
    return f"{jaccard:.2f}" if lexical and vector else "one list"


def _shown(comparison: Comparison) -> int:
    return sum(r.rank_b is not None for r in comparison.rows)


class CompareBar(QWidget):
    """The line above the results while a baseline is pinned (hidden otherwise), with Re-pin
    and Unpin; :attr:`pin_action`, :attr:`unpin_action` and :attr:`pair_actions` are the
    actions the Compare menu and the pin button share."""

    pinRequested = Signal()
    unpinRequested = Signal()
    pairRequested = Signal(object)  # Pair

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareBar")
        self.pin_action = QAction("&Pin as Baseline", self)
        self.pin_action.setShortcut(QKeySequence(PIN_KEYS))
        self.pin_action.setToolTip(
            f"Compare every result with the settings on screen now ({PIN_KEYS})"
        )
        self.pin_action.triggered.connect(self.pinRequested)
        self.unpin_action = QAction("&Unpin Baseline", self)
        self.unpin_action.setShortcut(QKeySequence(UNPIN_KEYS))
        self.unpin_action.setEnabled(False)
        self.unpin_action.triggered.connect(self.unpinRequested)
        self.pair_actions: list[QAction] = []
        for pair in PAIRS:
            action = QAction(pair.label, self)
            action.setToolTip(pair.tip)
            action.triggered.connect(lambda _=False, p=pair: self.pairRequested.emit(p))
            self.pair_actions.append(action)

        self.pin_button = QToolButton(parent)
        self.pin_button.setObjectName("pinButton")
        self.pin_button.setDefaultAction(self.pin_action)
        self.pin_button.setText("Pin")
        self.pin_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        menu = QMenu(self.pin_button)
        compare = menu.addMenu("Compare")
        for action in self.pair_actions:
            compare.addAction(action)
        compare.setToolTipsVisible(True)
        menu.addAction(self.unpin_action)
        self.pin_button.setMenu(menu)

        self.label = QLabel(self)
        self.label.setObjectName("overlapLine")
        self.label.setWordWrap(True)
        self.repin_button = QToolButton(self)
        self.repin_button.setText("Re-pin")
        self.repin_button.setToolTip("Make the settings on screen the baseline")
        self.repin_button.clicked.connect(self.pinRequested)
        self.unpin_button = QToolButton(self)
        self.unpin_button.setText("Unpin")
        self.unpin_button.setToolTip(f"Stop comparing ({UNPIN_KEYS})")
        self.unpin_button.clicked.connect(self.unpinRequested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 2, 2)
        layout.setSpacing(6)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.repin_button)
        layout.addWidget(self.unpin_button)
        self.hide()

    def show_comparison(
        self, baseline: SearchOptions, comparison: Comparison | None, note: str = "searching…"
    ) -> None:
        """Say how the shown result compares with ``baseline`` (``None``: nothing to compare
        yet, and ``note`` says why)."""
        self.unpin_action.setEnabled(True)
        self.pin_button.setText("Re-pin")
        if comparison is None:
            text = f"<b>vs baseline</b> {html.escape(describe(baseline))}: {html.escape(note)}"
        else:
            text = overlap_line(baseline, comparison)
        self.label.setText(text)
        self.show()

    def unpinned(self) -> None:
        self.unpin_action.setEnabled(False)
        self.pin_button.setText("Pin")
        self.label.clear()
        self.hide()

    def text(self) -> str:
        """The bar's line as plain text (tests, the screenshot tool)."""
        return html.unescape(self.label.text().replace("<b>", "").replace("</b>", ""))
