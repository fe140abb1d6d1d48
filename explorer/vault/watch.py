"""Watching a vault: file system events as batches of vault-relative paths.

A :class:`VaultWatcher` runs a recursive watchdog observer over the vault, keeps only the events
that can change a note (the ignore rules decide, as they do for the scanner), and coalesces them:
a batch is handed out once the vault has been quiet for ``quiet`` seconds, or once its first event
is ``max_wait`` seconds old, whichever comes first.  A batch is a set of paths, not a list of
events: the reader of a batch looks at the files as they are *now*, so editors' atomic saves
(``note.md.tmp`` renamed over ``note.md``), delete-then-create, and events reported out of order all
come down to "look at ``note.md`` again".  For a move, both the source and the destination are in
the batch, so the index sees the old note vanish and the new one appear in the same pass (and can
keep its vectors).

Watching can fail: the observer can die, inotify can run out of watches or overflow its queue.
:meth:`VaultWatcher.failure` says so with a reason; lost events ask for a full reconcile
(:attr:`Batch.reconcile`).  The caller reconciles periodically anyway, so the index converges.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from explorer.errors import MachineError
from explorer.home import expand_home
from explorer.vault.ignore import IGNORE_FILE, IgnoreRules

DEFAULT_QUIET = 0.3
DEFAULT_MAX_WAIT = 2.0

#: The events that can change a note.  Opens, reads and folder "modified" events (which only say
#: that an entry of the folder changed, and come with that entry's own event) are not asked for.
_EVENT_TYPES: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


@dataclass(frozen=True, slots=True)
class Batch:
    """Paths to look at again, coalesced from a burst of events."""

    paths: frozenset[str]
    #: Events were lost or the ignore rules changed: only a full reconcile is exact.
    reconcile: bool = False
    #: File system events that went into this batch.
    events: int = 0
    #: ``time.monotonic()`` of the batch's first event (to measure freshness).
    first_event: float = 0.0


class Coalescer:
    """Collects paths until ``quiet`` seconds pass without a new one, or the batch is
    ``max_wait`` seconds old.  Thread-safe: producers call :meth:`add`, one consumer calls
    :meth:`next_batch` and, once the batch is applied, :meth:`task_done`."""

    def __init__(
        self,
        quiet: float = DEFAULT_QUIET,
        max_wait: float = DEFAULT_MAX_WAIT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if quiet < 0 or max_wait < quiet:
            raise ValueError(f"need 0 <= quiet <= max_wait, got {quiet:g} and {max_wait:g}")
        self.quiet = quiet
        self.max_wait = max_wait
        self._clock = clock
        self._cond = threading.Condition()
        self._paths: set[str] = set()
        self._reconcile = False
        self._events = 0
        self._first = 0.0
        self._last = 0.0
        self._in_flight = 0
        self._kicked = False

    def add(self, paths: Iterable[str], *, reconcile: bool = False) -> None:
        """Record one event's paths (an event with no path and no reconcile is not recorded)."""
        paths = list(paths)
        if not paths and not reconcile:
            return
        with self._cond:
            now = self._clock()
            if not self._pending():
                self._first = now
            self._last = now
            self._paths.update(paths)
            self._reconcile = self._reconcile or reconcile
            self._events += 1
            self._cond.notify_all()

    def ready_in(self, now: float) -> float | None:
        """Seconds until the pending batch is due (0: due now), ``None`` if nothing is pending."""
        with self._cond:
            if not self._pending():
                return None
            due = min(self._last + self.quiet, self._first + self.max_wait)
            return max(0.0, due - now)

    def next_batch(self, timeout: float | None = None) -> Batch | None:
        """The next due batch, waiting up to ``timeout`` seconds; ``None`` on time-out or
        :meth:`kick`."""
        deadline = None if timeout is None else self._clock() + timeout
        with self._cond:
            while True:
                if self._kicked:
                    self._kicked = False
                    return None
                now = self._clock()
                wait = self.ready_in(now)
                if wait == 0.0:
                    return self._take()
                if deadline is not None:
                    left = deadline - now
                    if left <= 0:
                        return None
                    wait = left if wait is None else min(wait, left)
                self._cond.wait(wait)

    def task_done(self) -> None:
        """The batch handed out last has been applied."""
        with self._cond:
            self._in_flight = max(0, self._in_flight - 1)
            self._cond.notify_all()

    def kick(self) -> None:
        """Make a waiting (or the next) :meth:`next_batch` return ``None`` at once."""
        with self._cond:
            self._kicked = True
            self._cond.notify_all()

    @property
    def idle(self) -> bool:
        """Nothing is waiting to be handed out and nothing handed out is still being applied."""
        with self._cond:
            return not self._pending() and self._in_flight == 0

    def _pending(self) -> bool:
        return bool(self._paths) or self._reconcile

    def _take(self) -> Batch:
        batch = Batch(frozenset(self._paths), self._reconcile, self._events, self._first)
        self._paths = set()
        self._reconcile = False
        self._events = 0
        self._in_flight += 1
        return batch


