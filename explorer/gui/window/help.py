"""The Help menu's texts: the query syntax (the core's table, :mod:`explorer.search.syntax`)
and the about box."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.search import syntax

SYNTAX_HELP = (
    syntax.html_table() + "<p>Clicking a tag or a folder in the preview adds its filter.</p>"
    "<p>Keys: Ctrl+K / Ctrl+L search field · Esc clear · ↓ to the results · Enter open the "
    "note · Ctrl+C copy its path · 0–3 grade it for the query (Delete removes the grade) · "
    "Ctrl+1/2/3 mode · Ctrl+B pin the "
    "settings as a baseline, Ctrl+Shift+B unpin · Ctrl+Shift+W why not this note · Ctrl+Shift+A "
    "around this note · Alt+Left / Alt+Right back and forward through the notes opened in the "
    "preview · F5 reconcile the index</p>"
)


def show_syntax(parent: QWidget) -> None:
    QMessageBox.information(parent, "Query syntax", SYNTAX_HELP)


def show_about(parent: QWidget) -> None:
    from explorer import __version__

    QMessageBox.about(
        parent,
        "About Vault Explorer",
        f"<p><b>Vault Explorer</b> {__version__}</p>"
        "<p>Hybrid search (SQLite FTS5 + embeddings, each list's evidence calibrated per "
        "query and fused) over a folder of markdown notes, with the ranking made visible.</p>",
    )
