"""The program's errors: one family, and whose fault each is, decided where it is raised.

Every error the program raises on purpose is an :class:`ExplorerError`: a :class:`UserError`
when the person's input is wrong (a bad query, a folder that is not there, a setting out of
range: the message says what to change), a :class:`MachineError` when the machine or the index
stands in the way (a full disk, a locked or damaged index, a model that cannot load).  Each is
translated once per front end — the command line (:func:`explorer.commands.program.main`: exit
status 2 or 1), the MCP server (a tool error), the window — by :func:`classify`, which also
places the standard errors those front ends meet.  Anything else is a bug.
"""

from __future__ import annotations

import sqlite3
from enum import Enum
from typing import ClassVar


class ExplorerError(Exception):
    """Base of the errors the program raises on purpose; :attr:`user` says whose they are."""

    #: True: the person's input (exit status 2); False: the machine or the index (exit 1).
    user: ClassVar[bool] = False


class UserError(ExplorerError):
    """The person's input is wrong; the message says what to change."""

    user = True


class MachineError(ExplorerError):
    """The machine or the index stands in the way; the message says what is wrong."""

    user = False


class Fault(Enum):
    USER = "user"
    MACHINE = "machine"
    BUG = "bug"


def classify(exc: BaseException) -> Fault:
    """Whose fault ``exc`` is: the family's own word for its members; a file not found is a
    path the person gave; SQLite's and the operating system's errors are the machine's; anything
    else is a bug."""
    if isinstance(exc, ExplorerError):
        return Fault.USER if exc.user else Fault.MACHINE
    if isinstance(exc, FileNotFoundError):
        return Fault.USER
    if isinstance(exc, (sqlite3.Error, OSError)):
        return Fault.MACHINE
    return Fault.BUG
