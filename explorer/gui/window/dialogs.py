"""The window's dialogs and floating panels: Skipped Files, Tune on Judgments, Why Not This Note,
Saved Searches.

Each is made on first use for the open vault and kept while that vault is open (a new vault's
session makes a new one); :class:`WindowDialogs` holds them for the window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from explorer.gui.panels.skipped_dialog import SkippedDialog
from explorer.gui.panels.sweep_panel import SweepPanel
from explorer.gui.panels.why_not import WhyNotDialog
from explorer.gui.window.parts import WindowParts
from explorer.gui.window.saved_menu import SavedSearchesDialog


class WindowDialogs:
    """The dialogs of one window."""

    def __init__(self, window: WindowParts) -> None:
        self.window = window
        self.skipped: SkippedDialog | None = None  # File ▸ Skipped Files…
        self.tune: SweepPanel | None = None  # View ▸ Tune on Judgments…, of one vault
        self.why_not: WhyNotDialog | None = None  # Search ▸ Why Not This Note…, of one vault
        self.saved: SavedSearchesDialog | None = None  # Search ▸ Manage Saved Searches…

    def show_skipped(self) -> None:
        dialog = SkippedDialog(self.window.health, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.skipped = dialog

    def show_tune(self) -> None:
        """View ▸ Tune on Judgments…: sweep the fusion settings on this vault's judged queries
        (from the window's current settings); "Apply best" sets the fusion controls."""
        window = self.window
        if window.session is None:
            window.statusBar().showMessage("Open a vault to tune on its judgments", 5000)
            return
        panel = self.tune
        if panel is None or panel.session is not window.session:
            if panel is not None:
                panel.stop()
                panel.deleteLater()
            panel = SweepPanel(window.session, window.options, window.fusion.apply_preset, window)
            window.vaultOpened.connect(panel.vault_changed)
            window.fusion.changed.connect(panel.current_changed)
            self.tune = panel
            panel.start()
        panel.show()
        panel.raise_()
        panel.activateWindow()

    def show_why_not(self, path: str | None = None) -> WhyNotDialog | None:
        """Search ▸ Why Not This Note… (or a hit's Why Here?): every reason a note is where it
        is for the field's query and the settings on screen; with ``path``, explained at once."""
        window = self.window
        if window.session is None:
            window.statusBar().showMessage("Open a vault to ask why a note is not shown", 5000)
            return None
        query, options = window.search_field.text(), window.options()
        dialog = self.why_not
        if dialog is None or dialog.session is not window.session:
            if dialog is not None:
                dialog.close()
                dialog.deleteLater()
            dialog = WhyNotDialog(window.session, query, options, window)
            self.why_not = dialog
        else:
            dialog.set_context(query, options)
        if path is not None:
            dialog.explain_path(path)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        if path is None:
            dialog.note_field.setFocus()
        return dialog

    def show_saved(self) -> SavedSearchesDialog:
        """Search ▸ Manage Saved Searches…: run or delete the open vault's saved searches."""
        dialog = self.saved
        if dialog is None:
            dialog = SavedSearchesDialog(self.window.history, self.window)
            dialog.runRequested.connect(self.window.searches.run)
            self.saved = dialog
        dialog.refill()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def close(self) -> None:
        """The window closes: stop the tuning sweep (waiting for it)."""
        if self.tune is not None:
            self.tune.stop(wait=True)
