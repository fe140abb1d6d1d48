"""Python's cyclic garbage collected on the GUI thread only.

Python's collector runs on whichever thread allocates when a generation fills up: a reader,
a gui-work or a live-writer thread as often as the GUI thread.  A cycle that holds a QObject
(a panel's ``self`` in a closure, a window's controllers pointing back at it) then destroys
that object on a worker thread, while the GUI thread may be using it or Qt's bookkeeping of its
connections: Qt's state is corrupted, and a CI run once hung in ``QObject::connectImpl``.  The
code keeps Qt objects out of what workers hold (:mod:`explorer.gui.core.workers`); this keeps
the rest: automatic collection is turned off while the window runs and a timer on the GUI
thread collects each generation when it would have been (pyqtgraph's ``GarbageCollector`` does
the same; importing pyqtgraph costs ~0.6 s at start-up, so it is not used here).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

#: How often the GUI thread looks whether a generation is due.
INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Collects Python's cyclic garbage on the thread it lives in, from :meth:`start` until
    :meth:`stop` (see the module)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.collect)
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self.collections = 0  # collections made (tests)

    def start(self, interval_ms: int = INTERVAL_MS) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self.timer.start(interval_ms)

    def stop(self) -> None:
        """Collect what is left here, and let Python collect as it did before."""
        self.timer.stop()
        self.collect(full=True)
        if self._was_enabled:
            gc.enable()

    def collect(self, full: bool = False) -> None:
        """Collect the generations that are due (all of them with ``full``), as Python would."""
        counts, thresholds = gc.get_count(), self._thresholds
        generation = 2 if full else -1
        for gen in range(3):
            if counts[gen] > thresholds[gen]:
                generation = max(generation, gen)
            else:
                break
        if generation >= 0:
            gc.collect(generation)
            self.collections += 1
