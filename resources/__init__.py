"""Package data of Vault Explorer, installed as ``explorer._resources``.

This folder is mapped into the package by ``pyproject.toml`` (``package-dir``); read it through
``explorer.resources``, never by a path relative to the sources.
"""
