"""One writer per index: the lease is exclusive across processes, says who holds it, and is
dropped when its process dies, however it dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.index.lease import IndexHeld, WriterLease, holder, lease_path

_HOLD = """
import sys
from pathlib import Path
from explorer.index.lease import WriterLease
lease = WriterLease.acquire(Path(sys.argv[1]), "watch")
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "indexes" / "v.sqlite"


def _holder_process(db_path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(db_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_process_cannot_take_the_lease_and_is_told_who_has_it(db_path: Path) -> None:
    proc = _holder_process(db_path)
    try:
        assert WriterLease.try_acquire(db_path, "index") is None
        owner = holder(db_path)
        assert owner is not None and owner.pid == proc.pid and owner.role == "watch"
        with pytest.raises(IndexHeld, match=rf"watch \(pid {proc.pid}"):
            WriterLease.acquire(db_path, "index")
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    with WriterLease.acquire(db_path, "index") as lease:
        assert lease.held
        assert holder(db_path) is not None
    assert holder(db_path) is None


def test_a_killed_holder_leaves_no_stale_lease(db_path: Path) -> None:
    proc = _holder_process(db_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert lease_path(db_path).exists()  # the file stays; the lock does not
    assert holder(db_path) is None
    lease = WriterLease.acquire(db_path, "index")
    lease.release()


def test_one_process_holds_it_once(db_path: Path) -> None:
    """Two writers in one process (two windows, say) exclude each other too."""
    first = WriterLease.acquire(db_path, "first")
    try:
        assert WriterLease.try_acquire(db_path, "second") is None
    finally:
        first.release()
    second = WriterLease.try_acquire(db_path, "second")
    assert second is not None
    second.release()
