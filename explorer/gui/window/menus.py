"""The window's menus and help texts: File (vaults, index), View (fusion, tuning, theme), Help."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from explorer.gui.core.theme import THEMES

if TYPE_CHECKING:
    from explorer.gui.window.main_window import MainWindow

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


@dataclass
class Menus:
    open_vault: QAction
    recent: QMenu
    reconcile: QAction
    skipped: QAction
    themes: dict[str, QAction]
    tune: QAction
    why_not: QAction
    around: QAction
    distributions: QAction
    #: The Search menu (the model menu adds itself there).
    search: QMenu
    #: File ▸ Pause Embedding (checkable): holds the embedding of the vault's notes.
    pause_embedding: QAction


def build_menus(window: MainWindow) -> Menus:
    """Fill the window's menu bar; actions call the window's methods."""
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    open_vault = QAction("&Open Vault…", window)
    open_vault.setShortcut(QKeySequence.StandardKey.Open)
    open_vault.triggered.connect(window.choose_vault)
    file_menu.addAction(open_vault)
    recent = QMenu("Open &Recent", window)
    recent.aboutToShow.connect(window.fill_recent)
    file_menu.addMenu(recent)
    sample = QAction("Open &Sample Vault", window)
    sample.triggered.connect(window.open_sample_vault)
    file_menu.addAction(sample)
    file_menu.addSeparator()
    reconcile = QAction("&Reconcile Index Now", window)
    reconcile.setShortcut(QKeySequence("F5"))
    reconcile.triggered.connect(window.reconcile)
    file_menu.addAction(reconcile)
    pause = QAction("&Pause Embedding", window, checkable=True)
    pause.setToolTip(
        "Hold the embedding of the notes after the batch under way (meaning search then finds "
        "only the notes already embedded; words search is not affected)"
    )
    pause.toggled.connect(window.set_embedding_paused)
    file_menu.addAction(pause)
    skipped = QAction("&Skipped Files…", window)
    skipped.triggered.connect(window.show_skipped)
    file_menu.addAction(skipped)
    file_menu.addSeparator()
    quit_action = QAction("&Quit", window)
    quit_action.setShortcut(QKeySequence.StandardKey.Quit)
    quit_action.triggered.connect(window.close)
    file_menu.addAction(quit_action)

    search = bar.addMenu("&Search")
    why_not = QAction("Why &Not This Note…", window)
    why_not.setShortcut(QKeySequence("Ctrl+Shift+W"))
    why_not.setToolTip("Every reason a note is where it is for this query and these settings")
    why_not.triggered.connect(lambda: window.show_why_not())
    search.addAction(why_not)

    view = bar.addMenu("&View")
    reset = QAction("Reset &Fusion Settings", window)
    reset.triggered.connect(window.fusion.reset)
    view.addAction(reset)
    tune = QAction("T&une on Judgments…", window)
    tune.setToolTip("Score every fusion setting on this vault's graded queries; apply the best")
    tune.triggered.connect(window.show_tune)
    view.addAction(tune)
    quality = window.quality.toggleViewAction()
    quality.setText("&Quality Panel")
    quality.setToolTip("Judged queries with nDCG@10 per mode; grade a hit with keys 0–3")
    view.addAction(quality)
    spread = QAction("Score &Distributions", window, checkable=True)
    spread.setChecked(True)
    spread.setToolTip(
        "Under the results: the query's cosine over the vault and the lexical list's bm25 by "
        "pass, the hits marked"
    )
    spread.toggled.connect(window.distributions.setVisible)
    view.addAction(spread)
    around = window.around.toggleViewAction()
    around.setText("&Around This Note")
    around.setShortcut(QKeySequence("Ctrl+Shift+A"))
    around.setToolTip("Backlinks and related notes of the note in the preview")
    view.addAction(around)
    theme_menu = view.addMenu("&Theme")
    group = QActionGroup(window)
    themes: dict[str, QAction] = {}
    for theme in THEMES:
        action = QAction(theme.capitalize(), window, checkable=True)
        action.triggered.connect(lambda _=False, t=theme: window.set_theme(t))
        group.addAction(action)
        theme_menu.addAction(action)
        themes[theme] = action

    compare = bar.addMenu("&Compare")
    compare.setToolTipsVisible(True)
    compare.addAction(window.compare_bar.pin_action)
    compare.addAction(window.compare_bar.unpin_action)
    compare.addSeparator()
    for action in window.compare_bar.pair_actions:
        compare.addAction(action)

    help_menu = bar.addMenu("&Help")
    syntax = QAction("Query &Syntax", window)
    syntax.triggered.connect(lambda: show_syntax(window))
    help_menu.addAction(syntax)
    about = QAction("&About Vault Explorer", window)
    about.triggered.connect(lambda: show_about(window))
    help_menu.addAction(about)
    return Menus(
        open_vault, recent, reconcile, skipped, themes, tune, why_not, around, spread, search, pause
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
