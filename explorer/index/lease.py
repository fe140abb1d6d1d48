"""One writer per index: a lock file beside the database that says who holds it.

Two writers on one index both embed every chunk, and one can delete the database under the
other.  So every process that writes an index (``index``, a syncing ``search``, ``watch``, the
window, ``status --rebuild``) first takes the index's *writer lease*: an exclusive ``flock`` on
``<database>.lock``, whose content says who holds it.  The operating system drops the lock when
the process ends, however it ends (``kill -9`` included), so a lease can never go stale.

Readers take nothing: SQLite's WAL lets them read while the writer writes.  A process that finds
the lease held either reads (a second window, ``search``) or says who holds it (``index``).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from explorer.files import open_private, try_lock, try_shared, unlock
from explorer.index.db import IndexUnavailable

_ATTEMPTS = 5


def lease_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a writer lease, as it wrote itself into the lock file."""

    pid: int | None
    role: str
    host: str
    since: float | None

    def describe(self) -> str:
        """``watch (pid 4242, since 14:03)``."""
        parts = []
        if self.pid is not None:
            parts.append(f"pid {self.pid}")
        if self.host and self.host != socket.gethostname():
            parts.append(f"on {self.host}")
        if self.since is not None:
            parts.append("since " + time.strftime("%H:%M", time.localtime(self.since)))
        return self.role + (f" ({', '.join(parts)})" if parts else "")

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "role": self.role, "host": self.host, "since": self.since}

    @classmethod
    def parse(cls, text: str) -> Holder:
        try:
            data = json.loads(text)
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {}
        pid, since = data.get("pid"), data.get("since")
        return cls(
            pid=pid if isinstance(pid, int) else None,
            role=str(data.get("role") or "another process"),
            host=str(data.get("host") or ""),
            since=float(since) if isinstance(since, (int, float)) else None,
        )


class IndexHeld(IndexUnavailable):
    """Another process holds the writer lease of this index."""

    def __init__(self, db_path: Path, holder: Holder, wanted: str) -> None:
        self.holder = holder
        super().__init__(
            f"the index of this vault is being written by {holder.describe()}; "
            f"{wanted} needs it alone: stop it first, or let it keep the index current"
        )


class WriterLease:
    """The right to write one index; release it (or leave the ``with`` block) when done."""

    def __init__(self, db_path: Path, handle: IO[str], role: str) -> None:
        self.db_path = db_path
        self.role = role
        self._handle: IO[str] | None = handle

    @classmethod
    def try_acquire(cls, db_path: Path, role: str) -> WriterLease | None:
        """The lease, or ``None`` if another holder has it (see :func:`holder`)."""
        path = lease_path(db_path)
        try:
            handle = open_private(path)  # held as long as the lease
        except OSError as exc:
            raise IndexUnavailable(
                f"cannot take the writer's lock {path} ({exc.strerror or exc}); fix the data "
                "folder's permissions or choose another --data-dir"
            ) from exc
        # Someone finding out who holds the lease (:func:`holder`) takes it for an instant:
        # try a few times before saying it is held.
        for attempt in range(_ATTEMPTS):
            if try_lock(handle):
                break
            if attempt == _ATTEMPTS - 1:
                handle.close()
                return None
            time.sleep(0.02)
        me = Holder(os.getpid(), role, socket.gethostname(), time.time())
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(me.to_json()))
        handle.flush()
        return cls(db_path, handle, role)

    @classmethod
    def acquire(cls, db_path: Path, role: str) -> WriterLease:
        """The lease, or :class:`IndexHeld` naming who has it."""
        lease = cls.try_acquire(db_path, role)
        if lease is None:
            raise IndexHeld(
                db_path, holder(db_path) or Holder(None, "another process", "", None), role
            )
        return lease

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        with contextlib.suppress(OSError):
            handle.seek(0)
            handle.truncate()
            handle.flush()
            unlock(handle)
        handle.close()

    def __enter__(self) -> WriterLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def holder(db_path: Path) -> Holder | None:
    """Who holds the writer lease of ``db_path`` now, or ``None`` if nobody does.  Takes the
    lock for an instant to find out, so it is exact, not a guess from a pid."""
    path = lease_path(db_path)
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError:
        return None
    try:
        if try_shared(handle):
            unlock(handle)
            return None
        handle.seek(0)
        return Holder.parse(handle.read())
    finally:
        handle.close()
