"""The status bar and the strips around the results, one widget a module: the index status
(:mod:`~explorer.gui.statusbar.index_status`) with its eliding label and bar
(:mod:`~explorer.gui.statusbar.elided`), the banner, the "no close match" line, the legend, the
summary's text, and the stall monitor that measures the GUI thread."""
