"""The window's settings: the search settings as one value, and versions with upgrade steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from explorer.gui.window import settings as opt
from explorer.gui.window.settings import CURRENT_VERSION, Settings
from explorer.search.query.options import SearchOptions


def _store(path: Path, values: dict[str, object]) -> QSettings:
    store = QSettings(str(path), QSettings.Format.IniFormat)
    for key, value in values.items():
        store.setValue(key, value)
    store.sync()
    return store


def _reopened(path: Path) -> QSettings:
    return QSettings(str(path), QSettings.Format.IniFormat)


VERSION_1 = {  # what version 1 wrote at every close, here after a person changed k and the mode
    "search/mode": "fts",
    "fusion/k": "20.0",
    "fusion/w_fts": "0.7",
    "fusion/w_vec": "0.3",
    "fusion/depth": "50",
    "fusion/min_sim": "0.3",
    "vault/last": "/notes",
}


TUNED_RRF = {"mode": "fts", "k": 20, "fusion": "rrf", "w_fts": 0.5, "w_vec": 0.5, "min_rel": 0.8}


def test_version_1_keeps_what_was_changed_and_follows_the_defaults_elsewhere(
    tmp_path: Path,
) -> None:
    path = tmp_path / "settings.ini"
    Settings(_store(path, VERSION_1))
    store = _reopened(path)
    assert int(store.value("settings/version")) == CURRENT_VERSION
    # k 20 was chosen; the other values were version 1's defaults.  A chosen k is RRF tuning,
    # so version 3 keeps that person on RRF (with version 2's weights) rather than convex.
    assert json.loads(str(store.value("search/options"))) == TUNED_RRF
    assert not any(key.startswith("fusion/") for key in store.allKeys())
    assert store.value("search/mode") is None
    assert store.value("vault/last") == "/notes"  # other settings untouched
    again = Settings(store)
    assert again.search_options() == SearchOptions(**TUNED_RRF)


def test_an_unreadable_version_1_value_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "settings.ini"
    Settings(_store(path, {"fusion/w_vec": "lots", "fusion/depth": "5000"}))
    # "lots" cannot be read (so it was the default); depth 5000 is out of range: both dropped.
    assert Settings(_reopened(path)).search_options() == SearchOptions()


def test_a_new_store_starts_at_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "settings.ini"
    settings = Settings(_store(path, {}))
    assert settings.version() == CURRENT_VERSION
    assert settings.search_options() == SearchOptions()


def test_a_read_only_store_is_upgraded_in_memory_only(tmp_path: Path) -> None:
    path = tmp_path / "settings.ini"
    before = dict(VERSION_1)
    read_only = Settings(_store(path, before), read_only=True)
    assert read_only.search_options() == SearchOptions(**TUNED_RRF)
    read_only.set_search_options(SearchOptions(w_fts=0.1))
    assert read_only.search_options() == SearchOptions(w_fts=0.1)
    store = _reopened(path)
    assert {key: store.value(key) for key in store.allKeys()} == before


def test_a_store_from_a_newer_program_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.ini"
    newer = {"settings/version": CURRENT_VERSION + 1, "search/options": '{"k": 7, "future": 1}'}
    settings = Settings(_store(path, newer))
    assert settings.search_options() == SearchOptions(k=7.0)  # what it knows, read
    assert int(_reopened(path).value("settings/version")) == CURRENT_VERSION + 1


def test_only_changed_search_settings_are_kept(tmp_path: Path) -> None:
    settings = Settings(_store(tmp_path / "settings.ini", {}))
    settings.set_search_options(SearchOptions(fusion="rrf", limit=100))
    assert json.loads(settings.get(opt.SEARCH)) == {"fusion": "rrf"}
    settings.set(opt.SEARCH, "{not json")
    assert settings.search_options() == SearchOptions()
    settings.set(opt.SEARCH, '{"k": -1, "w_fts": 0.2}')  # a bad value is left at its default
    assert settings.search_options() == SearchOptions(w_fts=0.2)


def test_settings_saved_under_older_defaults_follow_the_new_ones(tmp_path: Path) -> None:
    """Version 2 keeps only what a person changed, so a store written when the defaults were
    RRF k 60, 0.7 / 0.3 and an absolute floor of 0.3 reads as today's defaults, except for the
    value that person chose."""
    path = tmp_path / "settings.ini"
    untouched = Settings(_store(path, {"settings/version": 2, "search/options": "{}"}))
    assert untouched.search_options() == SearchOptions()
    chose_depth = Settings(
        _store(tmp_path / "b.ini", {"settings/version": 2, "search/options": '{"depth": 80}'})
    )
    assert chose_depth.search_options() == SearchOptions(depth=80)
    # And from version 1, which wrote every value at each close: the old defaults are not kept.
    old = {**VERSION_1, "search/mode": "hybrid", "fusion/k": "60.0"}
    assert Settings(_store(tmp_path / "c.ini", old)).search_options() == SearchOptions()


def test_version_2_rrf_tuning_stays_rrf_and_the_rest_follows_convex(tmp_path: Path) -> None:
    """Version 3's default is convex.  A version 2 store that changed ``k`` or a weight tuned
    RRF: it stays RRF with version 2's weights; one that chose a method, or only other values,
    follows the new defaults."""

    def upgraded(name: str, changed: dict[str, object]) -> SearchOptions:
        values = {"settings/version": 2, "search/options": json.dumps(changed)}
        return Settings(_store(tmp_path / name, values)).search_options()

    # (Version 4 then keeps version 3's floor for them: they tuned a ranking, it stays theirs.)
    v3 = {"min_rel": 0.8}
    assert upgraded("k.ini", {"k": 30}) == SearchOptions(
        fusion="rrf", k=30.0, w_fts=0.5, w_vec=0.5, **v3
    )
    assert upgraded("w.ini", {"w_fts": 0.8}) == SearchOptions(
        fusion="rrf", w_fts=0.8, w_vec=0.5, **v3
    )
    assert upgraded("chose.ini", {"fusion": "rrf", "k": 30}) == SearchOptions(
        fusion="rrf", k=30.0, w_fts=0.3, w_vec=0.7, **v3
    )
    assert upgraded("depth.ini", {"depth": 80}) == SearchOptions(depth=80)
    assert upgraded("none.ini", {}) == SearchOptions()


@pytest.mark.parametrize(
    "saved",
    [
        '{"depth": 1' + "0" * 400 + "}",
        '{"w_fts": 1' + "0" * 400 + "}",
        '{"depth": "lots"}',
        '{"depth": 1' + "0" * 5000 + "}",
        "[1, 2]",
    ],
)
def test_a_bad_saved_search_setting_falls_back_with_a_notice(tmp_path: Path, saved: str) -> None:
    """A value the window cannot use (a 400-digit depth once ended every start in a traceback)
    is left at its default, and one line says so."""
    path = tmp_path / "settings.ini"
    settings = Settings(
        _store(path, {"settings/version": CURRENT_VERSION, "search/options": saved})
    )
    assert settings.search_options() == SearchOptions()
    assert len(settings.notices) == 1, settings.notices
    notice = settings.notices[0]
    assert "\n" not in notice and len(notice) < 160, notice
    assert "default" in notice


def test_version_3_convex_tuning_stays_convex(tmp_path: Path) -> None:
    path = tmp_path / "settings.ini"
    Settings(_store(path, {"settings/version": 3, "search/options": '{"w_fts": 0.5}'}))
    tuned = json.loads(str(_reopened(path).value("search/options")))
    assert tuned == {"fusion": "convex", "w_fts": 0.5, "w_vec": 0.7, "min_rel": 0.8}
    untouched = tmp_path / "untouched.ini"
    Settings(_store(untouched, {"settings/version": 3, "search/options": '{"mode": "fts"}'}))
    assert Settings(_reopened(untouched)).search_options() == SearchOptions(mode="fts")
    assert SearchOptions().fusion == "calibrated"
