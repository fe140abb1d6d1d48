"""The Help menu's texts: the query syntax (the core's table, :mod:`explorer.search.query.syntax`)
and the about box."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from explorer.search.query import syntax

SYNTAX_HELP = (
    syntax.html_table() + "<p>Clicking a tag or a folder in the preview adds its filter.</p>"
    "<p>Keys: Ctrl+K / Ctrl+L search field · Esc clear · ↓ to the results · Enter open the "
    "note · Ctrl+C copy its path · 0–3 grade it for the query (Delete removes the grade) · "
    "Ctrl+1/2/3 mode · Ctrl+B pin the "
    "settings as a baseline, Ctrl+Shift+B unpin · Ctrl+Shift+W why not this note · Ctrl+Shift+A "
    "around this note · Alt+Left / Alt+Right back and forward through the notes opened in the "
    "preview · F5 reconcile the index</p>"
)


#: The room left around the dialog on its screen (a panel, a title bar, a margin).
SCREEN_MARGIN = 80


class SyntaxDialog(QDialog):
    """The query syntax in a scrolling page with an OK button, never taller than its screen
    (a message box grew to the text's 1,439 pixels, its button off a laptop's screen)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Query Syntax")
        self.text = QTextBrowser(self)
        self.text.setOpenExternalLinks(False)
        self.text.setHtml(SYNTAX_HELP)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok, self)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)

    def fit(self, available: QRect) -> None:
        """As tall as the text wants, up to ``available`` less :data:`SCREEN_MARGIN`."""
        width = min(640, available.width() - SCREEN_MARGIN)
        self.text.document().setTextWidth(width - 40)
        wanted = int(self.text.document().size().height()) + 90
        self.resize(width, max(240, min(wanted, available.height() - SCREEN_MARGIN)))


def show_syntax(parent: QWidget, available: QRect | None = None) -> SyntaxDialog:
    """Open Help ▸ Query Syntax beside ``parent``, fitted to ``available`` (its screen)."""
    dialog = SyntaxDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    screen = parent.screen()
    dialog.fit(available if available is not None else screen.availableGeometry())
    dialog.open()
    return dialog


def show_about(parent: QWidget) -> None:
    from explorer import __version__

    QMessageBox.about(
        parent,
        "About Vault Explorer",
        f"<p><b>Vault Explorer</b> {__version__}</p>"
        "<p>Hybrid search (SQLite FTS5 + embeddings, each list's evidence calibrated per "
        "query and fused) over a folder of markdown notes, with the ranking made visible.</p>",
    )
