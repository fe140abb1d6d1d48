"""The fusion controls on their own: every ranking setting shown, presets, reset."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from explorer.gui.panels.fusion_controls import FusionControls, ignored
from explorer.search.query.options import FUSION_METHODS, PRESETS, SearchOptions


def test_the_controls_show_and_return_every_ranking_setting(qtbot: QtBot) -> None:
    controls = FusionControls()
    qtbot.addWidget(controls)
    assert controls.options() == SearchOptions()
    chosen = SearchOptions(fusion="convex", k=12, w_fts=0.4, w_vec=0.6, depth=70, min_sim=0.1)
    chosen = replace(chosen, min_rel=0.45)
    controls.set_options(chosen)
    assert controls.options() == chosen
    assert not controls.k_box.isEnabled()  # k is RRF's
    base = SearchOptions(mode="fts", limit=100)
    assert controls.options(base) == replace(chosen, mode="fts", limit=100)


def test_a_preset_is_one_click_and_reset_goes_back(qtbot: QtBot) -> None:
    controls = FusionControls()
    qtbot.addWidget(controls)
    menu = controls.preset_button.menu()
    assert [a.text() for a in menu.actions()] == list(PRESETS)
    seed = next(a for a in menu.actions() if a.text() == "seed")
    with qtbot.waitSignal(controls.changed):
        seed.trigger()
    assert controls.options() == replace(PRESETS["seed"], mode="hybrid")
    assert controls.k_box.isEnabled()
    controls.w_fts_box.setValue(0.2)
    with qtbot.waitSignal(controls.changed):
        controls.reset()
    assert controls.options() == SearchOptions()


def test_calibrated_is_offered_with_a_tooltip_and_greys_k_saying_why(qtbot: QtBot) -> None:
    controls = FusionControls()
    qtbot.addWidget(controls)
    box = controls.method_box
    index = box.findData("calibrated")
    assert index >= 0 and box.itemText(index) == "Calibrated"
    tip = str(box.itemData(index, Qt.ItemDataRole.ToolTipRole))
    assert "evidence" in tip and "1 − (1 − w·a)(1 − w·b)" in tip
    assert box.currentIndex() == index  # the default
    controls.set_options(replace(controls.options(), fusion="rrf"))
    with qtbot.waitSignal(controls.changed):
        box.setCurrentIndex(index)
    assert controls.options().fusion == "calibrated"
    assert not controls.k_box.isEnabled()
    assert controls.k_box.toolTip().startswith("k is RRF's: Calibrated fusion does not use it")
    assert box.toolTip() == tip  # the chosen method says what it does
    assert "evidence" in controls.w_fts_box.toolTip()
    controls.set_options(replace(controls.options(), fusion="convex"))
    assert not controls.k_box.isEnabled() and "Convex fusion" in controls.k_box.toolTip()
    assert "evidence" not in controls.w_fts_box.toolTip()
    controls.set_options(replace(controls.options(), fusion="rrf"))
    assert controls.k_box.isEnabled() and "RRF's" not in controls.k_box.toolTip()


def test_only_rrf_uses_k() -> None:
    assert ignored("rrf") == {}
    for method in FUSION_METHODS:
        if method != "rrf":
            assert set(ignored(method)) == {"k"}


def test_a_calibrated_weight_stops_at_1_where_rrf_s_goes_on(qtbot: QtBot) -> None:
    """Above 1 the calibrated scores saturate (every strong hit 1.0): its weight boxes stop at
    1, RRF's and convex's go on, and what the controls return always validates."""
    controls = FusionControls()
    qtbot.addWidget(controls)
    controls.set_options(SearchOptions(fusion="rrf", w_fts=5.0, w_vec=3.0))
    assert controls.options().w_fts == 5.0
    controls.method_box.setCurrentIndex(controls.method_box.findData("calibrated"))
    assert (controls.w_fts_box.maximum(), controls.w_vec_box.maximum()) == (1.0, 1.0)
    assert (controls.options().w_fts, controls.options().w_vec) == (1.0, 1.0)
    controls.options().validate()
    controls.w_fts_box.setValue(9.0)
    assert controls.options().w_fts == 1.0


def test_the_controls_wrap_onto_two_lines_rather_than_widen_the_window(qtbot: QtBot) -> None:
    controls = FusionControls()
    qtbot.addWidget(controls)
    wide = controls.sizeHint().width()
    assert controls.minimumSizeHint().width() < wide // 4
    controls.resize(wide, 40)
    controls.show()
    qtbot.waitExposed(controls)
    assert len(controls.flow.lines(controls.width())) == 1
    widest = max(controls.flow.itemAt(i).sizeHint().width() for i in range(controls.flow.count()))
    half = wide // 2 + widest  # the greedy first line then holds at least half of the row
    controls.resize(half, controls.heightForWidth(half))
    qtbot.waitUntil(lambda: controls.width() == half)
    assert len(controls.flow.lines(half)) == 2
    for box in (controls.method_box, controls.min_rel_box, controls.reset_button):
        corner = box.mapTo(controls, box.rect().bottomRight())
        assert controls.rect().contains(corner)  # each one whole, on one of the two lines


def test_the_recency_prior_is_a_control_its_half_life_greyed_while_it_is_off(
    qtbot: QtBot,
) -> None:
    controls = FusionControls()
    qtbot.addWidget(controls)
    assert controls.options().recency == 0
    assert not controls.half_life_box.isEnabled()
    assert "off" in controls.half_life_box.toolTip()
    with qtbot.waitSignal(controls.changed):
        controls.recency_box.setValue(0.3)
    assert controls.half_life_box.isEnabled()
    with qtbot.waitSignal(controls.changed):
        controls.half_life_box.setValue(7.5)
    assert (controls.options().recency, controls.options().half_life) == (0.3, 7.5)
    chosen = replace(SearchOptions(), recency=0.15, half_life=90.0)
    controls.set_options(chosen)
    assert controls.options() == chosen
