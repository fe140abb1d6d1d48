"""The fusion controls on their own: every ranking setting shown, presets, reset."""

from __future__ import annotations

from dataclasses import replace

from pytestqt.qtbot import QtBot

from explorer.gui.fusion_controls import FusionControls
from explorer.search.options import PRESETS, SearchOptions


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
