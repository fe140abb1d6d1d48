"""Turns at a model, a search's question first.

The live index embeds a vault's chunks in the background for minutes to hours, with the model a
search embeds its question with.  A question typed meanwhile must wait neither behind that
backlog nor for the batch under way.  The background work takes the model one small batch at a
time (:data:`PASSAGE_TOKENS`), a :meth:`ModelGate.turn` each, and none starts while a question
runs.  A question runs at once, beside the batch under way, as a :meth:`ModelGate.question` on a
model of its own that shares the weights (a torch twin with its own tokenizer; a second handle
on the e5 engine, whose C state is not shared safely).  A torch batch also stops at its next
:meth:`ModelGate.pause_point` (between two steps through its layers, a millisecond or so apart)
until the question is done, so the question has the cores to itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: Word pieces per model batch of passages (chunks of notes), padding included.  1,024 is 4–8
#: chunks of a typical vault, 0.1–0.5 s on a loaded 2-core laptop: the embedding pauses,
#: stops and reports progress between two batches, and holds little memory.  A question does
#: not wait for the batch (``vault-explorer bench --while-embedding``).
PASSAGE_TOKENS = 1024


class ModelGate:
    """Turns at a model: :meth:`turn` holds it for one passage batch, after any question;
    :meth:`question` runs beside it."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._busy = False
        self._questions = 0
        self._asking = threading.Lock()  # one question() at a time

    @contextmanager
    def turn(self) -> Iterator[None]:
        """One batch of passages: after the batch under way and after every question."""
        with self._changed:
            while self._busy or self._questions:
                self._changed.wait()
            self._busy = True
        try:
            yield
        finally:
            with self._changed:
                self._busy = False
                self._changed.notify_all()

    @contextmanager
    def question(self) -> Iterator[None]:
        """A question that runs beside the passage batch under way, not after it: it waits only
        for another question.  While it runs, no passage batch starts and the one under way
        waits at its next :meth:`pause_point`."""
        with self._changed:
            self._questions += 1  # nobody waits for more questions: no one to tell
        try:
            with self._asking:
                yield
        finally:
            with self._changed:
                self._questions -= 1
                self._changed.notify_all()

    def pause_point(self) -> None:
        """Inside a passage batch's turn: wait while a :meth:`question` runs or waits."""
        if not self._questions:  # the common case, without the lock: an int read is atomic
            return
        with self._changed:
            while self._questions:
                self._changed.wait()

    @property
    def questions_waiting(self) -> int:
        with self._changed:
            return self._questions
