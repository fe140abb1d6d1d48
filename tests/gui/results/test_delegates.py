"""The results delegate on its own: how a cell's text is cut when its column is too narrow."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication

from explorer.gui.results.delegates import elide_path, elided
from explorer.gui.results.results_model import Column

PATH = "travel/2023/summer/saxon-switzerland/long-weekend.md"


def test_a_path_elides_from_the_left_so_the_file_name_stays_whole(qapp: QApplication) -> None:
    """Cut in the middle ("travel…end.md") no part of a path was readable."""
    metrics = QFontMetrics(QFont())
    width = metrics.horizontalAdvance("…/long-weekend.md") + 2
    shown = elided(PATH, Column.PATH, metrics, width)
    assert shown.startswith("…") and shown.endswith("/long-weekend.md")
    assert metrics.horizontalAdvance(shown) <= width
    assert elided(PATH, Column.PATH, metrics, metrics.horizontalAdvance(PATH) + 2) == PATH


def test_other_text_elides_at_its_end(qapp: QApplication) -> None:
    metrics = QFontMetrics(QFont())
    title = "Architecture review — the search service"
    shown = elided(title, Column.TITLE, metrics, metrics.horizontalAdvance("Architecture re…"))
    assert shown.startswith("Architecture") and shown.endswith("…")


def test_a_cut_path_keeps_its_first_folder_and_its_file_name(qapp: QApplication) -> None:
    """ "…ences.md" and "…t-files.md" (issue 46) told nothing: a path that must be cut shows
    "folder/…/name", then a shorter first folder, then as much of the name as fits."""
    metrics = QFontMetrics(QFont())
    assert elide_path(PATH, metrics, metrics.horizontalAdvance(PATH)) == PATH
    room = metrics.horizontalAdvance("travel/…/long-weekend.md")
    assert elided(PATH, Column.PATH, metrics, room) == "travel/…/long-weekend.md"
    two = "importing/text-files.md"
    cut = elide_path(two, metrics, metrics.horizontalAdvance("imp…/text-files.md"))
    assert cut.startswith("im") and cut.endswith("…/text-files.md")
    for width in (metrics.horizontalAdvance("…/long-we"), 40, 20):
        tiny = elide_path(PATH, metrics, width)
        assert "…" in tiny and metrics.horizontalAdvance(tiny) <= width, tiny


def test_a_name_too_long_for_its_cell_keeps_its_folder_and_start_and_ends_in_an_ellipsis(
    qapp: QApplication,
) -> None:
    """ "deck…s.md" (a top-level note) and "…nbook.md" (ops/deploy-runbook.md) at 1366 with
    both panels open showed neither the folder nor the name (issue 46)."""
    metrics = QFontMetrics(QFont())
    room = metrics.horizontalAdvance("deck-opti…")
    assert elide_path("deck-options.md", metrics, room).startswith("deck-")
    assert elide_path("deck-options.md", metrics, room).endswith("…")
    assert elide_path("studying.md", metrics, metrics.horizontalAdvance("studying…")) == (
        "studying…"  # the extension goes first
    )
    runbook = elide_path("ops/deploy-runbook.md", metrics, room)
    assert runbook.startswith("ops/de") and runbook.endswith("…"), runbook
    deep = elide_path("platform/windows/display-issues.md", metrics, room * 3 // 2)
    assert deep.startswith("platform/…/d") and deep.endswith("…"), deep
    for shown, width in ((runbook, room), (deep, room * 3 // 2)):
        assert metrics.horizontalAdvance(shown) <= width
    narrow = metrics.horizontalAdvance("platform/……")
    folder = elide_path("platform/windows/display-issues.md", metrics, narrow)
    assert folder == "platform/…", folder  # not "platform/……": no room for the name


def _bar_colours(share: tuple[float, ...]) -> set[str]:
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QColor, QImage, QPainter, QPalette

    from explorer.gui.results.delegates import ResultsDelegate

    image = QImage(200, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    palette = QPalette(QColor("white"))
    ResultsDelegate._paint_bar(painter, QRect(0, 0, 200, 20), share, palette, False)
    painter.end()
    return {image.pixelColor(x, 10).name() for x in range(200)}


def test_the_share_bar_paints_the_recency_prior_as_a_third_part(qapp: QApplication) -> None:
    from PySide6.QtGui import QColor, QPalette

    from explorer.gui.core.theme import tints
    from explorer.gui.results.delegates import recency_share
    from explorer.search.fusion.results import Hit

    contributions = {"fts": 0.4, "vector": 0.2, "recency": 0.15}
    hit = Hit("a.md", "A", "", 0.75, contributions, 1, 2, 1.0, 0.5, "both", None)
    share = (0.4 / 0.75, 0.2 / 0.75)  # over the top hit's score: this one
    third = recency_share(hit, share)
    assert third == pytest.approx(0.15 / 0.75)
    green = tints(QPalette(QColor("white"))).recency_bar.name()
    assert green in _bar_colours((*share, third))
    assert green not in _bar_colours(share)
    plain = Hit("b.md", "B", "", 0.6, {"fts": 0.4, "vector": 0.2}, 1, 2, 1.0, 0.5, "both", None)
    assert recency_share(plain, share) == 0.0
