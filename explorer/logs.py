"""One set of named loggers, configured once at each entry point.

Every module logs to ``logging.getLogger(__name__)``, so all of the program's records fall under
the ``explorer`` logger.  :func:`configure` gives it its handlers: the terminal (standard error)
at the level ``-v`` asks for (warnings by default, ``-v`` information, ``-vv`` everything), and
for the window a log file in the data folder (:func:`log_file`) that keeps information and up
whatever the terminal shows, so a report of a problem has what led to it.  Records of the
libraries (watchdog, sentence-transformers) stay theirs.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path
from typing import TextIO

from explorer.files import create_private

#: The logger every module's ``getLogger(__name__)`` falls under.
ROOT = "explorer"
#: The window's log, under the data folder.
LOG_NAME = "window.log"
#: A log file is cut at this size, with one older file kept.
LOG_BYTES = 2 * 1024 * 1024

_OURS = "_vault_explorer_handler"


class _LazyFile(logging.handlers.RotatingFileHandler):
    """A rotating log file made (folder and all) at its first record, so that a window that
    never opens leaves no trace in the data folder."""

    broken = False

    def _open(self):  # type: ignore[no-untyped-def]
        create_private(Path(self.baseFilename))  # owner-only, whatever the umask
        return super()._open()

    def emit(self, record: logging.LogRecord) -> None:
        if not self.broken:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """A log file that cannot be written is said once, in one line, then left alone."""
        if self.broken:
            return
        self.broken = True
        reason = sys.exc_info()[1]
        print(f"vault-explorer: no log file at {self.baseFilename}: {reason}", file=sys.stderr)


def level_for(verbosity: int) -> int:
    """The terminal's level for ``-v`` given ``verbosity`` times."""
    if verbosity >= 2:
        return logging.DEBUG
    return logging.INFO if verbosity == 1 else logging.WARNING


def log_file(data: Path) -> Path:
    """Where the window logs, for the data folder ``data``."""
    return data / "logs" / LOG_NAME


def configure(
    verbosity: int = 0,
    *,
    prefix: str = "vault-explorer",
    stream: TextIO | None = None,
    file: Path | None = None,
) -> logging.Logger:
    """Give the ``explorer`` logger its handlers (replacing any an earlier call gave it): one
    line per record on ``stream`` (default standard error) at :func:`level_for` ``verbosity``,
    each line starting with ``prefix``; and, with ``file``, a rotating log file at information
    and up, with times, made at its first record.  A file that cannot be written is said by
    :mod:`logging` on standard error, not fatal."""
    logger = logging.getLogger(ROOT)
    for handler in list(logger.handlers):
        if getattr(handler, _OURS, False):
            logger.removeHandler(handler)
            handler.close()
    terminal = logging.StreamHandler(stream if stream is not None else sys.stderr)
    terminal.setLevel(level_for(verbosity))
    terminal.setFormatter(logging.Formatter(f"{prefix}: %(message)s"))
    setattr(terminal, _OURS, True)
    logger.addHandler(terminal)
    lowest = terminal.level
    if file is not None:
        try:
            written = _LazyFile(
                file, maxBytes=LOG_BYTES, backupCount=1, encoding="utf-8", delay=True
            )
        except OSError as exc:
            logger.warning("no log file at %s: %s", file, exc)
        else:
            written.setLevel(logging.INFO)
            written.setFormatter(
                logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
            )
            setattr(written, _OURS, True)
            logger.addHandler(written)
            lowest = min(lowest, logging.INFO)
    logger.setLevel(lowest)
    return logger
