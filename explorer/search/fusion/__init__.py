"""Evidence and fusion: the result types, each list's calibrated evidence, every fusion (bare
ranked lists, then a search's candidates), the sort, and the searcher that fetches the lists
and fuses them (hybrid.py; cached.py re-fuses fetched lists per setting)."""
