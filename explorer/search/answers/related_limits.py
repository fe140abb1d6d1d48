"""How many related notes a caller may ask for: the bounds of a ``related`` request, apart from
the computation (:mod:`explorer.search.answers.related`, which needs numpy), so that the command
line's parser and a request's check read them without loading it."""

#: Related notes listed unless told.
DEFAULT_LIMIT = 10
#: The most a caller may ask for.
MAX_LIMIT = 100