class WatchError(MachineError, RuntimeError):
    """The vault cannot be watched; the message says why."""


def event_paths(root: str, rules: IgnoreRules, event: FileSystemEvent) -> tuple[list[str], bool]:
    """The vault-relative paths of ``event`` worth looking at again, and whether the event
    changes the ignore rules (which calls for a full reconcile).

    Kept: note files that the rules let through, and folders that are not ignored (a folder
    created, deleted or moved stands for the notes below it).  For a move, each side is judged on
    its own: a temp file renamed over a note yields the note only, a note renamed to a non-note
    name yields the note (which is now gone).
    """
    sides = [event.src_path]
    if isinstance(event, (FileMovedEvent, DirMovedEvent)) and event.dest_path:
        sides.append(event.dest_path)
    out: list[str] = []
    reconcile = False
    for side in sides:
        rel = _relative(root, os.fsdecode(side))
        if not rel:
            continue
        if event.is_directory:
            if not rules.ignores_dir(rel):
                out.append(rel)
        elif rel == IGNORE_FILE:
            reconcile = True
        elif not rules.ignores_file(rel):
            out.append(rel)
    return out, reconcile


def _folder_identity(root: str) -> tuple[int, int, str] | None:
    """(device, inode, real path) of what ``root`` names, or ``None`` if nothing is there."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return st.st_dev, st.st_ino, os.path.realpath(root)


def _relative(root: str, path: str) -> str | None:
    rel = os.path.relpath(path, root)
    if rel == "." or rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


class _Handler(FileSystemEventHandler):
    """Runs on the observer thread: translate, filter, hand to the coalescer — never raise
    (an exception here would end the observer)."""

    def __init__(self, watcher: VaultWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        try:
            self._watcher._on_event(event)
        except Exception as exc:  # keep the observer alive; the reconcile will catch up
            self._watcher._note_failure(f"event handler failed: {type(exc).__name__}: {exc}")


class _WatchdogLog(logging.Handler):
    """Listens to watchdog's own log for lost events (inotify queue overflow) and for watches
    it could not set up again, which it reports only by logging."""

    def __init__(self, watcher: VaultWatcher) -> None:
        super().__init__(logging.WARNING)
        self._watcher = watcher

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "overflow" in message.lower():
            self._watcher._coalescer.add((), reconcile=True)
        if record.levelno >= logging.ERROR and "watch" in message.lower():
            self._watcher._note_failure(f"watchdog: {message}")


class VaultWatcher:
    """A recursive watchdog observer over one vault, handing out :class:`Batch` es."""

    def __init__(
        self,
        root: Path,
        *,
        quiet: float = DEFAULT_QUIET,
        max_wait: float = DEFAULT_MAX_WAIT,
        rules: IgnoreRules | None = None,
    ) -> None:
        self.root = expand_home(root).resolve()
        self._root = str(self.root)
        #: The folder the observer watches: the vault's, or the one its path links to now
        #: (inotify sees nothing through a link); event paths are relative to it.
        self._watched = self._root
        self._rules = rules or IgnoreRules.for_vault(self.root)
        self._coalescer = Coalescer(quiet, max_wait)
        self._observer: BaseObserver | None = None
        self._log_handler = _WatchdogLog(self)
        self._failure: str | None = None
        self._lock = threading.Lock()
        #: What the vault's path named when watching started (see :func:`_folder_identity`).
        self._identity: tuple[int, int, str] | None = None

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Start watching; raises :class:`WatchError` if the vault cannot be watched (for
        example when inotify's watch or instance limit is reached)."""
        if self._observer is not None:
            return
        self._failure = None
        self._identity = _folder_identity(self._root)
        self._watched = self._identity[2] if self._identity is not None else self._root
        try:
            observer = Observer()
            observer.schedule(
                _Handler(self), self._watched, recursive=True, event_filter=_EVENT_TYPES
            )
            observer.start()
        except OSError as exc:
            raise WatchError(f"cannot watch {self.root}: {exc.strerror or exc}") from exc
        self._observer = observer
        logging.getLogger("watchdog").addHandler(self._log_handler)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching (idempotent); pending paths stay available to :meth:`next_batch`."""
        observer, self._observer = self._observer, None
        logging.getLogger("watchdog").removeHandler(self._log_handler)
        if observer is None:
            return
        observer.stop()
        if observer.is_alive():
            observer.join(timeout)

    @property
    def running(self) -> bool:
        return self._observer is not None

    def failure(self) -> str | None:
        """Why watching does not work (``None`` while it does): a dead observer thread, a handler
        error, a watch that could not be added."""
        if self._failure is not None:
            return self._failure
        observer = self._observer
        if observer is None:
            return None
        if not self.root.is_dir():
            return f"the vault folder {self.root} is gone"
        replaced = self._replaced()
        if replaced is not None:
            return replaced
        threads: list[threading.Thread] = [observer, *observer.emitters]
        reader = getattr(observer, "_inotify_fd", None)  # watchdog's inotify reader thread
        if isinstance(reader, threading.Thread):
            threads.append(reader)
        if not all(t.is_alive() for t in threads):
            return "the file system observer stopped"
        return None

    def _replaced(self) -> str | None:
        """A line saying that the vault's path now names another folder, or ``None``.

        inotify watches the folder it was given, not its path: when the folder is replaced (by
        a link to another one, or by a new folder of the same name), the old watch goes on
        seeing nothing while the index would follow the path.  Said once; the restart that
        follows watches what the path names now."""
        now = _folder_identity(self._root)
        if now is None or self._identity is None or now == self._identity:
            return None
        if os.path.islink(self._root):
            return (
                f"the vault folder {self.root} was replaced by a link to {now[2]}: "
                "watching and indexing the folder it links to"
            )
        return f"the vault folder {self.root} was replaced by another folder: watching that one"

    # ------------------------------------------------------------------ batches

    def next_batch(self, timeout: float | None = None) -> Batch | None:
        return self._coalescer.next_batch(timeout)

    def task_done(self) -> None:
        self._coalescer.task_done()

    def kick(self) -> None:
        self._coalescer.kick()

    @property
    def idle(self) -> bool:
        return self._coalescer.idle

    # ------------------------------------------------------------------ observer thread

    def _on_event(self, event: FileSystemEvent) -> None:
        paths, reconcile = event_paths(self._watched, self._rules, event)
        if reconcile:
            self._rules = IgnoreRules.for_vault(self.root)
        if (
            isinstance(event, DirDeletedEvent)
            and os.fsdecode(event.src_path).rstrip(os.sep) == self._watched
        ):
            self._note_failure(f"the vault folder {self.root} was deleted")
        self._coalescer.add(paths, reconcile=reconcile)

    def _note_failure(self, reason: str) -> None:
        with self._lock:
            if self._failure is None:
                self._failure = reason
        # Whatever was missed, a full reconcile brings the index back to the files.
        self._coalescer.add((), reconcile=True)
