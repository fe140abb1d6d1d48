"""The Help menu's texts: the query syntax and the about box."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

SYNTAX_HELP = (
    "<p><b>words</b> — notes with all of them first, then any of them<br>"
    '<b>"a phrase"</b> — the words in this order<br>'
    "<b>-word</b> — leave out notes with it<br>"
    "<b>a OR b</b> — either word<br>"
    "<b>pre*</b> — words starting with it<br>"
    "<b>tag:name</b>, <b>path:folder/</b> — filters (click a tag or folder in the preview to "
    "add one)<br>"
    '<b>linkto:Note</b>, <b>linkedfrom:"Some note"</b> — notes that link to a note, notes a '
    "note links to (a path, a name or an alias)</p>"
    "<p>An empty query lists the 20 most recently modified notes.</p>"
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
