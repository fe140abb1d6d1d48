"""One model call at a time, a search's question first.

A model is used by one call at a time (torch modules and the e5 engine are not thread-safe), and
the live index embeds a vault's chunks in the background for minutes to hours.  A question typed
meanwhile must not wait behind that backlog: the background work takes the model one small batch
at a time (:data:`PASSAGE_TOKENS`), and before each batch it lets every waiting question go first.
So a question waits at most for the one small batch under way, however long the backlog.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: Word pieces per model batch of passages (chunks of notes), padding included: a question typed
#: while the vault embeds waits for at most one such batch.  1,024 is 4–8 chunks of a typical
#: vault, about 0.2–0.5 s on a loaded 2-core laptop (``vault-explorer bench``: query embedding
#: while a vault embeds, and the throughput it costs).
PASSAGE_TOKENS = 1024


class ModelGate:
    """Turns at a model: :meth:`turn` holds it for one batch; a question (``query=True``) that
    waits goes before any passage batch not yet started."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._busy = False
        self._questions = 0

    @contextmanager
    def turn(self, *, query: bool) -> Iterator[None]:
        with self._changed:
            if query:
                self._questions += 1
                self._changed.notify_all()  # for whoever watches questions_waiting
            try:
                while self._busy or (not query and self._questions):
                    self._changed.wait()
            finally:
                if query:
                    self._questions -= 1
            self._busy = True
        try:
            yield
        finally:
            with self._changed:
                self._busy = False
                self._changed.notify_all()

    @property
    def questions_waiting(self) -> int:
        with self._changed:
            return self._questions
