"""Reading the vault: which files are notes, and what a note says."""
