"""What several command tests share: a ``watch`` process, what the index file holds, and what
a command that only asks a running watch has to import."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
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


#: Of each package, what the command line may import before it knows whether a running watch
#: answers: the parser (every command's options), the request (the search settings and the
#: query's grammar, the saved searches) and the socket.  The rest — the model, numpy, the
#: search itself, the note parser (yaml, pathspec), the evaluation, the index beyond finding its
#: file — is the answering side's.
CLIENT_PARTS: dict[str, tuple[str, ...]] = {
    "numpy": (),
    "torch": (),
    "sentence_transformers": (),
    "watchdog": (),
    "yaml": (),
    "pathspec": (),
    "explorer.evaluate": (),
    "explorer.preview": (),
    "explorer.gui": (),
    "explorer.search": (
        "explorer.search.query",
        "explorer.search.answers.saved",
        "explorer.search.answers.related_limits",
    ),
    "explorer.vault": ("explorer.vault.language", "explorer.vault.properties"),
    "explorer.mcp": ("explorer.mcp.requests",),
    "explorer.live": ("explorer.live.serve", "explorer.live.problems"),
    "explorer.embed": ("explorer.embed.models", "explorer.embed.threads"),
    "explorer.index": (
        "explorer.index.db",
        "explorer.index.migrations",
        "explorer.index.counts",
        "explorer.index.text",
        "explorer.index.lease",
        "explorer.index.model_choice",
    ),
}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def beyond_the_client(modules: Iterable[str]) -> list[str]:
    """The ``modules`` a command that only asks a running watch should not have imported
    (:data:`CLIENT_PARTS`)."""
    return sorted(
        module
        for module in modules
        for package, allowed in CLIENT_PARTS.items()
        if _within(module, package)
        # a part allowed, in it, or the package that holds it
        and not any(_within(module, part) or _within(part, module) for part in allowed)
    )


def modules_after(
    code: str, *argv: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run ``code`` in a fresh interpreter (``argv`` in ``sys.argv[1:]``): its process, and every
    module it had imported when it ended."""
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "modules.json"
        wrapped = (
            "import atexit, json, sys\n"
            f"atexit.register(lambda: open({str(listing)!r}, 'w').write("
            "json.dumps(sorted(sys.modules))))\n" + code
        )
        proc = subprocess.run(
            [sys.executable, "-c", wrapped, *argv],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=300,
        )
        modules = json.loads(listing.read_text()) if listing.exists() else []
    return proc, modules
