"""Explain and what-if: why a note is where it is for a query (the explanation, its
sentences), what would bring it into the top N, and the note's dates and path looked up."""
