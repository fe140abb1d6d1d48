"""Searching the index, in five rooms, each importing only the rooms below it:

- ``answers``: what a search gives back beyond the hits — the search a command runs
  (answer.py), the query on screen (shown.py), saved and recent searches, facets, the
  verdict, comparing two settings, related notes;
- ``explain``: why a note is where it is, and what would change it (what-if);
- ``fusion``: the result types, the evidence each list gives, every fusion, the sort, and
  the searcher that fetches both lists and fuses them (hybrid.py, cached.py);
- ``lists``: the lexical list (FTS5 bm25 passes), the title matches, the snippets, the
  per-chunk scores of the vector list;
- ``query``: the query parsed, its filters (as SQL and as id sets), and every search
  setting (options.py).
"""
