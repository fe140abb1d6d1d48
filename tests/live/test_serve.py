"""The warm path's socket: its place and permissions, the peer check, refusal of malformed,
oversized, foreign and unknown requests, and a dead socket found and removed."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from explorer import __version__
from explorer.live import serve
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no AF_UNIX")


def _echo(op: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"echo": [op, args]}


@pytest.fixture
def index(tmp_path: Path) -> Path:
    return tmp_path / "d" / "indexes" / "notes-0123456789ab.sqlite"


@pytest.fixture
def server(index: Path) -> Any:
    running = serve.Server(index, _echo, frozenset({"search"}))
    assert running.start(), running.reason
    yield running
    running.stop()


def _raw(path: Path, data: bytes) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(os.fspath(path))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.sendall(data)
        reply: dict[str, Any] = json.loads(conn.makefile("rb").readline())
        return reply


def _request(index: Path, changes: dict[str, Any] | None = None) -> bytes:
    request = {
        "protocol": serve.PROTOCOL,
        "version": __version__,
        "index": str(index),
        "op": "search",
    }
    request["args"] = {"q": 1}
    request.update(changes or {})
    return json.dumps(request).encode() + b"\n"


def test_the_socket_is_the_owners_alone(server: serve.Server, index: Path) -> None:
    path = server.path
    assert path == index.parent.parent / "run" / f"{index.stem}.sock"
    assert stat.S_ISSOCK(path.lstat().st_mode)
    assert stat.S_IMODE(path.lstat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.lstat().st_mode) == 0o700
    assert serve.ask(index, "search", {"q": 1}) == {
        "protocol": serve.PROTOCOL,
        "ok": True,
        "echo": ["search", {"q": 1}],
    }
    server.stop()
    assert not path.exists()


def test_a_group_readable_folder_is_made_private_again(index: Path) -> None:
    folder = index.parent.parent / "run"
    folder.mkdir(parents=True, mode=0o755)
    os.chmod(folder, 0o755)
    assert serve.place(index).path is not None
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o700


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"not json\n", "not a JSON line"),
        (b"[1, 2]\n", "not a JSON object"),
        (b"\xff\xfe\n", "not a JSON line"),
        (b"{" + b" " * serve.MAX_REQUEST + b"}\n", "longer than"),
        (b" " * (serve.MAX_REQUEST + 10), "longer than"),  # no newline at all
    ],
)
def test_malformed_and_oversized_requests_are_refused(
    server: serve.Server, data: bytes, said: str
) -> None:
    assert server.path is not None
    reply = _raw(server.path, data)
    assert reply["ok"] is False and said in reply["error"]


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"op": "index"}, "unknown operation"),
        ({"op": None}, "unknown operation"),
        ({"protocol": 1}, "protocol"),
        ({"version": "0.0.0-other"}, "version"),
        ({"index": "/elsewhere/other.sqlite"}, "another index"),
        ({"args": "q"}, "no arguments"),
    ],
)
def test_requests_of_another_kind_are_refused(
    server: serve.Server, index: Path, changes: dict[str, Any], said: str
) -> None:
    assert server.path is not None
    reply = _raw(server.path, _request(index, changes))
    assert reply["ok"] is False and said in reply["error"]
    # … and the server goes on answering.
    assert _raw(server.path, _request(index))["ok"] is True


def test_the_peer_check_refuses_another_uid() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        if serve.peer_uid(left) is None:
            pytest.skip("this platform does not tell a peer's uid")
        assert serve.peer_uid(left) == os.getuid()
        assert serve.peer_allowed(left, Path("/nonexistent"))
        assert not serve.peer_allowed(left, Path("/nonexistent"), uid=os.getuid() + 1)


def test_without_peer_credentials_only_a_private_folder_passes(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    os.chmod(private, 0o700)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    assert serve.private_folder(private)
    assert not serve.private_folder(shared)
    assert not serve.private_folder(tmp_path / "missing")


def test_a_dead_socket_is_ignored_removed_and_replaced(index: Path) -> None:
    path = serve.place(index).path
    assert path is not None
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(path))  # what a crashed server leaves: the file, nobody listening
    dead.close()
    assert path.exists()
    assert serve.ask(index, "search", {}) is None
    assert not path.exists()
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(path))
    dead.close()
    running = serve.Server(index, _echo, frozenset({"search"}))
    assert running.start(), running.reason  # a new server replaces it
    try:
        assert serve.ask(index, "search", {})
    finally:
        running.stop()


def test_a_second_server_of_the_same_index_does_not_take_over(
    server: serve.Server, index: Path
) -> None:
    second = serve.Server(index, _echo, frozenset({"search"}))
    assert not second.start()
    assert "already serves" in second.reason
    assert serve.ask(index, "search", {}) is not None


def test_no_server_means_working_alone(index: Path) -> None:
    assert serve.ask(index, "search", {}) is None


def test_a_path_too_long_for_af_unix_moves_to_a_short_per_user_one(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["a" * 30] * 4) / "indexes" / "notes-0123456789ab.sqlite"
    where = serve.place(deep)
    assert where.path is not None
    assert len(os.fsencode(where.path)) < serve.PATH_LIMIT
    assert where.path.parent.name == f"vault-explorer-{os.getuid()}"
    assert serve.private_folder(where.path.parent)
    running = serve.Server(deep, _echo, frozenset({"search"}))
    assert running.start(), running.reason
    try:
        assert serve.ask(deep, "search", {"x": 1}) is not None
    finally:
        running.stop()


def test_a_socket_path_that_fits_but_whose_temporary_name_does_not_serves(
    tmp_path: Path,
) -> None:
    """The server binds a temporary name (``.NAME.PID``) and renames it into place: a socket
    path a few bytes under the limit must be served too (it once was refused as too long)."""
    stem = "notes-0123456789ab"
    base = len(os.fsencode(tmp_path / "x" / "run" / f"{stem}.sock"))
    pad = serve.PATH_LIMIT - 2 - base  # the socket path 2 bytes under the limit
    assert pad > 0
    index = tmp_path / ("x" + "a" * pad) / "indexes" / f"{stem}.sqlite"
    assert len(os.fsencode(index.parent.parent / "run" / f"{stem}.sock")) == serve.PATH_LIMIT - 2
    running = serve.Server(index, _echo, frozenset({"search"}))
    assert running.start(), running.reason
    try:
        assert serve.ask(index, "search", {"x": 1}) is not None
    finally:
        running.stop()


def _as_nobody(path: Path) -> subprocess.CompletedProcess[str]:
    """Connect to ``path`` and send a valid request from another user (uid 65534)."""
    code = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        f"    s.connect({os.fspath(path)!r})\n"
        "except PermissionError:\n"
        "    print('permission denied'); sys.exit(0)\n"
        "try:\n"  # the server may refuse and close before the request is sent
        f"    s.sendall({_request(Path('/x'))!r})\n"
        "except OSError:\n"
        "    pass\n"
        "print(s.makefile('rb').readline().decode())\n"
    )
    python = _nobodys_python()
    assert python is not None
    result = subprocess.run([*NOBODY, python, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


#: The argv prefix that runs a command as the user nobody.
NOBODY = ("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--")


def _nobodys_python() -> str | None:
    """A Python the user nobody can run (this one may live in root's private home)."""
    for python in (sys.executable, "/usr/bin/python3"):
        run = subprocess.run([*NOBODY, python, "-c", "pass"], capture_output=True)
        if run.returncode == 0:
            return python
    return None


@pytest.fixture
def nobody() -> Iterator[serve.Server]:
    """A server whose socket's folders another user may pass through (pytest's own temporary
    folder is private, which would stop that user before the socket is reached)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None or _nobodys_python() is None:
        pytest.skip("needs root, setpriv and a Python the user nobody can run")
    top = Path(tempfile.mkdtemp(prefix="warm-"))
    os.chmod(top, 0o711)
    running = serve.Server(top / "indexes" / "n.sqlite", _echo, frozenset({"search"}))
    assert running.start(), running.reason
    yield running
    running.stop()
    shutil.rmtree(top)


def test_another_user_cannot_connect(nobody: serve.Server) -> None:
    server = nobody
    assert server.path is not None
    os.chmod(server.path.parent, 0o711)  # the folder enterable: the socket's 0600 still stops
    result = _as_nobody(server.path)
    assert result.stdout.strip() == "permission denied", result.stderr


def test_another_users_request_is_refused_by_its_credentials(nobody: serve.Server) -> None:
    server = nobody
    assert server.path is not None
    os.chmod(server.path.parent, 0o711)  # both permissions opened: SO_PEERCRED still stops
    os.chmod(server.path, 0o666)
    result = _as_nobody(server.path)
    reply = json.loads(result.stdout)
    assert reply == {"protocol": serve.PROTOCOL, "ok": False, "error": "another user"}


# ---------------------------------------------------------------------- everyone at once


def test_twelve_clients_at_once_are_all_answered_by_the_server(index: Path) -> None:
    clients = 12  # three turns of the answers the server gives at once
    together = threading.Barrier(serve.HANDLERS, timeout=60)

    def handler(op: str, args: dict[str, Any]) -> dict[str, Any]:
        together.wait()  # answered only with others under way: never one at a time
        return {"who": args["who"]}

    running = serve.Server(index, handler, frozenset({"search"}))
    assert running.start(), running.reason
    try:
        with ThreadPoolExecutor(clients) as pool:
            replies = list(
                pool.map(lambda who: serve.ask(index, "search", {"who": who}), range(clients))
            )
    finally:
        running.stop()
    assert [r["who"] if r else None for r in replies] == list(range(clients))
    assert running.answered == clients and running.turned_away == 0


def test_a_silent_client_costs_the_next_one_nothing(server: serve.Server, index: Path) -> None:
    assert server.path is not None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.connect(os.fspath(server.path))  # connects, says nothing
        half = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        half.connect(os.fspath(server.path))
        half.sendall(b'{"protocol": ')  # half a line, and no more
        assert serve.ask(index, "search", {"q": 2}) is not None
        silent.setblocking(False)
        with pytest.raises(BlockingIOError):  # still waited for: it was not served first
            silent.recv(1)
        half.close()


def test_a_client_trickling_its_line_is_cut_off_at_the_request_time(
    server: serve.Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert server.path is not None
    monkeypatch.setattr(serve, "REQUEST_TIMEOUT", 0.5)
    pause = threading.Event()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:
        slow.connect(os.fspath(server.path))
        cut = False
        for _ in range(2000):  # a byte every 20 ms: each in time, the line never
            try:
                slow.sendall(b" ")
            except OSError:
                cut = True
                break
            pause.wait(0.02)
        assert cut


def _serving_child(index: Path, ready: Path) -> subprocess.Popen[bytes]:
    code = (
        "import sys, threading\n"
        "from pathlib import Path\n"
        "from explorer.live import serve\n"
        f"s = serve.Server(Path({str(index)!r}), lambda op, a: {{'x': 1}}, {{'search'}})\n"
        "assert s.start()\n"
        f"Path({str(ready)!r}).write_text('ready')\n"
        "threading.Event().wait()\n"
    )
    return subprocess.Popen([sys.executable, "-c", code])


def test_a_stopped_server_is_given_up_on_at_once_and_said_at_v(
    index: Path,
    tmp_path: Path,
    procs: list[subprocess.Popen[bytes]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    ready = tmp_path / "ready"
    child = _serving_child(index, ready)
    procs.append(child)
    wait_until(ready.exists)
    assert serve.ask(index, "search", {}) == {"protocol": serve.PROTOCOL, "ok": True, "x": 1}
    os.kill(child.pid, signal.SIGSTOP)  # Ctrl-Z: the socket accepts, nobody reads
    try:
        caplog.set_level(logging.INFO, logger="explorer")
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(serve.ask, index, "search", {})
            wait_until(asked.done, timeout=30)  # not the 120 s an answer may take
            assert asked.result() is None
    finally:
        os.kill(child.pid, signal.SIGCONT)
    assert "did not answer in time" in caplog.text


def test_a_server_loading_its_model_says_so_at_once(
    index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    loaded = threading.Event()

    def handler(op: str, args: dict[str, Any]) -> dict[str, Any]:
        loaded.wait(60)
        return {"x": 1}

    running = serve.Server(index, handler, frozenset({"search"}), lambda: "loading its model m")
    assert running.start(), running.reason
    caplog.set_level(logging.INFO, logger="explorer")
    try:
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(serve.ask, index, "search", {})
            wait_until(lambda: "the server is loading its model m" in caplog.text)
            assert not asked.done()  # said before the answer
            loaded.set()
            assert asked.result(timeout=60) is not None
    finally:
        running.stop()


@pytest.mark.parametrize(
    "data",
    [b"[" * 30_000 + b"]" * 30_000 + b"\n", b'{"protocol": 3, "op": "sea'],
    ids=["deep", "closed-mid-line"],
)
def test_a_clients_fault_is_one_line_in_the_log(
    server: serve.Server, index: Path, data: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    assert server.path is not None
    caplog.set_level(logging.INFO, logger="explorer")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(os.fspath(server.path))
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)  # closes mid-line, or waits for the refusal
        said = conn.makefile("rb").readline()
    if data.endswith(b"\n"):
        assert b"nested deeper than" in said
    wait_until(
        lambda: any(
            "serve" in r.name and r.levelno == logging.INFO
            for r in caplog.records
            if "refused" in r.message or "went away" in r.message
        )
    )
    assert serve.ask(index, "search", {}) is not None  # the server lives on
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


# ---------------------------------------------------------------------- the fallback folder


def _too_long(tmp_path: Path) -> Path:
    return tmp_path.joinpath(*["a" * 30] * 4) / "indexes" / "notes-0123456789ab.sqlite"


@pytest.fixture
def short_tempdir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary folder of its own as short as the usual one (``tmp_path`` is too long for
    the fallback's socket path), as ``tempfile``'s folder."""
    folder = Path(tempfile.mkdtemp(prefix="ve-test-"))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_fallback_folder_another_user_made_first_is_left_for_a_private_new_one(
    tmp_path: Path, short_tempdir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    squatted = short_tempdir / f"vault-explorer-{os.getuid()}"
    squatted.mkdir()
    os.chmod(squatted, 0o777)  # made first, open to all
    if os.geteuid() == 0:
        os.chown(squatted, 65534, 65534)  # …by another user
    index = _too_long(tmp_path)
    running = serve.Server(index, _echo, frozenset({"search"}))
    assert running.start(), running.reason
    try:
        assert running.path is not None and running.path.parent != squatted
        assert serve.private_folder(running.path.parent)
        said = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert said and f"serving on {running.path}" in said[0].getMessage()
        assert serve.ask(index, "search", {"x": 1}) is not None  # clients find it
        assert list(squatted.iterdir()) == []
        second = serve.Server(index, _echo, frozenset({"search"}))
        assert not second.start() and "already serves" in second.reason
        assert serve.ask(index, "search", {"x": 1}) is not None  # still found
    finally:
        running.stop()
    assert not running.path.parent.exists()  # the private folder goes with the socket
    assert serve.ask(index, "search", {"x": 1}) is None


def test_a_server_that_cannot_serve_says_so_in_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path.joinpath(*["b" * 60] * 2)))
    running = serve.Server(_too_long(tmp_path), _echo, frozenset({"search"}))
    assert not running.start()
    (said,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said.startswith("the command line will not be answered warm: ")
    assert "too long for AF_UNIX" in said
