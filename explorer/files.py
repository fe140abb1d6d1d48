"""The program's own files: owner only, written whole, changed under a lock.

The data folder holds the notes' text (the index) and the owner's searches, so everything in it
is its owner's alone: folders 0700 (:data:`FOLDER_MODE`), files 0600 (:data:`FILE_MODE`),
set where each is made whatever the process's umask (:func:`make_private_folder`,
:func:`create_private`, :func:`write_whole`), and an existing folder made earlier with wider
modes tightened (:func:`tighten`).  A file is replaced whole (a temporary file, flushed to the
disk, moved over the old one), so a crash leaves the old or the new content, never half of
one.  A file that several processes change (the saved searches) is changed under an exclusive
lock on a lock file beside it (:func:`locked`; ``flock``, or ``msvcrt.locking`` on Windows),
the same primitives the writer's lease of an index takes (:mod:`explorer.index.lease`).

Nothing else of the program's here: every layer may use it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

#: The mode of every folder the program makes for its own files, and of every file in them.
FOLDER_MODE = 0o700
FILE_MODE = 0o600

#: Seconds :func:`locked` waits for another process's lock before giving up.
LOCK_WAIT = 10.0

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def try_lock(handle: IO[str]) -> bool:
        """Take the exclusive lock of ``handle``'s file, or ``False`` if another has it."""
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

    try_shared = try_lock

else:
    import fcntl

    def try_lock(handle: IO[str]) -> bool:
        """Take the exclusive lock of ``handle``'s file, or ``False`` if another has it."""
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def try_shared(handle: IO[str]) -> bool:
        """Take a shared lock of ``handle``'s file, or ``False`` if another holds it."""
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def make_private_folder(folder: Path) -> None:
    """Make ``folder`` (and the parents it needs) with :data:`FOLDER_MODE`; one that exists is
    left as it is (:func:`tighten` tightens the data folder)."""
    missing: list[Path] = []
    for path in (folder, *folder.parents):
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=FOLDER_MODE)
            os.chmod(path, FOLDER_MODE)  # the umask may have taken bits away


def _open_private(path: Path, flags: int) -> int:
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, FILE_MODE)  # whatever the umask, and a file made before
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_private(path: Path) -> None:
    """Make ``path`` an empty owner-only file unless it exists (SQLite, which makes a database
    with the umask's mode, then gives its ``-wal`` and ``-shm`` the database's)."""
    make_private_folder(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(_open_private(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL))


def open_private(path: Path, mode: str = "a+") -> IO[str]:
    """``open(path, mode)`` for a text file of the program's, made owner-only."""
    make_private_folder(path.parent)
    flags = os.O_RDWR | os.O_CREAT | (os.O_APPEND if mode.startswith("a") else 0)
    return os.fdopen(_open_private(path, flags), mode, encoding="utf-8")


def write_whole(path: Path, data: bytes) -> None:
    """Replace ``path`` by an owner-only file of ``data``: written beside it, flushed to the
    disk, moved over it (a reader sees the old content or the new, never half)."""
    make_private_folder(path.parent)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    fd = _open_private(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    with contextlib.suppress(OSError, AttributeError):  # the rename itself, on the disk
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


@contextlib.contextmanager
def locked(lock: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the exclusive lock of the file ``lock`` (made owner-only) for the ``with`` block,
    waiting at most ``wait`` seconds for another process to let it go (else ``TimeoutError``,
    an ``OSError``: the machine's, said in one line)."""
    handle = open_private(lock)
    try:
        deadline = time.monotonic() + wait
        while not try_lock(handle):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{lock} stayed locked by another process for {wait:g} s")
            time.sleep(0.005)
        try:
            yield
        finally:
            unlock(handle)
    finally:
        handle.close()


def tighten(folder: Path, inner: tuple[str, ...] = ()) -> int:
    """Take from ``folder``, from its subfolders named ``inner`` and from what is in those
    every permission beyond :data:`FOLDER_MODE` (folders) and :data:`FILE_MODE` (files,
    sockets); symbolic links and what another user owns are left alone, and so is anything
    else in ``folder``.  How many it changed."""
    entries = [folder]
    for name in inner:
        entries += [folder / name, *_children(folder / name)]
    return sum(_tighten_one(path) for path in entries)


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _tighten_one(path: Path) -> int:
    try:
        info = path.lstat()
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return 0  # another user's: not ours to change
        if stat.S_ISDIR(info.st_mode):
            wanted = FOLDER_MODE
        elif stat.S_ISREG(info.st_mode) or stat.S_ISSOCK(info.st_mode):
            wanted = FILE_MODE
        else:
            return 0  # a symbolic link: what it points at is not ours to change
        mode = stat.S_IMODE(info.st_mode)
        if mode & ~wanted == 0:
            return 0
        os.chmod(path, mode & wanted)
    except OSError:
        return 0
    return 1
