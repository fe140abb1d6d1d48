"""Finding the files the window ships with: icon, stylesheet, bundled sample vault.

They live in the project's ``resources/`` folder (next to the package in a source checkout or an
editable install, under ``sys._MEIPASS`` in a PyInstaller build).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

APP_ID = "io.github.vault_explorer.VaultExplorer"


@cache
def resources_dir() -> Path:
    """The ``resources/`` folder, wherever this copy of the program was installed from."""
    frozen = getattr(sys, "_MEIPASS", None)
    candidates = [Path(frozen) / "resources"] if frozen else []
    candidates.append(Path(__file__).resolve().parents[2] / "resources")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[-1]


def icon_path() -> Path:
    return resources_dir() / "icons" / "vault-explorer.svg"


def stylesheet() -> str:
    """The application stylesheet (empty if it is missing: the window still works)."""
    try:
        return (resources_dir() / "style" / "explorer.qss").read_text(encoding="utf-8")
    except OSError:
        return ""


def sample_vault() -> Path:
    """The bundled sample vault."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return resources_dir() / "sample-vault"
    from explorer.cli import sample_vault as cli_sample

    return cli_sample()
