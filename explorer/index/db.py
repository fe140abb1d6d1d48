"""Opening the index of a vault: where it lives, WAL, migrations, and rebuilding a broken one.

The index is derived data.  A missing, corrupt, unreadable or too-new database is moved out of
the way and built again from the vault; :attr:`IndexDB.notices` tells the user it happened.

Opening says what it is for.  :meth:`IndexDB.open_writer` (the holder of the writer lease) may
create, migrate and move a damaged file aside; :meth:`IndexDB.open_reader` never writes: a
read-only connection to the index as it is, which waits for the writer to create or migrate it.
:meth:`IndexDB.open` is the writer's open for a process that is the only user of its index
(a command run to its end, a test).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import shlex
import sqlite3
import tempfile
import time
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

import platformdirs

from explorer.errors import MachineError
from explorer.files import create_private, make_private_folder, tighten
from explorer.home import expand_home
from explorer.index.counts import TermCounts
from explorer.index.migrations import LATEST_VERSION, migrate

T = TypeVar("T")

ENV_DATA_DIR = "VAULT_EXPLORER_DATA"
#: How long a connection waits for another's write lock before it says the index is busy.
BUSY_TIMEOUT_MS = 30_000
APP_NAME = "vault-explorer"

if TYPE_CHECKING:
    from explorer.index.lease import WriterLease


class IndexError_(MachineError, RuntimeError):
    """The index cannot be opened or written, even after a rebuild."""


class IndexUnavailable(IndexError_):
    """The index cannot be used *here and now* because of the environment, not because it is
    broken: a read-only or missing data folder, a locked database, a full disk, no permission,
    another process holding the writer's lock.  The database is left exactly as it was.  The
    message is one sentence for the user: what is wrong and what to do."""


#: The data folder's subfolders of the program's own files (indexes and what sits beside them,
#: the warm path's sockets, the window's log), made owner-only with it.
DATA_SUBFOLDERS = ("indexes", "run", "logs")


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where indexes live: ``--data-dir``, else ``$VAULT_EXPLORER_DATA``, else the user data dir."""
    chosen = override or os.environ.get(ENV_DATA_DIR)
    if chosen:
        return expand_home(chosen).resolve()
    return default_data_dir()


