"""What went wrong in the live index, told apart: the machine, or a bug of ours.

An **environment** problem — a full disk, no permission, a read-only folder, a database another
process has locked — is not the program's fault and not the index's: the user can fix it, and
the index is left as the last commit left it.  It is said in one sentence (what is wrong, what
to do) and logged without a traceback.  Anything else that escapes is a **bug**: it is said to
be one, and its traceback goes to the log for a report.  A database SQLite finds damaged is the
environment's too (a rebuild repairs it), never a bug, and never mistaken for a locked one.
Every front end (a command, the MCP server) says an error in the one line :func:`fault_line`
makes.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from explorer.errors import ExplorerError, Fault
from explorer.index.db import (
    ENV_DATA_DIR,
    IndexError_,
    IndexUnavailable,
    data_dir,
    describe_error,
    index_command,
    index_path,
    is_damage,
    is_environment,
)


class ProblemKind(Enum):
    ENVIRONMENT = "environment"
    BUG = "bug"


@dataclass(frozen=True)
class Problem:
    """One line for the user (``message``) and what kind of problem it is."""

    kind: ProblemKind
    message: str

    @property
    def is_bug(self) -> bool:
        return self.kind is ProblemKind.BUG


def diagnose(exc: BaseException, db_path: Path) -> Problem:
    """What ``exc`` says, for the index at ``db_path``: the most telling cause in its chain (a
    failed rollback can hide the full disk that caused it), or a bug."""
    line = describe(exc, db_path)
    if line is not None:
        return Problem(ProblemKind.ENVIRONMENT, line)
    return Problem(
        ProblemKind.BUG,
        f"a bug in vault-explorer ({type(exc).__name__}: {exc}); the log has the details, "
        "please report it",
    )


def log_problem(log: logging.Logger, problem: Problem, what: str) -> None:
    """Log ``problem`` of ``what`` as its kind deserves: a bug with the traceback of the
    exception being handled, the environment in one line (the user is told anyway)."""
    if problem.is_bug:
        log.exception("%s: %s", what, problem.message)
    else:
        log.info("%s: %s", what, problem.message)


def describe(
    exc: BaseException, database: Path, *, data: Path | None = None, vault: Path | None = None
) -> str | None:
    """One sentence for an error of the machine or of the index — what is wrong, what to do —
    or ``None`` when ``exc`` is neither (a bug).  The window's live index and every command say
    these errors in these words.

    ``database`` is the index file (or the data folder, when no vault is known); ``data`` and
    ``vault``, when given, let a permission problem name the folder it is in.  The most telling
    error in the chain wins: an :class:`IndexUnavailable` (already a sentence for the user), an
    SQLite environment error or damage, an ``OSError`` with a known cause; else the first
    ``OSError`` as it is."""
    chain = list(_chain(exc))
    for cause in chain:
        line = _environment(cause, database, data, vault)
        if line is not None:
            return line
    for cause in chain:
        if isinstance(cause, OSError):
            where = _shown(cause)
            text = cause.strerror or str(cause) or type(cause).__name__
            return f"{text}{':' + where if where else ''}"
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _environment(
    exc: BaseException, database: Path, data: Path | None, vault: Path | None
) -> str | None:
    if isinstance(exc, IndexUnavailable):
        return str(exc)  # already a sentence for the user
    if isinstance(exc, sqlite3.Error):
        if is_environment(exc):
            return describe_error(exc, database)
        if is_damage(exc):
            return (
                f"the index at {database} is damaged ({exc}); "
                "`vault-explorer status VAULT --rebuild all` rebuilds it from the vault"
            )
        return None
    if isinstance(exc, OSError):
        return _os_error(exc, data, vault)
    return None


def _target(exc: OSError) -> Path | None:
    name = exc.filename
    return Path(os.path.abspath(os.fsdecode(name))) if isinstance(name, str | bytes) else None


def _shown(exc: OSError) -> str:
    target = _target(exc)
    return f" {target}" if target is not None else ""


def _nested(a: Path, b: Path) -> bool:
    """Whether either path lies in (or is) the other."""
    return a.is_relative_to(b) or b.is_relative_to(a)


def _os_error(exc: OSError, data: Path | None, vault: Path | None) -> str | None:
    target, shown = _target(exc), _shown(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full (writing{shown}); free some space"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "read-only file system" if exc.errno == errno.EROFS else "permission denied"
        if target is not None and data is not None and _nested(target, data):
            return (
                f"cannot write to the data folder {data} ({why}: {target}); fix its "
                f"permissions, or choose another folder with --data-dir or ${ENV_DATA_DIR}"
            )
        if target is not None and vault is not None and target.is_relative_to(vault.resolve()):
            return f"cannot read {target} in the vault ({why}); fix its permissions"
        if exc.errno == errno.EROFS:
            return f"{why}:{shown}; make it writable or choose another --data-dir"
        return f"{why}:{shown}; fix the permissions"
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return f"a file is in the way where a folder is needed ({exc.strerror}:{shown})"
    if exc.errno == errno.EISDIR:
        return f"a folder is in the way where a file is needed ({exc.strerror}:{shown})"
    if exc.errno == errno.EIO:
        return f"input/output error{shown and ' on' + shown}; check the disk"
    return None


def fault_line(exc: BaseException, fault: Fault, vault: str | Path | None, data: str | None) -> str:
    """The one line a front end says for ``exc`` (:func:`explorer.errors.classify` gave its
    ``fault``): the person's error as its message, the machine's as :func:`error_line` words it
    (a message the program wrote itself stands as it is)."""
    wrote_it = isinstance(exc, ExplorerError) and not isinstance(exc, IndexError_)
    if fault is Fault.USER or wrote_it:
        return str(exc)
    return error_line(exc, vault, data)


def error_line(exc: BaseException, vault: str | Path | None, data: str | None) -> str:
    """One line for an error of the machine or of the index met by a command on ``vault``
    (:func:`describe`, the live index's words), else the error as it is."""
    folder = data_dir(data)
    database = index_path(Path(vault), data) if vault else folder
    line = describe(exc, database, data=folder, vault=Path(vault) if vault else None)
    if line is not None:
        return line
    if isinstance(exc, sqlite3.Error):
        command = index_command(vault, data) if vault else "vault-explorer index VAULT"
        return f"index error: {exc} (run `{command}` to rebuild it)"
    return f"index error: {exc}"
