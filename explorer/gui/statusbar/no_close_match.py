"""The "no close match" line: when no hit clears the calibrated bar
(``SearchResponse.close_match`` is ``False``), one line over the results says so; the rows below
it are muted (:mod:`explorer.gui.results.results_model`)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QWidget,
)

from explorer.display import safe_text
from explorer.search.answers.verdict import closeness
from explorer.search.fusion.results import SearchResponse

#: The longest query the "no close match" line quotes in full (a longer one is cut with "…").
QUOTED_QUERY = 80


def no_close_match_text(response: SearchResponse | None) -> str | None:
    """The line said over hits none of which is a close match (plain text), or ``None``."""
    if response is None or response.listing or response.close_match is True:
        return None
    if not response.hits:
        return None  # the empty state says there are no results
    query = " ".join(safe_text(response.query).split())
    if len(query) > QUOTED_QUERY:
        query = query[: QUOTED_QUERY - 1].rstrip() + "…"
    return closeness(response, f"‘{query}’")


class NoCloseMatch(QLabel):
    """The "no close match" line: shown over results none of which is a close match."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noCloseMatch")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setToolTip(
            "No hit clears the calibrated bar: neither list holds strong evidence for any note "
            "(a cosine high above this query's spread over the vault, or the query's words). "
            "The rows are what comes nearest."
        )
        self.hide()

    def show_for(self, response: SearchResponse | None) -> None:
        text = no_close_match_text(response)
        self.setText(text or "")
        self.setVisible(text is not None)
