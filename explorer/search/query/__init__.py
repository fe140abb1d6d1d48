"""The query and its filters: the query parsed (words, phrases, exclusions, filters), the
filters as id sets, quoting, stop words, the syntax written once, and every search setting."""
