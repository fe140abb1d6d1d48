"""The live index's state as another process sees it.

The writer records its state, its reason and its last batch in the index's ``meta`` table
(:func:`persist_watcher`), so that ``vault-explorer status`` in another process can show how the
process that keeps the index current is doing (:func:`stored_health`).  Who holds the writer
lease decides whether such a process runs at all.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3

import psutil

from explorer.index.db import IndexDB, IndexUnavailable
from explorer.index.lease import holder
from explorer.index.status import read_status
from explorer.live.health import Health, LastBatch, WatcherHealth, WatcherState

log = logging.getLogger(__name__)


def _process_started(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return None


_STARTED = _process_started(os.getpid())
_PROCESS_STARTED = "" if _STARTED is None else repr(_STARTED)


def persist_watcher(
    db: IndexDB,
    state: WatcherState,
    reason: str | None,
    last_batch: LastBatch | None,
    embedding_paused: bool = False,
) -> None:
    """Write the watcher's state (and whether its owner paused the embedding) where another
    process's ``status`` can read it (a failure is logged: the state is for show, the index
    does not depend on it)."""
    try:
        with db.transaction():
            db.set_meta("watcher_state", state.value)
            db.set_meta("watcher_reason", reason or "")
            db.set_meta("embedding_paused", "1" if embedding_paused else "")
            db.set_meta("watcher_pid", str(os.getpid()))
            db.set_meta("watcher_started", _PROCESS_STARTED)
            if last_batch is not None:
                db.set_meta("last_batch", json.dumps(last_batch.to_json()))
    except (sqlite3.Error, IndexUnavailable) as exc:
        log.warning("cannot record the watcher state: %s", exc)


def persisted_watcher(db: IndexDB) -> WatcherHealth:
    """The state of the process that keeps ``db`` current: its state, reason, pid and role.
    Who holds the writer lease decides whether one runs; the state it wrote into the index says
    how it is doing."""
    state = db.get_meta("watcher_state") or WatcherState.STOPPED.value
    reason = db.get_meta("watcher_reason") or None
    pid_text = db.get_meta("watcher_pid")
    pid = int(pid_text) if pid_text and pid_text.isdigit() else None
    role = None
    paused = bool(db.get_meta("embedding_paused"))
    owner = holder(db.path)
    if owner is None:
        paused = False
        if state != WatcherState.STOPPED.value:
            state = WatcherState.STOPPED.value
            reason = f"the watcher process ({pid}) is no longer running"
    else:
        role = owner.role
        if owner.pid != pid or state == WatcherState.STOPPED.value:
            # The holder has not written its state yet (or is an ``index`` run, which does not).
            state, reason, paused = WatcherState.RUNNING.value, None, False
        pid = owner.pid
    try:
        known = WatcherState(state)
    except ValueError:  # written by another version: say what it wrote
        known = WatcherState.DEGRADED
        reason = f"{state}: {reason}" if reason else state
    return WatcherHealth(known, reason, pid, role, embedding_paused=paused)


def persisted_batch(db: IndexDB) -> LastBatch | None:
    """The last batch the process that keeps ``db`` current recorded."""
    last = db.get_meta("last_batch")
    if not last:
        return None
    data = json.loads(last)
    return LastBatch.from_json(data) if isinstance(data, dict) else None


def stored_health(db: IndexDB, model: str, *, check_fts: bool = True) -> Health:
    """``vault-explorer status``: what ``db`` holds for ``model``, and how the process that
    keeps it current is doing (``check_fts``: with the checks that read the whole database)."""
    return Health(
        vault=str(db.vault),
        database=str(db.path),
        index=read_status(db, model, check_fts=check_fts),
        watcher=persisted_watcher(db),
        last_batch=persisted_batch(db),
    )
