"""The docked panels and dialogs: quality, sweep, why-not, fusion controls (and their flow layout)
and the skipped-files dialog."""
