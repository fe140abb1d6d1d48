"""Walking a vault: every note file with its size and modification time.

The walk never follows symbolic links to folders (a link loop must not hang the scan) and never
fails as a whole: a folder it cannot list is reported as skipped, and the rest is still walked.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from explorer.vault.ignore import IgnoreRules

MAX_NOTE_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class FileStat:
    """One note file as the file system describes it, before it is read."""

    rel: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class ScanResult:
    """The notes of a vault, and the paths that were passed over with the reason why."""

    files: dict[str, FileStat] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def rel_path(root: Path, path: Path) -> str:
    """The note id of ``path``: its vault-relative POSIX path."""
    return path.relative_to(root).as_posix()


def scan_vault(root: Path, rules: IgnoreRules | None = None, under: str = "") -> ScanResult:
    """Every note under ``root`` (or its sub-folder ``under``) that the ignore rules let through."""
    rules = rules or IgnoreRules.for_vault(root)
    result = ScanResult()
    for entry, reason in _walk(root, root / under if under else root, rules):
        if reason is not None:
            result.skipped[entry] = reason
            continue
        st = _stat(root / entry)
        if isinstance(st, str):
            result.skipped[entry] = st
        elif st.st_size > MAX_NOTE_BYTES:
            result.skipped[entry] = f"too large ({st.st_size:,} bytes, limit {MAX_NOTE_BYTES:,})"
        else:
            result.files[entry] = FileStat(entry, st.st_size, st.st_mtime_ns)
    return result


def stat_note(root: Path, rel: str) -> FileStat | str:
    """The stat of one note, or the reason it cannot be a note right now."""
    st = _stat(root / rel)
    if isinstance(st, str):
        return st
    if st.st_size > MAX_NOTE_BYTES:
        return f"too large ({st.st_size:,} bytes, limit {MAX_NOTE_BYTES:,})"
    return FileStat(rel, st.st_size, st.st_mtime_ns)


def _stat(path: Path) -> os.stat_result | str:
    try:
        st = path.stat()
    except FileNotFoundError:
        return "vanished or a broken link"
    except OSError as exc:
        return f"cannot stat: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    return st


def _walk(root: Path, folder: Path, rules: IgnoreRules) -> Iterator[tuple[str, str | None]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        if folder != root:
            yield rel_path(root, folder) + "/", f"cannot list folder: {exc.strerror or exc}"
            return
        raise
    for entry in entries:
        rel = rel_path(root, Path(entry.path))
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_link = entry.is_symlink()
        except OSError:
            continue
        if is_dir:
            if not rules.ignores_dir(rel):
                yield from _walk(root, Path(entry.path), rules)
        elif not rules.ignores_file(rel):
            if is_link and _link_is_dir(entry):
                continue
            yield rel, None


def _link_is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False
