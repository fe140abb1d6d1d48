"""Which paths of a vault are not notes.

Hidden folders (``.git``, ``.obsidian``, ``.trash``, …) and ``node_modules`` are never notes; a
``.explorerignore`` file at the vault root adds gitignore-style patterns.  The rules are evaluated
on vault-relative POSIX paths so the scanner and the watcher agree on every path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

import pathspec

NOTE_SUFFIXES = (".md", ".markdown")
IGNORE_FILE = ".explorerignore"
ALWAYS_IGNORED_DIRS = frozenset({"node_modules"})
#: Lock and backup files editors leave beside a note (Emacs ``.#note.md``, LibreOffice ``.~lock``).
EDITOR_DROPPINGS = (".#", ".~")
#: More than any list of patterns needs; the rest of a bigger file is not read.
MAX_IGNORE_BYTES = 1024 * 1024


class IgnoreRules:
    """Decides, for a vault-relative path, whether the scanner and watcher should skip it."""

    def __init__(self, patterns: list[str] | None = None) -> None:
        self.patterns = list(patterns or [])
        self._spec = pathspec.GitIgnoreSpec.from_lines(self.patterns)

    @classmethod
    def for_vault(cls, root: Path) -> IgnoreRules:
        """Rules of ``root``: the built-in ones plus its ``.explorerignore``, if it is a readable
        regular file (a FIFO of that name is never waited on)."""
        text = _read_small_file(root / IGNORE_FILE)
        return cls() if text is None else cls(text.splitlines())

    def ignores_dir(self, rel: str) -> bool:
        """Whether a folder (vault-relative, POSIX) and everything below it is skipped."""
        parts = PurePosixPath(rel).parts
        if any(_hidden_or_vendored(p) for p in parts):
            return True
        return bool(self.patterns) and self._spec.match_file(rel.rstrip("/") + "/")

    def ignores_file(self, rel: str) -> bool:
        """Whether a file (vault-relative, POSIX) is not a note."""
        *folders, name = rel.split("/")  # string work: a path object per file cost 2 µs
        if not is_note_name(name) or name.startswith(EDITOR_DROPPINGS):
            return True
        # Hidden folders are ignored; a hidden *file* is a note (tldr's page for `.` is `..md`).
        if any(_hidden_or_vendored(p) for p in folders if p):
            return True
        return bool(self.patterns) and self._spec.match_file(rel)


def is_note_name(name: str) -> bool:
    """Notes are ``*.md`` and ``*.markdown`` files (case-insensitive suffix)."""
    return name.lower().endswith(NOTE_SUFFIXES)


def _hidden_or_vendored(part: str) -> bool:
    return part.startswith(".") or part in ALWAYS_IGNORED_DIRS


def _read_small_file(path: Path) -> str | None:
    """The text of the regular file ``path`` (its first :data:`MAX_IGNORE_BYTES`), or ``None``
    if it is missing, unreadable or not a regular file.  Opened without blocking: opening a
    FIFO for reading would wait for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = fh.read(MAX_IGNORE_BYTES)
        except OSError:
            return None
    return data.decode("utf-8", errors="replace")
