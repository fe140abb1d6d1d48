"""The files Vault Explorer ships with: the sample vault, the icon, the stylesheet, judgments.

Their sources are the project's top-level ``resources/`` folder. ``pyproject.toml`` maps it into
the package as ``explorer._resources``, so a wheel, ``pip install .``, ``pipx`` and an editable
install all find it through :mod:`importlib.resources`; a PyInstaller build carries the same tree
under ``sys._MEIPASS`` (see ``packaging/vault-explorer.spec``). No Qt here: the command line and
the window both read it.
"""

from __future__ import annotations

import sys
from functools import cache
from importlib import resources as importlib_resources
from pathlib import Path

from explorer.errors import MachineError

PACKAGE = "explorer._resources"
"""The package that holds the resources once installed."""

BUNDLE_DIR = Path("explorer") / "_resources"
"""Where the resources sit inside a PyInstaller bundle (the same place as in the package)."""


class ResourcesMissing(MachineError, FileNotFoundError):
    """This copy of the program was installed without its resources."""


@cache
def resources_dir() -> Path:
    """The installed resources folder, as a real folder on disk.

    The indexer walks the sample vault, so a tree that is not a plain folder (a zipped install)
    is refused with :class:`ResourcesMissing` rather than half read.
    """
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        bundled = Path(frozen) / BUNDLE_DIR
        if bundled.is_dir():
            return bundled
    try:
        root = importlib_resources.files(PACKAGE)
    except ModuleNotFoundError:
        root = None
    if isinstance(root, Path) and root.is_dir():
        return root
    # A source checkout run without installing (``PYTHONPATH=.``, or an editable install made
    # before the package data existed): the sources themselves.
    source = Path(__file__).resolve().parents[1] / "resources"
    if (source / "sample-vault").is_dir():
        return source
    raise ResourcesMissing(
        f"this copy of Vault Explorer has no {PACKAGE} folder on disk "
        f"(found {root!r}); reinstall it from a wheel or a source checkout"
    )


def sample_vault_dir() -> Path:
    """The bundled sample vault."""
    return resources_dir() / "sample-vault"


def icon_path() -> Path:
    """The application icon (SVG)."""
    return resources_dir() / "icons" / "vault-explorer.svg"


def stylesheet_path() -> Path:
    """The window's Qt stylesheet."""
    return resources_dir() / "style" / "explorer.qss"


def judgments_dir() -> Path:
    """Judged question sets for the evaluation (``sample-vault.tsv``)."""
    return resources_dir() / "judgments"
