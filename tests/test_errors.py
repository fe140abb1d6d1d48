"""One error family: every public error the program raises says whose fault it is."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sqlite3

import pytest

import explorer
from explorer.console import EnvironmentProblem, UsageError
from explorer.embed.base import EmbedderUnavailable
from explorer.errors import ExplorerError, Fault, MachineError, UserError, classify
from explorer.index.db import IndexNotReady
from explorer.search.query.query import QueryError

#: Exceptions that are control flow, never shown to anyone: a superseded read, a cancelled sweep.
CONTROL_FLOW = {"Superseded", "Cancelled"}


def _public_errors() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(explorer.__path__, "explorer."):
        if info.name.startswith("explorer.gui") or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
                and not name.startswith("_")
            ):
                found[f"{info.name}.{name}"] = value
    return found


def test_every_public_error_of_the_core_is_in_the_family() -> None:
    errors = _public_errors()
    assert len(errors) >= 15  # the walk found them
    outside = [
        name
        for name, cls in errors.items()
        if not issubclass(cls, ExplorerError) and name.rsplit(".", 1)[1] not in CONTROL_FLOW
    ]
    assert outside == []


@pytest.mark.parametrize(
    ("exc", "fault"),
    [
        (QueryError("bad query"), Fault.USER),
        (UsageError("bad flag"), Fault.USER),
        (FileNotFoundError("no such vault"), Fault.USER),
        (EnvironmentProblem("disk full"), Fault.MACHINE),
        (IndexNotReady("not built"), Fault.MACHINE),
        (EmbedderUnavailable("no model"), Fault.MACHINE),
        (sqlite3.OperationalError("database is locked"), Fault.MACHINE),
        (PermissionError("denied"), Fault.MACHINE),
        (KeyError("x"), Fault.BUG),
    ],
)
def test_classify_places_each_error(exc: BaseException, fault: Fault) -> None:
    assert classify(exc) is fault


def test_the_two_branches_say_whose_fault() -> None:
    assert UserError.user and not MachineError.user
    assert issubclass(QueryError, ValueError)  # callers that catch ValueError still do
