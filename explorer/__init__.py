"""Vault Explorer: hybrid search over a folder of markdown notes, with the ranking made visible."""

__version__ = "0.1.0"
