"""An event-loop stall monitor: a 16 ms timer that records the longest gap between its ticks.

If the GUI thread is busy (or starved of the GIL) for 200 ms, the next tick comes ~200 ms late;
the gap minus the interval is the stall.  Tests and benchmarks read :attr:`max_gap_ms` (the worst
gap since the last :meth:`reset`) and :attr:`stalls` (gaps longer than ``threshold_ms``).
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer

INTERVAL_MS = 16
#: Gaps over this are kept (with their time) so a phase's worst gap can be read afterwards.
SLOW_FRAME_MS = 2 * INTERVAL_MS + 2


class StallMonitor(QObject):
    """Watches the event loop of the thread it lives in (the GUI thread)."""

    def __init__(self, parent: QObject | None = None, threshold_ms: float = 100.0) -> None:
        super().__init__(parent)
        self.threshold_ms = threshold_ms
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.max_gap_ms = 0.0
        self.ticks = 0
        self.stalls: list[tuple[float, float]] = []  # (seconds since start, gap ms)
        self.marks: list[tuple[float, str]] = []  # (seconds since start, what happened)
        self.slow: list[tuple[float, float]] = []  # every gap over two frames
        self._started = time.perf_counter()

    def start(self) -> None:
        self.reset()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def reset(self) -> None:
        now = time.perf_counter()
        self._last = now
        self._started = now
        self.max_gap_ms = 0.0
        self.ticks = 0
        self.stalls = []
        self.marks = []
        self.slow = []

    def mark(self, what: str) -> None:
        """Note a moment (model loaded, index reconciled…) so stalls can be read by phase."""
        self.marks.append((time.perf_counter() - self._started, what))

    def max_gap_between(self, start: float, end: float = float("inf")) -> float:
        """The longest gap (over two frames; else 0) between two moments, in seconds since
        the start: the figure of one phase, say "after the model loaded"."""
        return max((gap for t, gap in self.slow if start <= t <= end), default=0.0)

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = (now - self._last) * 1000.0
        self._last = now
        self.ticks += 1
        if gap > self.max_gap_ms:
            self.max_gap_ms = gap
        if gap > self.threshold_ms:
            self.stalls.append((now - self._started, gap))
        if gap > SLOW_FRAME_MS:
            self.slow.append((now - self._started, gap))

    def report(self) -> dict[str, Any]:
        return {
            "maxGapMs": round(self.max_gap_ms, 1),
            "stallsOverThreshold": len(self.stalls),
            "thresholdMs": self.threshold_ms,
            "ticks": self.ticks,
            "seconds": round(time.perf_counter() - self._started, 1),
            "stalls": [[round(t, 2), round(gap, 1)] for t, gap in self.stalls],
            "marks": [[round(t, 2), what] for t, what in self.marks],
            "maxGapAfterMarkMs": {
                what: round(self.max_gap_between(t), 1) for t, what in self.marks
            },
        }
