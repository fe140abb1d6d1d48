"""The watcher's state, and the part of it another process can read.

The writer records its state, its reason and its last batch in the index's ``meta`` table
(:func:`persist_watcher`), so that ``vault-explorer status`` in another process can show how the
process that keeps the index current is doing (:func:`persisted_watcher`).  Who holds the
writer lease decides whether such a process runs at all.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from enum import Enum
from typing import Any

import psutil

from explorer.index.db import IndexDB, IndexUnavailable
from explorer.index.lease import holder

log = logging.getLogger(__name__)


class WatcherState(Enum):
    STARTING = "starting"
    RUNNING = "running"
    STOPPED = "stopped"
    DEGRADED = "degraded"
    #: Another process holds the index's writer lease: this one only reads (and takes over
    #: when that process ends).
    READER = "reader"


def _process_started(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return None


_STARTED = _process_started(os.getpid())
_PROCESS_STARTED = "" if _STARTED is None else repr(_STARTED)


def persist_watcher(
    db: IndexDB, state: WatcherState, reason: str | None, last_batch: dict[str, Any] | None
) -> None:
    """Write the watcher's state where another process's ``status`` can read it (a failure is
    logged: the state is for show, the index does not depend on it)."""
    try:
        with db.transaction():
            db.set_meta("watcher_state", state.value)
            db.set_meta("watcher_reason", reason or "")
            db.set_meta("watcher_pid", str(os.getpid()))
            db.set_meta("watcher_started", _PROCESS_STARTED)
            if last_batch is not None:
                db.set_meta("last_batch", json.dumps(last_batch))
    except (sqlite3.Error, IndexUnavailable) as exc:
        log.warning("cannot record the watcher state: %s", exc)


def persisted_watcher(db: IndexDB) -> dict[str, Any]:
    """The state of the process that keeps ``db`` current (``vault-explorer status``): its
    state, reason, pid and role, and its last batch.  Who holds the writer lease decides whether
    one runs; the state it wrote into the index says how it is doing."""
    state = db.get_meta("watcher_state") or WatcherState.STOPPED.value
    reason = db.get_meta("watcher_reason") or None
    pid_text = db.get_meta("watcher_pid")
    pid = int(pid_text) if pid_text and pid_text.isdigit() else None
    role = None
    owner = holder(db.path)
    if owner is None:
        if state != WatcherState.STOPPED.value:
            state = WatcherState.STOPPED.value
            reason = f"the watcher process ({pid}) is no longer running"
    else:
        role = owner.role
        if owner.pid != pid or state == WatcherState.STOPPED.value:
            # The holder has not written its state yet (or is an ``index`` run, which does not).
            state, reason = WatcherState.RUNNING.value, None
        pid = owner.pid
    last = db.get_meta("last_batch")
    return {
        "state": state,
        "reason": reason,
        "pid": pid,
        "role": role,
        "lastBatch": json.loads(last) if last else None,
    }
