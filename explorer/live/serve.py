"""The warm path's transport: a local socket beside a running index, owner only.

A process that keeps an index open with its model loaded (``watch``, the window) serves
requests on a Unix-domain socket in the data folder (``run/<index>.sock``, the socket 0600 in a
0700 folder); a short command (``search``, ``explain``, ``related``) asks it instead of loading
the model itself.  What a request means is the caller's: here are the place, the checks and the
wire format — a JSON line each way, versioned (:data:`PROTOCOL`), bounded (:data:`MAX_REQUEST`
bytes, a nesting of :data:`MAX_DEPTH`) and the request read within :data:`REQUEST_TIMEOUT`
seconds in all.

Every connection is served on a thread of its own (at most :data:`MAX_CLIENTS` at once, at
most :data:`HANDLERS` of them answering), so a slow or silent client costs nobody else
anything.  The server accepts a well-formed request at once with a first line (saying when its
answer may take a while: its model is still loading), then answers with a second; a client
whose request is not accepted within :data:`ACCEPT_TIMEOUT` (a server stopped with ``SIGSTOP``,
or hung) works alone, and says so at ``-v``.  A client's faults (a line nested too deep, a
connection closed mid-line) are one line in the log.

Refused, with a one-line reason: a peer of another user (``SO_PEERCRED`` where the platform has
it; elsewhere only when the socket's folder is the owner's 0700 one), a request too long, not
JSON, of another protocol, version or index, or of an operation the handler does not know.

A socket nobody listens on any more (a crashed process) is found by the refused connection and
removed; a server replaces such a socket when it starts.  A path longer than ``AF_UNIX`` allows
(about 104–108 bytes) moves to a short per-user folder in the temporary directory; where that
fails, or ``AF_UNIX`` is missing, there is no socket and every command works alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import stat
import struct
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer import __version__, jsontext
from explorer.errors import UserError
from explorer.files import make_private_folder, write_whole

log = logging.getLogger(__name__)

#: The wire format's version: a request of another is refused.  2: a command line goes as its
#: words (operation ``command``), and the MCP tools have operations of their own (``tool.NAME``).
#: 3: a request is accepted with a line of its own before it is answered.  4: a command's
#: request goes as data (operations ``search``, ``explain``, ``related``: the typed request of
#: :mod:`explorer.mcp.requests`), and its answer comes back as data, never as printed text.
PROTOCOL = 4

#: ``0`` turns the warm path off: every command and the MCP server work alone.
ENV_WARM = "VAULT_EXPLORER_WARM"


def warm_off() -> bool:
    """Whether ``$VAULT_EXPLORER_WARM`` turns the warm path off."""
    return os.environ.get(ENV_WARM, "").strip() == "0"


#: The MCP tools a server answers (operations ``tool.NAME``), with the model it has loaded.
TOOLS = frozenset({"search", "explain", "related"})

#: The longest request line accepted, in bytes (the newline included).
MAX_REQUEST = 64 * 1024

#: The longest reply line a client reads, in bytes.
MAX_REPLY = 64 * 1024 * 1024

#: The deepest nesting of a request or a reply (``json.loads`` recurses once a level).
MAX_DEPTH = 32

#: Connections served at once (each on its own thread; one more is refused at once), and
#: requests answered at once (the others wait their turn on their threads).
MAX_CLIENTS = 64
HANDLERS = 4

#: ``sun_path``'s size, the terminating NUL included (104 on macOS and the BSDs).
PATH_LIMIT = 108 if sys.platform.startswith("linux") else 104
#: The largest process id a temporary socket name holds (Linux's ``pid_max`` is at most
#: 4,194,304; the BSDs' and macOS's are smaller).
_LARGEST_PID = 9_999_999

#: Seconds a client waits to connect, and a server for a request's whole line.
CONNECT_TIMEOUT = 2.0
REQUEST_TIMEOUT = 5.0

#: Seconds a client waits for its request to be accepted: a server answers that at once (it
#: takes milliseconds), so one that does not is stopped or hung, and the client works alone.
ACCEPT_TIMEOUT = 3.0

#: Seconds a client waits for the answer once accepted: a question takes milliseconds with the
#: model loaded (``QUESTION_TIMEOUT`` leaves room for a busy machine); a server still loading
#: its model says so when it accepts, and is given ``LOADING_TIMEOUT``.
QUESTION_TIMEOUT = 30.0
LOADING_TIMEOUT = 120.0

#: A request's fields besides what the handler reads.
Request = dict[str, Any]

#: The handler: ``(operation, arguments)`` → the reply's fields; raises :class:`Refused`.
Handler = Callable[[str, dict[str, Any]], dict[str, Any]]

#: Why the server's answer may take a while (``"loading its model"``), or ``None``.
Delay = Callable[[], str | None]


class Refused(UserError):
    """A request the server does not answer: its reason goes back to the client."""


@dataclass(frozen=True)
class Place:
    """Where the socket of one index is, or why there is none (``path`` ``None``)."""

    path: Path | None
    reason: str = ""
    #: A folder made for this socket alone (removed with it), and the file naming it.
    made: Path | None = None
    pointer: Path | None = None


def place(index: Path, serving: bool = False) -> Place:
    """The socket of the index file ``index``: ``run/<stem>.sock`` in its data folder, or a
    short per-user path when that is too long for ``AF_UNIX`` (``serving``: the server's, which
    makes a private new folder when the per-user one is not this user's own)."""
    if not hasattr(socket, "AF_UNIX"):
        return Place(None, "this platform has no Unix-domain sockets")
    folder = index.parent.parent / "run"
    path = folder / f"{index.stem}.sock"
    if _fits(path):
        return _usable(folder, path)
    digest = hashlib.sha256(os.fsencode(index)).hexdigest()[:16]
    short = Path(tempfile.gettempdir()) / f"vault-explorer-{os.getuid()}" / f"{digest}.sock"
    pointer = folder / f"{index.stem}.where"
    if not serving:  # a client: where the server said, else the usual place
        said = _pointed(pointer)
        if said is not None:
            return Place(said)
        if private_folder(short.parent):
            return Place(short)
        return Place(None, f"no private socket folder for {path}")
    said = _pointed(pointer)
    if said is not None and _alive(said):
        return Place(said)  # another server's, alive: it is not taken over
    with contextlib.suppress(OSError):
        pointer.unlink()
    if not _fits(short):
        return Place(None, f"the socket path {path} is too long for AF_UNIX")
    log.info("the socket path %s is too long for AF_UNIX; using %s", path, short)
    usable = _usable(short.parent, short, tighten=False)
    if usable.path is not None:
        return usable
    try:  # another user's folder, or a link: a private new one, pointed at from the data folder
        fresh = Path(tempfile.mkdtemp(prefix="ve-")) / short.name
        if not _fits(fresh):
            fresh.parent.rmdir()
            return Place(None, f"{usable.reason}, and a new folder's path is too long")
        write_whole(pointer, os.fsencode(fresh))
    except OSError as exc:
        return Place(None, f"{usable.reason}, and no private folder instead: {exc}")
    log.warning("%s; serving on %s instead", usable.reason, fresh)
    return Place(fresh, made=fresh.parent, pointer=pointer)


def _temporary(path: Path, pid: int) -> Path:
    """The name a server binds before it renames the socket to ``path`` (a client never sees
    it bound but not listening)."""
    return path.with_name(f".{path.name}.{pid}")


def _fits(path: Path) -> bool:
    """Whether a server can bind the socket ``path``: the temporary name it binds first, with
    any process id, fits ``sun_path``."""
    return len(os.fsencode(_temporary(path, _LARGEST_PID))) < PATH_LIMIT


def _pointed(pointer: Path) -> Path | None:
    """The socket path a server wrote in ``pointer``, when its folder is this user's own."""
    try:
        said = Path(os.fsdecode(pointer.read_bytes()[:PATH_LIMIT]))
    except OSError:
        return None
    return said if said.is_absolute() and private_folder(said.parent) else None


def _usable(folder: Path, path: Path, tighten: bool = True) -> Place:
    """``path`` if ``folder`` is (or can be made) the owner's alone: owned by this user, 0700
    (``tighten``: a folder of this user's with wider modes is made 0700; else it is refused)."""
    try:
        make_private_folder(folder)
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return Place(None, f"{folder} is not a folder of this user")
        if stat.S_IMODE(info.st_mode) != 0o700:
            if not tighten:
                return Place(None, f"{folder} is open to others")
            os.chmod(folder, 0o700)
    except OSError as exc:
        return Place(None, f"cannot prepare {folder}: {exc.strerror or exc}")
    return Place(path)


def private_folder(folder: Path) -> bool:
    """Whether ``folder`` is a folder of this user that nobody else can enter (0700)."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and stat.S_IMODE(info.st_mode) == 0o700
    )


def peer_uid(conn: socket.socket) -> int | None:
    """The user id of the process at the other end of ``conn``, where the platform says it."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


def peer_allowed(conn: socket.socket, folder: Path, uid: int | None = None) -> bool:
    """Whether the peer of ``conn`` is the user ``uid`` (default: this one).  Where the
    platform cannot tell, only when the socket's ``folder`` is this user's 0700 folder."""
    expected = os.getuid() if uid is None else uid
    seen = peer_uid(conn)
    if seen is None:
        return private_folder(folder)
    return seen == expected


def _read_line(
    conn: socket.socket,
    limit: int,
    deadline: float | None = None,
    data: bytearray | None = None,
) -> bytes:
    """One line from ``conn`` (without its newline); :class:`Refused` when longer than
    ``limit`` bytes, ``ConnectionError`` when the peer closes first, ``TimeoutError`` when the
    line is not whole by ``deadline`` (:func:`time.monotonic`), however it trickles in.
    ``data``: the bytes read but not yet used, kept there for the next line."""
    data = bytearray() if data is None else data
    while True:
        end = data.find(b"\n")
        if end >= 0:
            if end + 1 > limit:
                raise Refused(f"a line longer than {limit} bytes")
            line = bytes(data[:end])
            del data[: end + 1]
            return line
        if len(data) > limit:
            raise Refused(f"a line longer than {limit} bytes")
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the line did not come in time")
            conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError("the other end closed the connection")
        data += chunk


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    conn.sendall(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")


def parse_request(line: bytes, index: Path, operations: frozenset[str]) -> Request:
    """The request in ``line``, checked; :class:`Refused` saying what is wrong with it."""
    try:
        request = jsontext.loads(line, MAX_DEPTH)
    except ValueError as exc:  # UnicodeDecodeError and nesting too deep included
        deep = "nested" in str(exc)
        raise Refused(f"not a JSON line{f' ({exc})' if deep else ''}") from None
    if not isinstance(request, dict):
        raise Refused("not a JSON object")
    if request.get("protocol") != PROTOCOL:
        raise Refused(f"protocol {request.get('protocol')!r}, this server speaks {PROTOCOL}")
    if request.get("version") != __version__:
        raise Refused(f"version {request.get('version')!r}, this server is {__version__}")
    if request.get("index") != str(index):
        raise Refused("a request for another index")
    if request.get("op") not in operations:
        raise Refused(f"unknown operation {request.get('op')!r}")
    if not isinstance(request.get("args"), dict):
        raise Refused("no arguments")
    return request


class Server:
    """Serves ``handler`` on the socket of ``index`` until :meth:`stop`, each connection on a
    thread of its own (see the module); ``delay()`` says why an answer may take a while.
    :meth:`start` returns whether it serves (another live server of the same index, or no
    usable place: it does not, and says why in a warning)."""

    def __init__(
        self,
        index: Path,
        handler: Handler,
        operations: frozenset[str],
        delay: Delay | None = None,
    ) -> None:
        self.index = index
        self.handler = handler
        self.operations = operations
        self.delay = delay
        self.place = place(index, serving=True)
        self.reason = self.place.reason
        self._sock: socket.socket | None = None
        self._inode: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._clients: set[threading.Thread] = set()
        self._clients_lock = threading.Lock()
        self._handlers = threading.BoundedSemaphore(HANDLERS)
        #: Requests answered, and connections refused for want of a thread (tests, bench).
        self.accepted = 0
        self.answered = 0
        self.turned_away = 0
        self._last_request = time.monotonic()  # or the start: what :meth:`idle` counts from

    @property
    def path(self) -> Path | None:
        return self.place.path

    @property
    def serving(self) -> bool:
        return self._sock is not None

    def idle(self) -> float:
        """Seconds since the last request was accepted (or since the server started)."""
        return time.monotonic() - self._last_request

    def start(self) -> bool:
        path = self.path
        if path is None:
            log.warning("the command line will not be answered warm: %s", self.reason)
            return False
        if _alive(path):
            self.reason = f"another process already serves {path}"
            log.warning("the command line will not be answered warm: %s", self.reason)
            return False
        temporary = _temporary(path, os.getpid())
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old = os.umask(0o177)
            try:
                sock.bind(os.fspath(temporary))
            finally:
                os.umask(old)
            os.chmod(temporary, 0o600)
            sock.listen(socket.SOMAXCONN)
            os.replace(temporary, path)  # whole: a client never sees it bound but not listening
            self._inode = path.lstat().st_ino
        except OSError as exc:
            sock.close()
            with contextlib.suppress(OSError):
                temporary.unlink()
            self.reason = f"cannot serve on {path}: {exc.strerror or exc}"
            log.warning("the command line will not be answered warm: %s", self.reason)
            return False
        sock.settimeout(0.2)
        self._sock = sock
        self._last_request = time.monotonic()
        self._thread = threading.Thread(target=self._serve, name="warm-server", daemon=True)
        self._thread.start()
        log.info("serving the command line on %s", path)
        return True

    def stop(self, wait: float = REQUEST_TIMEOUT) -> None:
        """Stop accepting, wait up to ``wait`` seconds for the answers under way, and remove
        the socket (and the folder made for it)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        deadline = time.monotonic() + wait
        with self._clients_lock:
            clients = list(self._clients)
        for client in clients:
            client.join(max(0.0, deadline - time.monotonic()))
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            path = self.path
            with contextlib.suppress(OSError):
                if path is not None and path.lstat().st_ino == self._inode:
                    path.unlink()
            with contextlib.suppress(OSError):
                if self.place.pointer is not None:
                    self.place.pointer.unlink()
                if self.place.made is not None:
                    self.place.made.rmdir()

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    return
                continue
            with self._clients_lock:
                crowded = len(self._clients) >= MAX_CLIENTS
                if not crowded:
                    client = threading.Thread(
                        target=self._client, args=(conn,), name="warm-client", daemon=True
                    )
                    self._clients.add(client)
            if crowded:
                self.turned_away += 1
                log.info("refused a connection: %d clients already served", MAX_CLIENTS)
                with conn, contextlib.suppress(OSError):
                    conn.setblocking(False)
                    _send(conn, {"protocol": PROTOCOL, "ok": False, "error": "too many clients"})
                continue
            client.start()

    def _client(self, conn: socket.socket) -> None:
        try:
            with conn:
                self._answer(conn)
        finally:
            with self._clients_lock:
                self._clients.discard(threading.current_thread())

    def _answer(self, conn: socket.socket) -> None:
        assert self.path is not None
        try:
            if not peer_allowed(conn, self.path.parent):
                log.warning("refused a connection from another user")
                _send(conn, {"protocol": PROTOCOL, "ok": False, "error": "another user"})
                return
            try:
                line = _read_line(conn, MAX_REQUEST, time.monotonic() + REQUEST_TIMEOUT)
                request = parse_request(line, self.index, self.operations)
            except Refused as exc:
                log.info("refused a request: %s", exc)
                _send(conn, {"protocol": PROTOCOL, "ok": False, "error": str(exc)})
                return
            self._last_request = time.monotonic()
            with self._clients_lock:
                self.accepted += 1
            delay = self.delay() if self.delay is not None else None
            conn.settimeout(REQUEST_TIMEOUT)
            _send(conn, {"protocol": PROTOCOL, "ok": True, "accepted": True, "delay": delay})
            try:
                with self._handlers:
                    reply = self.handler(request["op"], request["args"])
            except Refused as exc:
                log.info("refused a request: %s", exc)
                _send(conn, {"protocol": PROTOCOL, "ok": False, "error": str(exc)})
                return
            except Exception:
                log.exception("a request failed")
                _send(conn, {"protocol": PROTOCOL, "ok": False, "error": "the request failed"})
                return
            with self._clients_lock:
                self.answered += 1
            _send(conn, {"protocol": PROTOCOL, "ok": True, **reply})
        except OSError as exc:  # the client went away, or said nothing in time: one line
            log.info("a client went away: %s", exc or type(exc).__name__)


def _alive(path: Path) -> bool:
    """Whether someone listens on ``path`` (a dead socket there is removed)."""
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(CONNECT_TIMEOUT)
        try:
            probe.connect(os.fspath(path))
        except (ConnectionRefusedError, FileNotFoundError):
            _remove_dead(path)
            return False
        except OSError:
            return False
    return True


def _remove_dead(path: Path) -> None:
    """Remove the socket ``path`` nobody listens on, when it is this user's, in a private
    folder (another user's file, or one in a shared folder, is left alone)."""
    try:
        info = path.lstat()
        mine = stat.S_ISSOCK(info.st_mode) and info.st_uid == os.getuid()
        if mine and private_folder(path.parent):
            path.unlink()
            log.info("removed %s: no process listens on it any more", path)
    except OSError:
        pass


def ask(index: Path, op: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """The reply of the server of ``index`` to ``op`` with ``args``, or ``None`` (said in the
    log at ``-v``) when there is none to ask or it does not answer: the caller works alone."""
    where = place(index) if hasattr(socket, "AF_UNIX") else Place(None, "no AF_UNIX here")
    path = where.path
    if path is None:
        log.info("working alone: %s", where.reason)
        return None
    if not path.exists():
        log.info("working alone: no watch or window serves this vault")
        return None
    if not private_folder(path.parent):
        log.info("working alone: %s is not this user's private folder", path.parent)
        return None
    request = {"protocol": PROTOCOL, "version": __version__, "index": str(index), "op": op}
    request["args"] = args
    try:
        line = json.dumps(request, ensure_ascii=True).encode("ascii") + b"\n"
    except (TypeError, ValueError):
        log.info("working alone: arguments that do not go into JSON")
        return None
    if len(line) > MAX_REQUEST:
        log.info("working alone: a request longer than %d bytes", MAX_REQUEST)
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        try:
            _connect(conn, path)
        except (ConnectionRefusedError, FileNotFoundError):
            log.info("working alone: nobody listens on %s any more", path)
            _remove_dead(path)
            return None
        except OSError as exc:
            log.info("working alone: cannot connect to %s: %s", path, exc)
            return None
        try:
            if not peer_allowed(conn, path.parent):
                log.info("working alone: %s is served by another user", path)
                return None
            conn.sendall(line)
            unread = bytearray()
            reply = _reply(conn, time.monotonic() + ACCEPT_TIMEOUT, unread)
            if isinstance(reply, dict) and reply.get("accepted"):
                delay = reply.get("delay")
                if delay:
                    log.info("the server is %s; waiting for its answer", delay)
                wait = LOADING_TIMEOUT if delay else QUESTION_TIMEOUT
                reply = _reply(conn, time.monotonic() + wait, unread)
        except TimeoutError:
            log.info(
                "working alone: %s did not answer in time (a stopped or hung server: "
                "%g s to accept a request)",
                path,
                ACCEPT_TIMEOUT,
            )
            return None
        except (OSError, Refused, ValueError) as exc:
            log.info("working alone: no answer from %s: %s", path, exc)
            return None
    if not isinstance(reply, dict) or reply.get("protocol") != PROTOCOL or not reply.get("ok"):
        error = reply.get("error") if isinstance(reply, dict) else "not a JSON object"
        log.info("working alone: the server refused: %s", error)
        return None
    return reply


def _connect(conn: socket.socket, path: Path) -> None:
    """Connect ``conn`` to ``path``, waiting out a full backlog up to :data:`CONNECT_TIMEOUT`."""
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        conn.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            conn.connect(os.fspath(path))
            return
        except BlockingIOError:  # EAGAIN: the backlog is full for now
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _reply(conn: socket.socket, deadline: float, unread: bytearray) -> Any:
    """The next line the server sends, as JSON, by ``deadline`` (``unread``: see
    :func:`_read_line`)."""
    return jsontext.loads(_read_line(conn, MAX_REPLY, deadline, unread), MAX_DEPTH)
