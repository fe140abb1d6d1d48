"""A note path as a person or a client types it, made into a note id: the one normaliser that
``get_note``, ``related`` and ``explain`` (command line and MCP) and ``linkto:`` share.

A note id is the note's vault-relative POSIX path, as the scanner stores it, so every path that
search shows is one of them.  What is typed may differ from it harmlessly: ``./a.md``,
``sub//x.md`` and ``a.md/`` name ``a.md``, ``sub/x.md`` and ``a.md``.  A backslash is the hard
case: on Windows it is a separator (and no file name holds one), while on Linux and macOS it is a
character like any other (``back\\slash.md`` is one file at the vault's root).  So on POSIX a
backslash is kept as it is when a note of that exact name exists, and read as a separator
otherwise (a path pasted from Windows still works); on Windows it is always a separator.  And
a name as the text output shows it, its control characters escaped by
:func:`explorer.display.safe_text` (``bell\\x07.md``), names the note that has them.

Refused, with one line (:class:`BadNotePath`): an empty path, a NUL, a ``file:`` URI, an
absolute path, a drive or UNC prefix, and ``..`` (a way out of the vault).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import PurePosixPath, PureWindowsPath

from explorer.display import is_unsafe
from explorer.errors import UserError

#: Whether ``\\`` separates folders here (Windows); elsewhere it may be part of a name.
BACKSLASH_SEPARATES = os.sep == "\\"


class BadNotePath(UserError, ValueError):
    """A path that cannot name a note of the vault: one line to show."""


def note_id(path: str, exists: Callable[[str], bool] | None = None) -> str:
    """``path`` as a note id.  ``exists`` tells whether a note has a given id (the index, or the
    vault on disk): on POSIX a note whose exact name is ``path`` (cleaned of ``.`` and empty
    segments) is that note, backslash, colon and all; any other path is read with ``\\`` as a
    separator and refused when it is absolute, a drive, a UNC path or a ``file:`` URI."""
    if exists is not None:
        for name in _exact(path):
            if exists(name):
                return name
    return _separated(path)


def readings(path: str) -> list[str]:
    """The note ids ``path`` may mean, the one to prefer first (see :func:`note_id`): on POSIX
    the exact name and then, when it differs, the name with ``\\`` as a separator.
    :class:`BadNotePath` when no reading can be a note id."""
    found = _exact(path)
    try:
        plain = _separated(path)
    except BadNotePath:
        if not found:
            raise
        return found
    return found if plain in found else [*found, plain]


def _exact(path: str) -> list[str]:
    """The names ``path`` may be exactly, best first: itself (on POSIX), then itself with the
    escapes :func:`explorer.display.safe_text` writes undone (``bell\\x07.md`` as the text
    output shows a name with a BEL in it)."""
    found = [] if (literal := _literal(path)) is None else [literal]
    shown = _ESCAPE.sub(_unescape, path)
    if shown == path:
        return found
    try:
        name = _separated(shown) if BACKSLASH_SEPARATES else _literal(shown)
    except BadNotePath:
        name = None
    return found if name is None or name in found else [*found, name]


#: An escape of :func:`explorer.display.safe_text`.
_ESCAPE = re.compile(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\U([0-9a-f]{8})")


def _unescape(match: re.Match[str]) -> str:
    """The character ``match`` escapes, if safe_text escapes it; else the escape as it is."""
    ch = chr(int(next(g for g in match.groups() if g is not None), 16))
    return ch if is_unsafe(ch) and ch != "\x00" else match.group(0)


def _literal(path: str) -> str | None:
    """``path`` as an exact POSIX name, or ``None`` (on Windows, or when it cannot be one)."""
    if BACKSLASH_SEPARATES or not path.strip() or "\x00" in path:
        return None
    try:
        return _segments(path, path)
    except BadNotePath:
        return None


def _separated(path: str) -> str:
    """``path`` with ``\\`` as a separator, as a note id, or :class:`BadNotePath`."""
    if not path.strip() or "\x00" in path:
        raise BadNotePath("give a note's path relative to the vault (as search returns it)")
    if path[:5].lower() == "file:":
        raise BadNotePath(f"{path} is a file: URI; give the note's path relative to the vault")
    rel = path.replace("\\", "/")
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(path).drive:
        raise BadNotePath(f"{path} is an absolute path; give the note's path relative to the vault")
    return _segments(rel, path)


def _segments(rel: str, path: str) -> str:
    """``rel`` with ``.`` and empty segments dropped (``./a``, ``a//b``, ``a/``); a leading
    ``/`` or a ``..`` segment is refused."""
    if rel.startswith("/"):
        raise BadNotePath(f"{path} is an absolute path; give the note's path relative to the vault")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise BadNotePath(f"{path} leads out of the vault; give a path inside it")
    if not parts:
        raise BadNotePath("give a note's path relative to the vault (as search returns it)")
    return "/".join(parts)
