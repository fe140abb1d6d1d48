"""Searching the index: query parsing, the lexical and vector lists, fusion, orchestration."""
