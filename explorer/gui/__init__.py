"""Everything Qt: the explorer window over the same core the command line uses.

Its sub-packages, each importing only those listed after it: :mod:`~explorer.gui.window` (the
application, the main window that wires it together, menus, settings), then side by side
:mod:`~explorer.gui.panels` (docks and dialogs), :mod:`~explorer.gui.results` (the table),
:mod:`~explorer.gui.preview` (the selected note) and :mod:`~explorer.gui.statusbar`, and under
them all :mod:`~explorer.gui.core`, what they share.

The path of the data through this package: :mod:`~explorer.gui.core.session` holds one open vault
(its live index, the one writer, bridged by :mod:`~explorer.gui.core.live_bridge`, and one reader,
:mod:`explorer.live.reader`, that answers the search and every panel);
:mod:`~explorer.gui.core.search_flow` keeps the query on screen
(:mod:`explorer.search.answers.shown`) and re-fuses its two lists on every change of the
:mod:`~explorer.gui.panels.fusion_controls`; :mod:`~explorer.gui.results.results_model` holds the
hits as one role-driven table model, :mod:`~explorer.gui.results.delegates` paints it (tints,
contribution bars), :mod:`~explorer.gui.preview.preview` renders the selected note
(:mod:`explorer.preview`) and explains its score; :mod:`~explorer.gui.window.main_window` wires it
together and :mod:`~explorer.gui.window.app` starts it.  Work runs off the GUI thread
(:mod:`~explorer.gui.core.workers`); a :mod:`~explorer.gui.statusbar.stall` monitor measures how
well that holds.  Nothing outside this package imports Qt.
"""
