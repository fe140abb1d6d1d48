"""What several command tests share: a ``watch`` process, and what the index file holds."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from explorer.index.db import index_path
from tests.waiting import wait_until


def start_watch(vault: Path, data_dir: Path, log: Path, *options: str) -> subprocess.Popen[bytes]:
    with log.open("a") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "explorer",
                "watch",
                str(vault),
                "--data-dir",
                str(data_dir),
                *options,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait_running(log: Path) -> None:
    """Wait until the ``watch`` writing ``log`` says its watcher runs."""
    wait_until(lambda: "watcher running" in log.read_text(errors="replace"))


def index_written(vault: Path) -> tuple[str, int]:
    """The database file's content hash, and the bytes waiting in its write-ahead log (a
    read-only connection may leave an empty log and the shared-memory file behind)."""
    path = index_path(vault)
    wal = Path(f"{path}-wal")
    return hashlib.sha256(path.read_bytes()).hexdigest(), wal.stat().st_size if wal.exists() else 0


def run_program(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m explorer ARGS`` in a child process, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )
