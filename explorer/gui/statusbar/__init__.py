"""The status bar: its widgets and the stall monitor that measures the GUI thread."""
