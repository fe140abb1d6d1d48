"""Opening the index of a vault: where it lives, WAL, migrations, and rebuilding a broken one.

The index is derived data.  A missing, corrupt, unreadable or too-new database is moved out of
the way and built again from the vault; :attr:`IndexDB.notices` tells the user it happened.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import platformdirs

from explorer.index.migrations import LATEST_VERSION, migrate

ENV_DATA_DIR = "VAULT_EXPLORER_DATA"
APP_NAME = "vault-explorer"


class IndexError_(RuntimeError):
    """The index cannot be opened or written, even after a rebuild."""


class IndexUnavailable(IndexError_):
    """The index cannot be used *here and now* because of the environment, not because it is
    broken: a read-only or missing data folder, a locked database, a full disk, no permission,
    another process holding the writer's lock.  The database is left exactly as it was.  The
    message is one sentence for the user: what is wrong and what to do."""


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where indexes live: ``--data-dir``, else ``$VAULT_EXPLORER_DATA``, else the user data dir."""
    chosen = override or os.environ.get(ENV_DATA_DIR)
    if chosen:
        return Path(chosen).expanduser().resolve()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def index_path(vault: Path, override: str | os.PathLike[str] | None = None) -> Path:
    """The database file of ``vault``: one per vault, named after it and its absolute path."""
    root = vault.expanduser().resolve()
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
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    conn.execute("PRAGMA busy_timeout = 30000")
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


class IndexDB:
    """The open index of one vault.  Not shared between threads: open one per thread."""

    def __init__(self, conn: sqlite3.Connection, path: Path, vault: Path) -> None:
        self.conn = conn
        self.path = path
        self.vault = vault
        self.notices: list[str] = []

    @classmethod
    def open(
        cls, vault: Path, data: str | os.PathLike[str] | None = None, *, path: Path | None = None
    ) -> IndexDB:
        """Open (creating, migrating or rebuilding as needed) the index of ``vault``."""
        vault = vault.expanduser().resolve()
        path = path or index_path(vault, data)
        path.parent.mkdir(parents=True, exist_ok=True)
        notices: list[str] = []
        try:
            conn = _open_checked(path)
        except (sqlite3.DatabaseError, _TooNew) as exc:
            notices.append(
                f"index at {path} could not be used ({exc}); rebuilding it from the vault"
            )
            _remove_database(path)
            try:
                conn = _open_checked(path)
            except (sqlite3.DatabaseError, _TooNew) as again:
                raise IndexError_(f"cannot create the index at {path}: {again}") from again
        db = cls(conn, path, vault)
        db.notices = notices
        if db.get_meta("vault") is None:
            db.set_meta("vault", str(vault))
        return db

    @classmethod
    def open_existing(cls, vault: Path, data: str | os.PathLike[str] | None = None) -> IndexDB:
        """Open an existing index as it is: no migration, no rebuild, no sync (``status``)."""
        vault = vault.expanduser().resolve()
        path = index_path(vault, data)
        if not path.exists():
            raise FileNotFoundError(f"no index for {vault} yet (run: vault-explorer index {vault})")
        conn = connect(path)
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.DatabaseError:
            conn.close()
            raise
        if version != LATEST_VERSION:
            conn.close()
            raise sqlite3.DatabaseError(
                f"index schema version {version}, expected {LATEST_VERSION}"
            )
        return cls(conn, path, vault)

    def reopen(self) -> IndexDB:
        """A second connection to the same database, for another thread."""
        return IndexDB(connect(self.path), self.path, self.vault)

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

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

    def fts_integrity(self) -> str | None:
        """``None`` when FTS5's integrity-check passes, else its message."""
        try:
            self.conn.execute(
                "INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)"
            )
        except sqlite3.DatabaseError as exc:
            return str(exc)
        return None


class _TooNew(Exception):
    """The database was written by a newer version of this program."""


def _open_checked(path: Path) -> sqlite3.Connection:
    conn = connect(path)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > LATEST_VERSION:
            raise _TooNew(f"schema version {version} is newer than this program's {LATEST_VERSION}")
        migrate(conn)
        conn.execute("SELECT count(*) FROM notes").fetchone()
        conn.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'x'").fetchone()
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
