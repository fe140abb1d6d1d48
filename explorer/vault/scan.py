"""Walking a vault: every note file with its size and modification time, and reading one.

The walk never follows symbolic links to folders (a link loop must not hang the scan) and never
fails as a whole: a folder it cannot list is reported as skipped, and the rest is still walked.

A note is a regular file inside the vault.  A symbolic link to a file is a note only if its
target, fully resolved, is a regular file inside the vault (itself resolved): a link to
``/etc/passwd`` is listed as skipped, never read.  A FIFO or a device named ``x.md`` is never
opened (opening a FIFO blocks until someone writes to it).  The same rules hold for the full scan
(:func:`scan_vault`), for one path looked at again (:func:`stat_note`, the watcher's way) and for
the read itself (:func:`read_note`), which checks again what it opens.

A name that is not valid UTF-8 (Linux allows any bytes) cannot be stored in the index as text.
Such a note is listed as skipped, under its name with the odd bytes escaped (``caf\\xe9.md``, see
:func:`escape_name`), and the notes below a folder with such a name are listed the same way.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from explorer.vault.ignore import IgnoreRules

MAX_NOTE_BYTES = 5 * 1024 * 1024

NOT_UTF8_NAME = "file name is not valid UTF-8; rename it to index it"
LINK_OUT = "symlink to a file outside the vault"
NOT_REGULAR = "not a regular file"

#: Open flags for reading a note: never block on a FIFO, never follow a link that appeared since
#: the check (the target was resolved and checked; what is opened is that target).
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


@dataclass(frozen=True, slots=True)
class FileStat:
    """One note file as the file system describes it, before it is read."""

    rel: str
    size: int
    mtime_ns: int
    #: When the file was made, where the platform records it (``st_birthtime``), else None.
    birth_ns: int | None = None


#: The times SQLite's INTEGER holds in nanoseconds: 1677-09-21 to 2262-04-11.
_FIRST_NS, _LAST_NS = -(2**63), 2**63 - 1


def mtime_ns(st: os.stat_result) -> int:
    """The file's time in nanoseconds, a time beyond 2262 (a file system may hold one, set by
    ``touch``) as the last the index holds, so that the note is indexed."""
    return _held(st.st_mtime_ns)


def birth_ns(st: os.stat_result) -> int | None:
    """The file's birth time in nanoseconds, where the platform records it."""
    birth = getattr(st, "st_birthtime_ns", None)
    seconds = getattr(st, "st_birthtime", None)
    if birth is None and seconds is not None:
        birth = int(seconds * 1_000_000_000)
    return _held(int(birth)) if birth else None


def _held(ns: int) -> int:
    return max(_FIRST_NS, min(_LAST_NS, ns))


@dataclass(slots=True)
class ScanResult:
    """The notes of a vault, and the paths that were passed over with the reason why.

    Every path in it is valid UTF-8: ``files`` has only such names, ``skipped`` has the others
    escaped (:func:`escape_name`)."""

    files: dict[str, FileStat] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def rel_path(root: Path, path: Path) -> str:
    """The note id of ``path``: its vault-relative POSIX path."""
    return path.relative_to(root).as_posix()


