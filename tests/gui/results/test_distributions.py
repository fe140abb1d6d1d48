"""The score distributions: the data drawn for a response (the vault's cosine histogram, the
hits' marks, bm25 by pass), and the marks really painted where the data says."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPalette
from pytestqt.qtbot import QtBot

from explorer.gui.core.theme import tints
from explorer.gui.results.distributions import BIN_WIDTH, DistributionsPanel, distributions
from explorer.index.vectors import SPREAD_BINS, CosineSpread
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import SearchOptions
from tests.search.helpers import candidates

#: Every note's best cosine for the query: the candidates' five and the rest of a small vault.
VAULT_COSINES = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.1, 0.12, 0.05, 0.0, -0.02, 0.11], "f4")
OPTIONS = SearchOptions(fusion="calibrated", min_rel=0.0)


def lists() -> Candidates:
    c = candidates()
    c.spread = CosineSpread.of(VAULT_COSINES)
    c.lexical_tiers = {
        path: tier for (path, _, _), tier in zip(c.lexical, (0, 1, 2, 2), strict=False)
    }
    return c


def test_the_vault_histogram_and_the_hits_marks_come_from_the_response() -> None:
    c = lists()
    response = fuse(c, OPTIONS)
    data = distributions(response, c)
    assert data.has_vector and data.notes == len(VAULT_COSINES)
    assert data.mean == pytest.approx(float(VAULT_COSINES.mean()))
    assert sum(data.bins) == len(VAULT_COSINES)  # only empty bins are left out
    assert data.low <= float(VAULT_COSINES.min()) and float(VAULT_COSINES.max()) < data.high
    assert (data.high - data.low) / BIN_WIDTH == pytest.approx(len(data.bins))
    assert len(data.bins) < SPREAD_BINS
    assert data.bins[data.bin_of(0.9)] >= 1 and data.bins[data.bin_of(0.8)] >= 1
    vector_hits = {h.path: h.vector_score for h in response.hits if h.vector_rank is not None}
    assert {m.path: m.value for m in data.cosines} == vector_hits
    assert len(vector_hits) == len(c.vector)
    # bm25 by the pass that found each candidate, the hits flagged.
    assert [m.path for m in data.bm25["phrase"]] == [c.lexical[0][0]]
    assert [m.path for m in data.bm25["all words"]] == [c.lexical[1][0]]
    assert [m.path for m in data.bm25["any word"]] == [p for p, _, _ in c.lexical[2:]]
    shown = {h.path for h in response.hits}
    assert all(m.hit == (m.path in shown) for marks in data.bm25.values() for m in marks)
    assert data.bm25_max == max(score for _, score, _ in c.lexical)


def test_each_mode_shows_the_lists_it_uses() -> None:
    c = lists()
    lexical = distributions(fuse(c, replace(OPTIONS, mode="fts")), c)
    assert lexical.has_lexical and not lexical.has_vector
    semantic = distributions(fuse(c, replace(OPTIONS, mode="semantic")), c)
    assert semantic.has_vector and not semantic.has_lexical
    assert not distributions(None, None).has_vector
    listing = replace(fuse(c, OPTIONS), listing=True)
    assert not distributions(listing, c).has_vector and not distributions(listing, c).has_lexical


def _pixel(image: QImage, x: float, y: float) -> QColor:
    ratio = image.devicePixelRatio()
    return image.pixelColor(int(x * ratio), int(y * ratio))


def test_the_marks_are_painted_where_the_data_says(qtbot: QtBot) -> None:
    c = lists()
    response = fuse(c, OPTIONS)
    panel = DistributionsPanel()
    qtbot.addWidget(panel)
    panel.resize(640, panel.sizeHint().height())
    panel.show_response(response, c)
    selected = response.hits[0].path
    panel.select(selected)
    image = panel.grab().toImage()
    colours = tints(panel.palette())
    highlight = panel.palette().color(QPalette.ColorRole.Highlight)
    vector_area, _ = panel.plots()
    middle = vector_area.center().y()
    for mark in panel.data.cosines:
        colour = highlight if mark.path == selected else colours.vector_bar
        assert _pixel(image, panel.x_of_cosine(mark.value), middle) == colour, mark
    for name, marks in panel.data.bm25.items():
        for mark in marks:
            if mark.hit and mark.path != selected:
                found = _pixel(image, panel.x_of_bm25(mark.value), panel.y_of_pass(name))
                assert found == colours.fts_bar, (name, mark)
    panel.show_response(None, None)
    assert not panel.data.has_vector