def default_data_dir() -> Path:
    """The user data dir: where indexes live when nothing says otherwise."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def data_dir_of(database: Path) -> Path:
    """The data folder that holds the index file ``database`` (see :func:`index_path`)."""
    return database.parent.parent


def index_path(vault: Path, override: str | os.PathLike[str] | None = None) -> Path:
    """The database file of ``vault``: one per vault, named after it and its absolute path."""
    root = expand_home(vault).resolve()
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name).strip("-")[:40] or "vault"
    return data_dir(override) / "indexes" / f"{slug}-{digest}.sqlite"


def connect(path: Path, readonly: bool = False) -> sqlite3.Connection:
    """A connection with the settings every user of the index relies on."""
    if readonly:
        conn = sqlite3.connect(
            f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
    else:
        conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
        )
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_MS)}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        _set_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _set_wal(conn: sqlite3.Connection, attempts: int = 100) -> None:
    """Switch to WAL, waiting out another connection that is creating the same new database.

    Changing the journal mode needs an exclusive lock and SQLite does not call the busy handler
    for it, so "database is locked" here means "someone else is mid-setup": wait and retry.
    """
    for attempt in range(attempts):
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.05)


def connect_versioned(path: Path, *, readonly: bool = False) -> tuple[sqlite3.Connection, int]:
    """A connection to the existing database at ``path`` and its schema version; a failure
    of the environment (locked, unreadable, a full disk) is :class:`IndexUnavailable`."""
    try:
        conn = connect(path, readonly=readonly)
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        except BaseException:
            conn.close()
            raise
    except sqlite3.Error as exc:
        if is_environment(exc):
            raise IndexUnavailable(describe_error(exc, path)) from exc
        raise
    return conn, version


def index_command(vault: Path | str, data: str | os.PathLike[str] | None = None) -> str:
    """The command that indexes ``vault`` into the data folder ``data`` names (as
    :func:`data_dir`), ready to paste into a shell: ``--data-dir`` is named whenever that folder
    is not the default one — also when ``$VAULT_EXPLORER_DATA`` chose it, since the hint may be
    read where the environment differs (an MCP client starts the server with its own)."""
    words = ["vault-explorer", "index", str(vault)]
    folder = data_dir(data)
    if folder != default_data_dir():
        words += ["--data-dir", str(folder)]
    return shlex.join(words)


def no_index_text(vault: Path, data: str | os.PathLike[str] | None = None) -> str:
    """What a command or the window says when ``vault`` has no index yet, and how to make one."""
    return f"no index for {vault} yet (run: {index_command(vault, data)})"


class IndexDB:
    """The open index of one vault.  Not shared between threads: open one per thread."""

    def __init__(self, conn: sqlite3.Connection, path: Path, vault: Path) -> None:
        self.conn = conn
        self.path = path
        self.vault = vault
        self.notices: list[str] = []
        #: The notes each term is in, kept between this connection's queries.
        self.term_counts = TermCounts()
        #: What :meth:`kept` keeps, and the generation it was worked out in.
        self._kept: dict[Hashable, object] = {}
        self._kept_generation = -1

    @classmethod
    def open(
        cls, vault: Path, data: str | os.PathLike[str] | None = None, *, path: Path | None = None
    ) -> IndexDB:
        """Open (creating, migrating or rebuilding as needed) the index of ``vault``.

        Only a damaged database (SQLite says corrupt or not a database, its schema is missing,
        or it is too new) is moved aside and rebuilt.  A busy, locked, read-only or unwritable
        one is left exactly as it is and :class:`IndexUnavailable` says why.
        """
        vault = expand_home(vault).resolve()
        path = path or index_path(vault, data)
        try:
            make_private_folder(path.parent)
        except OSError as exc:
            raise IndexUnavailable(_folder_problem(path.parent, exc)) from exc
        notices = _made_private(path.parent.parent) if path.parent.name == "indexes" else []
        try:
            conn = _open_checked(path)
        except (sqlite3.Error, _Damaged) as exc:
            if not is_damage(exc):
                raise IndexUnavailable(describe_error(exc, path)) from exc
            notices.append(
                f"index at {path} could not be used ({exc}); it was moved aside to "
                f"{path.name}.broken; rebuilding it from the vault"
            )
            try:
                _remove_database(path)
            except OSError as move:
                raise IndexUnavailable(
                    f"the index at {path} is damaged ({exc}) and cannot be moved aside "
                    f"({move.strerror or move}); delete it, or choose another --data-dir"
                ) from move
            try:
                conn = _open_checked(path)
            except (sqlite3.Error, _Damaged) as again:
                if not is_damage(again):
                    raise IndexUnavailable(describe_error(again, path)) from again
                raise IndexError_(f"cannot create the index at {path}: {again}") from again
        except OSError as exc:
            raise IndexUnavailable(_folder_problem(path.parent, exc)) from exc
        db = cls(conn, path, vault)
        db.notices = notices
        if db.get_meta("vault") is None:
            with db.transaction():
                db.set_meta("vault", str(vault))
        return db

    @classmethod
    def open_writer(
        cls,
        lease: WriterLease,
        vault: Path,
        data: str | os.PathLike[str] | None = None,
    ) -> IndexDB:
        """:meth:`open` for the holder of the index's writer lease: the one that may create,
        migrate and rebuild it while other connections read it."""
        path = index_path(expand_home(vault).resolve(), data)
        if not lease.held or lease.db_path != path:
            raise ValueError(f"the writer lease held is not the one of {path}")
        return cls.open(vault, data, path=path)

    @classmethod
    def open_reader(
        cls,
        vault: Path,
        data: str | os.PathLike[str] | None = None,
        *,
        path: Path | None = None,
    ) -> IndexDB:
        """A read-only connection (SQLite's ``mode=ro``) to the index of ``vault`` as it is:
        nothing is created, migrated or moved aside.  :class:`IndexNotReady` when there is no
        index yet or its schema is older than this program's (the writer migrates it);
        :class:`IndexUnavailable` when it cannot be read or is from a newer program."""
        vault = expand_home(vault).resolve()
        path = path or index_path(vault, data)
        if not path.exists():
            raise IndexNotReady(no_index_text(vault, data_dir_of(path)))
        try:
            conn, version = connect_versioned(path, readonly=True)
        except sqlite3.Error as exc:
            raise IndexUnavailable(describe_error(exc, path)) from exc
        if version != LATEST_VERSION:
            conn.close()
            if version > LATEST_VERSION:
                raise IndexTooNew(
                    f"the index at {path} was written by a newer vault-explorer (schema "
                    f"{version}); upgrade, or rebuild it with this version (vault-explorer index)"
                )
            raise IndexNotReady(
                f"the index at {path} has schema {version}; its writer has not migrated it "
                f"to {LATEST_VERSION} yet"
            )
        return cls(conn, path, vault)

    @classmethod
    def open_existing(cls, vault: Path, data: str | os.PathLike[str] | None = None) -> IndexDB:
        """Open an existing index as it is: no migration, no rebuild, no sync (``status``)."""
        vault = expand_home(vault).resolve()
        path = index_path(vault, data)
        if not path.exists():
            raise FileNotFoundError(no_index_text(vault, data))
        conn, version = connect_versioned(path)
        if version != LATEST_VERSION:
            conn.close()
            raise sqlite3.DatabaseError(
                f"index schema version {version}, expected {LATEST_VERSION}"
            )
        return cls(conn, path, vault)

    def index_command(self) -> str:
        """The command that brings this index up to date (:func:`index_command`)."""
        return index_command(self.vault, data_dir_of(self.path))

    def reopen(self) -> IndexDB:
        """A second connection to the same database, for another thread."""
        return IndexDB(connect(self.path), self.path, self.vault)

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error.

        An environment error (busy, read-only, disk full, I/O) comes out as
        :class:`IndexUnavailable` naming the real cause, even when SQLite has already rolled the
        transaction back by itself (as it does on a full disk).
        """
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._translated(exc) from exc
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException as exc:
            if self.conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._translated(exc) from exc
            raise

    def _translated(self, exc: sqlite3.Error) -> Exception:
        if is_environment(exc):
            return IndexUnavailable(describe_error(exc, self.path))
        return exc

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def generation(self) -> int:
        """A number that changes whenever notes, chunks or vectors change (cache key)."""
        value = self.get_meta("generation")
        return int(value) if value else 0

    def kept(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, worked out once per :meth:`generation` of the index and kept for this
        connection's later calls with the same ``key`` (a long-lived reader's: what every
        search states but no write changed, such as the chunks still waiting for vectors)."""
        generation = self.generation()
        if generation != self._kept_generation:
            self._kept, self._kept_generation = {}, generation
        if key not in self._kept:
            self._kept[key] = make()
        return cast(T, self._kept[key])

    def bump_generation(self) -> None:
        """Mark that notes, chunks or vectors changed; call inside the writing transaction."""
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    def rebuild_fts(self) -> None:
        """Rebuild the FTS5 table from ``notes`` (repairs any drift)."""
        with self.transaction():
            self.conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")

    def integrity(self) -> str | None:
        """``None`` when SQLite's ``PRAGMA integrity_check`` finds every page sound, else what
        it found (its first lines).  Reads the whole file: for ``status``, not for every open."""
        try:
            rows = [str(r[0]) for r in self.conn.execute("PRAGMA integrity_check(20)")]
        except sqlite3.DatabaseError as exc:
            return str(exc)
        if rows == ["ok"]:
            return None
        return "; ".join(rows[:5]) + (f" (and {len(rows) - 5} more)" if len(rows) > 5 else "")

    def fts_integrity(self) -> str | None:
        """``None`` when FTS5's integrity-check passes, else its message."""
        try:
            self.conn.execute(
                "INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)"
            )
        except sqlite3.DatabaseError as exc:
            return str(exc)
        return None


class IndexNotReady(IndexUnavailable):
    """The index is not there yet, or not at this program's schema yet: its writer creates or
    migrates it (a reader waits for that, or says how to make it)."""


class IndexTooNew(IndexUnavailable):
    """The index was written by a newer program: this one neither reads nor rewrites it."""


class _Damaged(Exception):
    """The database is not usable as an index: too new, or its schema is missing."""


#: SQLite's primary result codes (the low byte of an extended code).
_CORRUPT, _NOTADB = 11, 26
_BUSY, _LOCKED = 5, 6
_READONLY, _FULL, _CANTOPEN, _PERM, _IOERR, _AUTH, _NOMEM = 8, 13, 14, 3, 10, 23, 7
_ENVIRONMENT = {_BUSY, _LOCKED, _READONLY, _FULL, _CANTOPEN, _PERM, _IOERR, _AUTH, _NOMEM}


def _primary_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database file itself is damaged (the only reason to move it
    aside): SQLite's ``SQLITE_CORRUPT`` or ``SQLITE_NOTADB``, a schema that is not ours, or a
    version from a newer program."""
    return isinstance(exc, _Damaged) or _primary_code(exc) in (_CORRUPT, _NOTADB)


def is_environment(exc: BaseException) -> bool:
    """Whether ``exc`` is a problem of the machine rather than of the index or the program:
    busy or locked, read-only, disk full, cannot open, no permission, I/O error, no memory."""
    return _primary_code(exc) in _ENVIRONMENT


def describe_error(exc: BaseException, path: Path) -> str:
    """One sentence for the user: what is wrong with the index at ``path``, and what to do."""
    code = _primary_code(exc)
    if code in (_BUSY, _LOCKED):
        return (
            f"the index at {path} is busy: another process is writing it ({exc}); "
            "try again when it has finished"
        )
    if code in (_READONLY, _CANTOPEN, _PERM, _AUTH):
        return (
            f"cannot write the index at {path}: its folder is read-only or not permitted "
            f"({exc}); fix the permissions or choose another --data-dir"
        )
    if code == _FULL:
        return f"the disk holding the index at {path} is full; free some space and run again"
    if code == _IOERR:
        return f"cannot read or write the index at {path} ({exc}); check the disk"
    if code == _NOMEM:
        return f"out of memory while using the index at {path}"
    return f"the index at {path} cannot be used: {exc}"


def _folder_problem(folder: Path, exc: OSError) -> str:
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        return (
            f"the data folder {folder} is not a folder (a file is in the way); "
            "choose another --data-dir"
        )
    if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (
            f"cannot write to the data folder {folder} ({exc.strerror or exc}); fix its "
            "permissions or choose another --data-dir"
        )
    if exc.errno == errno.ENOSPC:
        return f"the disk holding {folder} is full; free some space and run again"
    return f"cannot use the data folder {folder}: {exc.strerror or exc}"


def _made_private(folder: Path) -> list[str]:
    """Take from the data folder ``folder`` and the program's files in it every permission
    of other users (:func:`explorer.files.tighten`): the line saying so, when it did.  A
    folder that is no data folder (an index opened at a path of its own) or that others
    share by nature (``/``, the home folder, the temporary folder) is left as it is."""
    if folder.name in ("", os.sep) or folder in _shared_folders():
        return []
    if not (folder / "indexes").is_dir():
        return []
    changed = tighten(folder, DATA_SUBFOLDERS)
    if not changed:
        return []
    return [
        f"made the data folder {folder} readable by you alone ({changed} of its files and "
        "folders were open to other users)"
    ]


def _shared_folders() -> set[Path]:
    """Folders others share by nature: never made private as a data folder."""
    shared = {Path(tempfile.gettempdir()).resolve(), Path("/")}
    with contextlib.suppress(RuntimeError, KeyError):
        shared.add(Path.home().resolve())
    return shared


def _open_checked(path: Path) -> sqlite3.Connection:
    """Open ``path`` and make sure it is a current index.  Takes the write lock only to create
    or migrate: opening a current index reads, so it never waits for a writer.  A new database
    is made owner-only first (SQLite gives its ``-wal`` and ``-shm`` the database's mode)."""
    create_private(path)
    conn = connect(path)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > LATEST_VERSION:
            raise _Damaged(
                f"schema version {version} is newer than this program's {LATEST_VERSION}"
            )
        if version < LATEST_VERSION:
            migrate(conn)
        try:
            conn.execute("SELECT count(*) FROM notes").fetchone()
            conn.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'x'").fetchone()
        except sqlite3.Error as exc:
            if _primary_code(exc) == 1:  # SQLITE_ERROR: "no such table", a schema not ours
                raise _Damaged(str(exc)) from exc
            raise
    except BaseException:
        conn.close()
        raise
    return conn


def _remove_database(path: Path) -> None:
    """Move a broken database aside (kept once, for a bug report) and drop its side files."""
    with contextlib.suppress(FileNotFoundError):
        path.replace(path.with_name(f"{path.name}.broken"))
    for suffix in ("-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(path) + suffix).unlink()