def is_utf8_name(rel: str) -> bool:
    """Whether ``rel`` is text that UTF-8 can store (no surrogate escapes of odd bytes)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escape_name(rel: str) -> str:
    """``rel`` as valid UTF-8 text that shows its bytes faithfully: each byte of the name that is
    not UTF-8 becomes ``\\xNN`` (``caf\\xe9.md``); a valid name is returned unchanged."""
    if is_utf8_name(rel):
        return rel
    try:
        return os.fsencode(rel).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no file name decodes to
        return rel.encode("utf-8", "backslashreplace").decode("utf-8")


def scan_vault(root: Path, rules: IgnoreRules | None = None, under: str = "") -> ScanResult:
    """Every note under ``root`` (or its sub-folder ``under``) that the ignore rules let through."""
    root = root.resolve()
    rules = rules or IgnoreRules.for_vault(root)
    result = ScanResult()
    for entry, reason in _walk(root, root / under if under else root, rules):
        checked = reason or _check(str(root), entry)
        if isinstance(checked, tuple):
            st = checked[1]
            result.files[entry] = FileStat(entry, st.st_size, mtime_ns(st), birth_ns(st))
        else:
            result.skipped[escape_name(entry)] = checked or "vanished while scanning"
    return result


def is_vault_folder(root: Path, rel: str) -> bool:
    """Whether ``rel`` is a folder of the vault as the walk reaches it: a real folder, with no
    linked folder on the way (the walk never enters those)."""
    real_root = os.path.realpath(root)
    path = os.path.join(real_root, rel)
    return os.path.isdir(path) and os.path.realpath(path) == path


def stat_note(root: Path, rel: str) -> FileStat | str | None:
    """The stat of one note, the reason it cannot be a note right now, or ``None`` when there is
    nothing at ``rel`` that the scan would see (no file, or one below a linked folder)."""
    checked = _check_path(root, rel)
    if isinstance(checked, tuple):
        return FileStat(rel, checked[1].st_size, mtime_ns(checked[1]), birth_ns(checked[1]))
    return checked


def read_note(root: Path, rel: str) -> bytes | str | None:
    """The bytes of the note ``rel``; else the reason it cannot be read as a note (as
    :func:`stat_note` gives it), or ``None`` when it is gone.

    The file is checked again, and what is opened is checked once more on the open descriptor:
    a FIFO, a device, a file swapped for a link since the check, a file that turns out to lie
    outside the vault (through a linked folder) or a file grown past the size limit is refused,
    never waited on or read whole."""
    checked = _check(str(root), rel)
    if not isinstance(checked, tuple):
        return checked
    data = read_inside(str(root), checked[0], MAX_NOTE_BYTES)
    if isinstance(data, bytes) and len(data) > MAX_NOTE_BYTES:
        return f"too large (over {MAX_NOTE_BYTES:,} bytes)"
    return data


def read_inside(root: str, path: str, limit: int) -> bytes | str | None:
    """At most ``limit + 1`` bytes of ``path`` (more than ``limit`` means "too large"), if what
    opens is a regular file inside ``root``; else the reason, or ``None`` when it is gone.

    Opened non-blocking and without following a final link, then checked on the descriptor: a
    FIFO or a device is never waited on, a file swapped for a link or reached through a linked
    folder is refused, and nothing is ever read whole.  Notes and preview images both read so.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    with os.fdopen(fd, "rb") as fh:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return NOT_REGULAR
            if not _opened_inside(fd, path, root):
                return LINK_OUT
            return fh.read(limit + 1)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"


def _opened_inside(fd: int, path: str, root: str) -> bool:
    """Whether the file open as ``fd`` (opened as ``path``) lies inside the vault ``root``.

    Linux names the file really opened (``/proc/self/fd``), whatever links were on the way and
    whatever changed since they were checked; elsewhere ``path`` is resolved."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = os.path.realpath(path)
    if real.startswith(root.rstrip(os.sep) + os.sep):  # a real path under ``root``: inside
        return True
    real_root = os.path.realpath(root)
    return real.startswith(real_root.rstrip(os.sep) + os.sep)


def _check_path(root: Path, rel: str) -> tuple[str, os.stat_result] | str | None:
    """:func:`_check` for a path that did not come from the walk: it must also lie in a real
    folder of the vault (the walk never enters a linked folder, nor leaves the vault)."""
    real_root = os.path.realpath(root)
    path = os.path.join(real_root, rel)
    parent = os.path.dirname(path)
    if os.path.realpath(parent) != parent:  # a linked folder on the way, or a ".." in ``rel``
        return None
    return _check(real_root, rel)


def _check(root: str, rel: str) -> tuple[str, os.stat_result] | str | None:
    """The path to open for the note ``rel`` (its target, for a link) and its stat; else the
    reason it is no note, or ``None`` if nothing is there."""
    path = os.path.join(root, rel)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot stat: {exc.strerror or exc}"
    if not is_utf8_name(rel):
        return NOT_UTF8_NAME
    if stat.S_ISLNK(st.st_mode):
        try:
            path = os.path.realpath(path, strict=True)
            st = os.stat(path)
        except OSError as exc:  # dangling, a loop, or a folder on the way unreadable
            return f"broken symlink: {exc.strerror or exc}"
        real_root = os.path.realpath(root)
        if os.path.commonpath([real_root, path]) != real_root:
            return LINK_OUT
    if not stat.S_ISREG(st.st_mode):
        return NOT_REGULAR
    if st.st_size > MAX_NOTE_BYTES:
        return f"too large ({st.st_size:,} bytes, limit {MAX_NOTE_BYTES:,})"
    return path, st


def _walk(
    root: Path, folder: Path, rules: IgnoreRules, prefix: str | None = None
) -> Iterator[tuple[str, str | None]]:
    """The vault-relative path of every file below ``folder`` that ``rules`` let through, with
    the reason a folder cannot be listed.  ``prefix``: ``folder``'s own relative path and a
    ``/`` (worked out once per folder: a path object per file cost more than its stat)."""
    if prefix is None:
        prefix = "" if folder == root else rel_path(root, folder) + "/"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        if folder != root:
            yield prefix, f"cannot list folder: {exc.strerror or exc}"
            return
        raise
    for entry in entries:
        rel = prefix + entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_link = entry.is_symlink()
        except OSError:
            continue
        if is_dir:
            if not rules.ignores_dir(rel):
                yield from _walk(root, Path(entry.path), rules, rel + "/")
        elif not rules.ignores_file(rel):
            if is_link and _link_is_dir(entry):
                continue
            yield rel, None


def _link_is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False
