"""Obsidian vaults: whether a folder is one, and the URI that opens one of its notes in Obsidian.

Obsidian keeps its settings in a ``.obsidian`` folder at the vault's root; a folder with one is a
vault Obsidian knows by the folder's name.  ``obsidian://open?vault=NAME&file=PATH`` opens the
note at the vault-relative ``PATH`` of the vault called ``NAME``.  Obsidian reads both values
percent-decoded, so every character outside the unreserved set is encoded, ``/`` included
(Obsidian's own examples write ``path%2Fto%2Fnote``): a ``#`` would start a fragment, a ``&`` the
next parameter, a ``+`` would read as a space.  Non-ASCII names are UTF-8, percent-encoded.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

#: The folder Obsidian keeps a vault's settings in.
SETTINGS_DIR = ".obsidian"


def is_obsidian_vault(root: Path) -> bool:
    """Whether ``root`` is an Obsidian vault: it has a ``.obsidian`` folder."""
    return (root / SETTINGS_DIR).is_dir()


def open_uri(root: Path, path: str) -> str:
    """The ``obsidian://open`` URI of the note at vault-relative ``path`` of the vault ``root``."""
    name = Path(root).name
    file = path.replace("\\", "/")
    return f"obsidian://open?vault={quote(name, safe='')}&file={quote(file, safe='')}"
