"""How far an embedding run is, how fast it goes, and what is left: numbers and words.

An embedding run stores a batch of vectors at a time; :class:`RateMeter` is told how many chunks
are done after each batch, with the time from its clock (injected: tests give the times), and
its rate is the chunks done over the last :data:`RATE_WINDOW` seconds (:func:`window_rate`), so a
slow first batch (the model warming up) or a neighbour's burst of load fades out instead of
weighing on the whole run.  :func:`progress_text` says it all in one line — "1,204 of 9,870 ·
14/s · about 10 min left" — with the estimate only once there is a rate.  Pure: no threads, no
Qt, no clock of its own; the live embedder, ``index``, ``watch`` and the window's status bar
all say their progress with it.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Sequence

#: Seconds of recent batches the rate is measured over.
RATE_WINDOW = 30.0


def window_rate(samples: Sequence[tuple[float, int]], window: float = RATE_WINDOW) -> float | None:
    """Chunks a second from ``samples`` — ``(time, chunks done so far)``, oldest first — over
    the last ``window`` seconds before the newest sample: from the oldest sample in that window
    (or, when only the newest is in it, the one just before) to the newest.  ``None`` while
    there is no rate: fewer than two samples, or no time between them."""
    if len(samples) < 2:
        return None
    end, done = samples[-1]
    start_index = len(samples) - 2
    for i in range(len(samples) - 2, -1, -1):
        if end - samples[i][0] > window:
            break
        start_index = i
    start, before = samples[start_index]
    seconds = end - start
    if seconds <= 0 or done < before:
        return None
    return (done - before) / seconds


def remaining_seconds(done: int, total: int, rate: float | None) -> float | None:
    """Seconds left at ``rate`` chunks a second for ``total - done`` chunks; ``None`` without a
    rate (or with nothing measured yet)."""
    if rate is None or not rate > 0 or not math.isfinite(rate):
        return None
    return max(0, total - done) / rate


def duration_text(seconds: float) -> str:
    """About how long ``seconds`` is, in words a person reads at a glance: "less than a
    minute", "about 10 min", "about 2 h 10 min", "about 3 days"."""
    if seconds < 60:
        return "less than a minute"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    if minutes < 10 * 60:
        minutes = 10 * round(minutes / 10)  # "about 2 h 10 min": no false precision
        hours, rest = divmod(minutes, 60)
        return f"about {hours} h {rest} min" if rest else f"about {hours} h"
    hours = round(seconds / 3600)
    if hours < 48:
        return f"about {hours} h"
    return f"about {round(hours / 24)} days"


def rate_text(rate: float) -> str:
    """Chunks a second: "14/s", "2.5/s" (a tenth below ten), "0.04/s"."""
    if rate >= 9.95:
        return f"{rate:,.0f}/s"
    return f"{rate:.1f}/s" if rate >= 0.095 else f"{rate:.2g}/s"


def progress_text(done: int, total: int, rate: float | None = None, unit: str = "") -> str:
    """``done`` of ``total`` chunks (``unit``: a word after the count), the rate and the time
    left once there is a rate: "1,204 of 9,870 · 14/s · about 10 min left"."""
    parts = [f"{done:,} of {total:,}" + (f" {unit}" if unit else "")]
    left = remaining_seconds(done, total, rate)
    if rate is not None and left is not None:
        parts.append(rate_text(rate))
        parts.append(f"{duration_text(left)} left")
    return " · ".join(parts)


def searchable_text(ready: int, notes: int) -> str:
    """How many notes a meaning search finds by every part of them: "312 of 1,140 notes
    searchable by meaning"."""
    return f"{ready:,} of {notes:,} notes searchable by meaning"


class RateMeter:
    """The chunks done after each batch of a run, and the rate over the last ``window``
    seconds of them (:func:`window_rate`).  ``clock`` gives the time in seconds (default
    :func:`time.monotonic`; tests pass their own).  Not thread-safe: one thread tells it."""

    def __init__(
        self, window: float = RATE_WINDOW, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self.clock = clock
        self._samples: deque[tuple[float, int]] = deque()

    def restart(self, done: int = 0) -> None:
        """Forget what was measured: a new run starts (or one goes on after a pause, which
        must not count as slowness) with ``done`` chunks done."""
        self._samples.clear()
        self._samples.append((self.clock(), done))

    def add(self, done: int) -> float | None:
        """``done`` chunks are done now (a running total); returns the rate."""
        now = self.clock()
        if not self._samples:
            self._samples.append((now, done))
            return None
        self._samples.append((now, done))
        # Keep one sample older than the window: the rate reaches back to it when the window
        # holds only the newest.
        while len(self._samples) > 2 and now - self._samples[1][0] > self.window:
            self._samples.popleft()
        return self.rate

    @property
    def rate(self) -> float | None:
        """Chunks a second over the window, or ``None`` before there is one."""
        return window_rate(self._samples, self.window)
