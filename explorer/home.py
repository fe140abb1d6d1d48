"""``~`` in a path the user gives (a vault, ``--data-dir``, ``$VAULT_EXPLORER_DATA``,
``--model``, a dataset): the one expansion every command, the window and the server use.

``Path.expanduser`` raises ``RuntimeError`` for ``~nosuchuser`` (and for ``~`` when no home
folder can be found); here that is :class:`HomeUnknown`, one line for the user, which the
command line reports with exit status 2 like any other bad input.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from explorer.errors import UserError


class HomeUnknown(UserError, ValueError):
    """``~`` or ``~user`` names no home folder: one line to show."""


def expand_home(path: str | os.PathLike[str]) -> Path:
    """``path`` with a leading ``~`` or ``~user`` replaced by that home folder."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        head = re.split(r"[/\\]", os.fspath(path), maxsplit=1)[0]
        if head == "~":
            raise HomeUnknown(
                "cannot expand ~: no home folder is known (set HOME, or give the full path)"
            ) from None
        raise HomeUnknown(f"cannot expand {head}: no such user") from None
