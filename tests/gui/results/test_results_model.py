"""The results model: roles, five decimals, tints, movement marks, sorting, model sanity."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.modeltest import ModelTester

from explorer.gui.core.theme import dark_palette, light_palette, tints, washed
from explorer.gui.results.results_model import ABSENT, Column, ResultsModel, ResultsProxy, Role
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.results import NoteInfo
from explorer.search.query.options import SearchOptions
from tests.gui.helpers import response
from tests.search.helpers import candidates


def by_path(model: ResultsModel) -> dict[str, int]:
    return {model.index(r, 0).data(Role.PATH): r for r in range(model.rowCount())}


@pytest.mark.qt_log_level_fail("WARNING")
def test_model_passes_the_model_tester_through_changes(qtmodeltester: ModelTester) -> None:
    model = ResultsModel()
    qtmodeltester.check(model)  # Qt's C++ tester stays attached and warns on any violation
    proxy = ResultsProxy()
    proxy.setSourceModel(model)
    ModelTester(None).check(proxy, force_py=True)
    model.set_response(response())
    model.set_response(response(w_fts=0.1, w_vec=0.9), compare=True)
    proxy.sort(Column.VEC_RANK, Qt.SortOrder.DescendingOrder)
    model.set_response(response(mode="fts"))
    model.clear()
    model.set_response(response(k=1.0))
    model.refresh_palette()
    assert model.rowCount() == 5 and proxy.rowCount() == 5


def test_scores_have_five_decimals_and_absent_ranks_a_dash() -> None:
    model = ResultsModel()
    model.set_response(response())
    rows = by_path(model)
    a = rows["a.md"]
    assert model.index(a, Column.FUSED).data() == f"{0.7 / 61 + 0.3 / 63:.5f}"
    assert model.index(a, Column.FTS_CONTRIB).data() == "0.01148"
    assert model.index(a, Column.VEC_CONTRIB).data() == f"{0.3 / 63:.5f}"
    c = rows["c.md"]
    assert model.index(c, Column.VEC_RANK).data() == ABSENT
    assert model.index(c, Column.VEC_CONTRIB).data() == ABSENT
    assert model.index(c, Column.FTS_RANK).data() == "3"
    for r in range(model.rowCount()):
        for column in (Column.FUSED, Column.FTS_CONTRIB, Column.VEC_CONTRIB):
            text = model.index(r, column).data()
            assert text == ABSENT or len(text.split(".")[1]) == 5, text


def test_tints_by_source_only_for_hybrid_results() -> None:
    model = ResultsModel()
    model.set_response(response())
    rows = by_path(model)
    colours = tints()
    background = Qt.ItemDataRole.BackgroundRole
    assert model.index(rows["c.md"], Column.TITLE).data(background).color() == colours.fts
    assert model.index(rows["e.md"], Column.PATH).data(background).color() == colours.vector
    assert model.index(rows["a.md"], Column.TITLE).data(background) is None
    model.set_response(response(mode="fts"))  # one list: every hit is lexical, nothing to say
    assert all(
        model.index(r, Column.TITLE).data(background) is None for r in range(model.rowCount())
    )


def test_tints_are_readable_in_light_and_dark_palettes() -> None:
    light, dark = tints(light_palette()), tints(dark_palette())
    text_light = light_palette().color(light_palette().ColorRole.Text)
    text_dark = dark_palette().color(dark_palette().ColorRole.Text)
    for tint in (light.fts, light.vector):
        assert tint.lightness() - text_light.lightness() > 150  # pale wash under dark text
    for tint in (dark.fts, dark.vector):
        assert text_dark.lightness() - tint.lightness() > 120  # deep wash under light text
    assert light.fts.blue() > light.fts.red() and light.vector.red() > light.vector.blue()
    assert dark.fts.blue() > dark.fts.red() and dark.vector.red() > dark.vector.blue()


def test_refusion_marks_how_rows_moved() -> None:
    model = ResultsModel()
    model.set_response(response())
    before = [model.index(r, 0).data(Role.PATH) for r in range(model.rowCount())]
    model.set_response(response(w_fts=0.1, w_vec=0.9), compare=True)
    after = [model.index(r, 0).data(Role.PATH) for r in range(model.rowCount())]
    assert before != after
    for row, path in enumerate(after):
        moved = before.index(path) - row
        text = model.index(row, Column.MOVE).data()
        assert text == ("" if moved == 0 else f"↑{moved}" if moved > 0 else f"↓{-moved}")
    # A result with a note that was not there before marks it "new".
    bigger = candidates()
    bigger.lexical.append(("f.md", 1.0, "f"))
    bigger.notes["f.md"] = NoteInfo("f.md", "F", None, (), 0)
    model.set_response(fuse(bigger, SearchOptions()), compare=True)
    assert model.index(by_path(model)["f.md"], Column.MOVE).data() == "new"


def test_proxy_sorts_numbers_and_puts_absent_ranks_last() -> None:
    model = ResultsModel()
    model.set_response(response())
    proxy = ResultsProxy()
    proxy.setSourceModel(model)
    proxy.sort(Column.VEC_RANK, Qt.SortOrder.AscendingOrder)
    shown = [proxy.index(r, Column.VEC_RANK).data() for r in range(proxy.rowCount())]
    assert shown[:3] == ["1", "2", "3"] and shown[3:] == [ABSENT, ABSENT]
    proxy.sort(Column.FUSED, Qt.SortOrder.DescendingOrder)
    scores = [proxy.index(r, Column.FUSED).data(Role.FUSED) for r in range(proxy.rowCount())]
    assert scores == sorted(scores, reverse=True)


def test_share_role_splits_the_bar_by_contribution() -> None:
    model = ResultsModel()
    model.set_response(response())
    top = model.index(0, Column.SHARE).data(Role.SHARE)
    assert top[0] + top[1] == pytest.approx(1.0)  # the top hit fills the bar
    c = model.index(by_path(model)["c.md"], Column.SHARE).data(Role.SHARE)
    assert c[1] == 0.0 and 0 < c[0] < 1


def test_names_and_titles_are_shown_with_their_controls_escaped() -> None:
    c = candidates()
    c.lexical = [("evil\u202egpj.md", 1.0, "a <mark>snip</mark>pet \u202eevil")]
    c.vector = []
    c.notes = {
        "evil\u202egpj.md": NoteInfo("evil\u202egpj.md", "Title\u202eevil\x1b]0;x\a", None, (), 0)
    }
    model = ResultsModel()
    model.set_response(fuse(c, SearchOptions(mode="fts")))
    path = model.index(0, Column.PATH).data()
    title = model.index(0, Column.TITLE).data()
    tip = model.index(0, Column.TITLE).data(Qt.ItemDataRole.ToolTipRole)
    assert path == "evil\\u202egpj.md"  # not "evildm.jpg" on screen
    assert title == "Title\\u202eevil\\x1b]0;x\\x07"
    for shown in (path, title, tip, model.cell(0, Column.PATH)[0]):
        assert "\u202e" not in shown and "\x1b" not in shown, shown
    assert "\\u202e" in tip and "<b>snip</b>" in tip
    assert model.index(0, 0).data(Role.PATH) == "evil\u202egpj.md"  # the real name, for actions


def test_rows_are_muted_when_no_hit_is_a_close_match() -> None:
    model = ResultsModel()
    close = replace(response(), close_match=True)
    model.set_response(close)
    rows = by_path(model)
    foreground, background = Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.BackgroundRole
    assert not model.muted
    assert model.index(rows["c.md"], Column.TITLE).data(Role.MUTED) is False
    assert model.index(rows["c.md"], Column.TITLE).data(foreground) is None
    model.set_response(replace(close, close_match=False))
    colours = tints()
    assert model.muted
    muted = model.index(0, Column.TITLE).data(foreground)
    assert isinstance(muted, QColor) and muted.isValid()
    for row in range(model.rowCount()):
        assert model.index(row, Column.TITLE).data(Role.MUTED) is True
        for column in (Column.RANK, Column.TITLE, Column.PATH, Column.FUSED, Column.VEC_RANK):
            assert model.index(row, column).data(foreground) == muted
    rows = by_path(model)
    fts = model.index(rows["c.md"], Column.TITLE).data(background).color()
    vector = model.index(rows["e.md"], Column.TITLE).data(background).color()
    base = QApplication.palette().color(QPalette.ColorRole.Base)
    assert fts not in (colours.fts, base) and vector not in (colours.vector, base)
    assert fts.blue() > fts.red() and vector.red() > vector.blue()  # still blue and amber
    model.set_response(replace(close, close_match=None))  # a listing: nothing to say
    assert not model.muted and model.index(0, Column.TITLE).data(foreground) is None


def test_muted_tints_stay_blue_and_amber_in_both_palettes() -> None:
    for palette in (light_palette(), dark_palette()):
        colours, base = tints(palette), palette.color(QPalette.ColorRole.Base)
        fts, vector = washed(colours.fts, base), washed(colours.vector, base)
        assert fts.blue() - fts.red() >= 12 and vector.red() - vector.blue() >= 12
        for tint, quiet in ((colours.fts, fts), (colours.vector, vector)):
            assert abs(quiet.lightness() - base.lightness()) < abs(
                tint.lightness() - base.lightness()
            )


def test_the_path_s_tooltip_holds_all_of_it_then_the_passage() -> None:
    """The Path cell elides from the left (the delegate): its tooltip holds the whole path."""
    c = candidates()
    long = "travel/2023/summer/saxon-switzerland/<walks> & nights/long-weekend.md"
    c.lexical = [(long, 1.0, "the <mark>walk</mark> over the rocks")]
    c.vector = []
    c.notes = {long: NoteInfo(long, "Long weekend", None, (), 0)}
    model = ResultsModel()
    model.set_response(fuse(c, SearchOptions(mode="fts")))
    tip = model.index(0, Column.PATH).data(Qt.ItemDataRole.ToolTipRole)
    escaped = "travel/2023/summer/saxon-switzerland/&lt;walks&gt; &amp; nights/long-weekend.md"
    assert tip.startswith(f"<nobr>{escaped}</nobr><br>")  # rich text: shown as written
    assert "<b>Long weekend</b>" in tip and "<b>walk</b>" in tip
    assert model.index(0, Column.PATH).data() == long  # the cell's text: all of it, elided
    # Without a passage the tooltip is the path alone.
    c.lexical = [(long, 1.0, "")]
    model.set_response(fuse(c, SearchOptions(mode="fts")))
    assert model.index(0, Column.PATH).data(Qt.ItemDataRole.ToolTipRole) == (
        f"<nobr>{escaped}</nobr>"
    )
