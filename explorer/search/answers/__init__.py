"""Results and answers: the search a command runs, the query on screen, saved and recent
searches, facets, the verdict, two settings compared, and related notes."""
