"""The model a vault's meaning search uses, chosen per vault and remembered beside its index.

all-MiniLM-L6-v2 reads English; a vault mostly in another language reads better with the
multilingual model (README "Languages").  The choice is one line in a file next to the vault's
index (``<index>.model``), so every command and the window pick it up: ``--model`` and
``$VAULT_EXPLORER_MODEL`` still win when given, and no file means the default model.  Vectors are
kept per model, so choosing back and forth re-embeds nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.embed.models import DEFAULT_MODEL, ENV_MODEL, MULTILINGUAL
from explorer.files import write_whole
from explorer.index.db import index_path

__all__ = ["MULTILINGUAL", "choose_model", "chosen_model", "model_for", "model_given"]


def _choice_file(vault: Path, data: str | os.PathLike[str] | None) -> Path:
    return index_path(vault, data).with_suffix(".model")


def chosen_model(vault: Path, data: str | os.PathLike[str] | None = None) -> str | None:
    """The model chosen for ``vault``, or ``None`` (the default); an unreadable file is no
    choice."""
    try:
        name = _choice_file(vault, data).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name or None


def choose_model(
    vault: Path, model: str | None, data: str | os.PathLike[str] | None = None
) -> None:
    """Remember ``model`` for ``vault`` (``None`` or the default model: forget the choice).
    Written whole and owner-only, so a reader never sees half a name."""
    path = _choice_file(vault, data)
    if model is None or model == DEFAULT_MODEL:
        path.unlink(missing_ok=True)
        return
    write_whole(path, (model + "\n").encode("utf-8"))


def model_given(given: str | None) -> bool:
    """Whether the model was named for this run (``--model``, or the environment), so that a
    vault's choice does not apply."""
    return bool(given or os.environ.get(ENV_MODEL))


def model_for(
    vault: Path | None, given: str | None, data: str | os.PathLike[str] | None = None
) -> str | None:
    """The model a command runs with: ``--model`` (``given``), else ``$VAULT_EXPLORER_MODEL``
    (``None`` here: the embedder reads it), else the vault's chosen model, else ``None``."""
    if model_given(given) or vault is None:
        return given
    return chosen_model(vault, data)
