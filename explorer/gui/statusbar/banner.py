"""The banner over the results: a coloured strip that says, in words, why semantic search is not
part of the result (still loading, no model, a model that failed, embeddings pending), and what
keeps the index from following the vault: the machine (a full disk, no permission, a locked
database: what to do) or a bug; and each part of the query not read as written (a malformed
``[…]`` searched as text), as the command line says it on standard error."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QWidget,
)

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.gui.core.theme import tints
from explorer.live.problems import Problem
from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import Mode


def notes_text(response: SearchResponse | None) -> str | None:
    """The query's notes (rich text: a malformed ``[…]`` searched as text), or ``None``."""
    if response is None or not response.notes:
        return None
    return "<br>".join(f"<b>Note</b> — {html.escape(safe_text(n))}" for n in response.notes)


def banner_text(
    mode: str, provider: EmbedderProvider, response: SearchResponse | None
) -> str | None:
    """Why semantic search is not part of what is shown (rich text), or ``None`` if it is.

    The shown response says best (its reason: loading, failed, timed out, no vectors yet); with
    no response to go by (before the first search, or a listing), the model's state says.
    """
    if mode == Mode.FTS:
        return None
    state = provider.state
    if response is not None and not response.listing:
        if response.semantic.available:
            return None
        reason = response.semantic.reason or "unavailable"
    elif state in (ModelState.FAILED, ModelState.DISABLED):
        reason = provider.error or "no model"
    elif state in (ModelState.IDLE, ModelState.LOADING):
        reason = f"model {provider.name} is still loading"
    else:
        return None
    reason_html = html.escape(safe_text(reason))
    if state in (ModelState.IDLE, ModelState.LOADING) or "still loading" in reason:
        then = (
            "Hybrid shows the lexical result meanwhile."
            if mode == Mode.HYBRID
            else "Semantic mode has no results until it is ready."
        )
        return f"<b>Semantic search is loading</b> — {reason_html}. {then}"
    if "pending" in reason:
        then = (
            "Hybrid shows the lexical result meanwhile."
            if mode == Mode.HYBRID
            else "Semantic mode has no results until then."
        )
        return f"<b>Semantic search is not ready</b> — {reason_html}. {then}"
    then = (
        "Hybrid shows the lexical result."
        if mode == Mode.HYBRID
        else "Switch to Hybrid or Lexical for results."
    )
    return f"<b>Semantic search is unavailable</b> — {reason_html}. {then}"


def problem_text(problem: Problem) -> str:
    """What keeps the live index from following the vault, for the banner (rich text)."""
    message = html.escape(safe_text(problem.message))
    if problem.is_bug:
        return f"<b>The index is not being kept current because of a bug</b> — {message}."
    return f"<b>The index is not being kept current</b> — {message}."


class Banner(QFrame):
    """A coloured strip with a message; hidden when there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.label, 1)
        self._apply_colours()
        self.hide()

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self._apply_colours()
        self.show()

    def message(self) -> str:
        return self.label.text() if self.isVisible() else ""

    def _apply_colours(self) -> None:
        parent = self.parentWidget()
        t = tints(parent.palette() if parent is not None else None)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, t.banner)
        palette.setColor(QPalette.ColorRole.WindowText, t.banner_text)
        self.setPalette(palette)
        self.label.setPalette(palette)
