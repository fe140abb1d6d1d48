"""The results delegate on its own: how a cell's text is cut when its column is too narrow."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication

from explorer.gui.results.delegates import elide_mode, elided
from explorer.gui.results.results_model import Column

PATH = "travel/2023/summer/saxon-switzerland/long-weekend.md"


def test_a_path_elides_from_the_left_so_the_file_name_stays_whole(qapp: QApplication) -> None:
    """Cut in the middle ("travel…end.md") no part of a path was readable."""
    assert elide_mode(Column.PATH) == Qt.TextElideMode.ElideLeft
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
    assert elide_mode(Column.TITLE) == Qt.TextElideMode.ElideRight
