"""The SQLite index of a vault: notes and FTS5 for words, chunk vectors for meaning."""
