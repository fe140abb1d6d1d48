"""Everything Qt: the explorer window over the same core the command line uses.

The path of the data through this package: :mod:`~explorer.gui.session` holds one open vault
(its live index, the one writer, bridged by :mod:`~explorer.gui.live_bridge`, and one reader,
:mod:`explorer.live.reader`, that answers the search and every panel);
:mod:`~explorer.gui.search_flow` keeps the query on screen (:mod:`explorer.search.shown`) and
re-fuses its two lists on every change of the :mod:`~explorer.gui.fusion_controls`;
:mod:`~explorer.gui.results_model` holds the hits as one role-driven table model,
:mod:`~explorer.gui.delegates` paints it (tints, contribution bars),
:mod:`~explorer.gui.preview` renders the selected note (:mod:`explorer.preview`) and
explains its score; :mod:`~explorer.gui.main_window` wires it together and :mod:`~explorer.gui.app`
starts it.  Work runs off the GUI thread (:mod:`~explorer.gui.workers`); a
:mod:`~explorer.gui.stall` monitor measures how well that holds.  Nothing outside this package
imports Qt.
"""
