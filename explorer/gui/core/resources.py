"""Finding the files the window ships with: icon, stylesheet, bundled sample vault.

They are package data, found by :mod:`explorer.resources` (installed, editable or PyInstaller);
this module only adds what the window wants on top.
"""

from __future__ import annotations

from pathlib import Path

from explorer import resources as _core

APP_ID = "io.github.vault_explorer.VaultExplorer"


def resources_dir() -> Path:
    """The installed resources folder, wherever this copy of the program was installed from."""
    return _core.resources_dir()


def icon_path() -> Path:
    return _core.icon_path()


def stylesheet() -> str:
    """The application stylesheet (empty if it is missing: the window still works)."""
    try:
        return _core.stylesheet_path().read_text(encoding="utf-8")
    except OSError:
        return ""


def sample_vault() -> Path:
    """The bundled sample vault."""
    return _core.sample_vault_dir()
