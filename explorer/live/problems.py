"""What went wrong in the live index, told apart: the machine, or a bug of ours.

An **environment** problem — a full disk, no permission, a read-only folder, a database another
process has locked — is not the program's fault and not the index's: the user can fix it, and
the index is left as the last commit left it.  It is said in one sentence (what is wrong, what
to do) and logged without a traceback.  Anything else that escapes is a **bug**: it is said to
be one, and its traceback goes to the log for a report.  A database SQLite finds damaged is the
environment's too (a rebuild repairs it), never a bug, and never mistaken for a locked one.
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

from explorer.index.db import IndexUnavailable, describe_error, is_damage, is_environment


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
    for cause in _chain(exc):
        line = _environment(cause, db_path)
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


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _environment(exc: BaseException, db_path: Path) -> str | None:
    if isinstance(exc, IndexUnavailable):
        return str(exc)  # already a sentence for the user
    if isinstance(exc, sqlite3.Error):
        if is_environment(exc):
            return describe_error(exc, db_path)
        if is_damage(exc):
            return (
                f"the index at {db_path} is damaged ({exc}); "
                "`vault-explorer status VAULT --rebuild all` rebuilds it from the vault"
            )
        return None
    if isinstance(exc, OSError):
        return _os_error(exc)
    return None


def _os_error(exc: OSError) -> str:
    name = exc.filename
    where = f" {os.fsdecode(name)}" if isinstance(name, str | bytes) else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full (writing{where}); free some space"
    if exc.errno == errno.EROFS:
        return f"read-only file system:{where}; make it writable or choose another --data-dir"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"permission denied:{where}; fix the permissions"
    if exc.errno == errno.EIO:
        return f"input/output error{where and ' on' + where}; check the disk"
    text = exc.strerror or str(exc) or type(exc).__name__
    return f"{text}{':' + where if where else ''}"
