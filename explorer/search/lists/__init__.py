"""The lists a search fetches: the lexical list (FTS5 bm25 passes), the title matches, the
bounded snippets, and the scores of a note's chunks against the query vector."""
