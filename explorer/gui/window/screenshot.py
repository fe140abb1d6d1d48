"""``--screenshot``: wait for the window to settle on the query's results, save it, quit.

"Settled" means: the results of the query are on screen, no search or refresh is pending, the
live index is idle (start-up reconcile done, every vector embedded) and the hybrid result uses
the vectors, or semantic search has failed for good (then its banner is in the picture), or the
embedding is paused (on battery: then the status bar says so in the picture); and the preview
shows the selected hit, its chunk strip read.  ``$VAULT_EXPLORER_SCREENSHOT_COMPACT=1``
saves the PNG with a 256-colour palette (the README picture: a third of the size, no visible
difference).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage, QImageWriter

from explorer.embed.provider import ModelState
from explorer.gui.window.main_window import MainWindow
from explorer.search.query.options import Mode

ENV_COMPACT = "VAULT_EXPLORER_SCREENSHOT_COMPACT"


def compact(image: QImage, colours: int = 256) -> QImage:
    """``image`` with a palette of its most frequent colours (a UI has few; antialiased edges
    map to the nearest one)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    width, height = rgb.width(), rgb.height()
    raw = np.frombuffer(rgb.constBits(), dtype=np.uint32, count=rgb.bytesPerLine() * height // 4)
    pixels = raw.reshape(height, -1)[:, :width]
    values, counts = np.unique(pixels, return_counts=True)
    table = [int(v) for v in values[np.argsort(-counts)[:colours]]]
    return rgb.convertToFormat(
        QImage.Format.Format_Indexed8, table, Qt.ImageConversionFlag.ThresholdDither
    )


def wait_state(window: MainWindow) -> dict[str, Any]:
    """What the window shows of its settling (said when the picture is taken unsettled)."""
    response = window.response
    health = window.health
    return {
        "time": time.time(),
        "query": response.query if response else None,
        "hits": len(response.hits) if response else 0,
        "semantic": response.semantic.available if response else None,
        "searching": window.flow.searching,
        "model": window.provider.state.value,
        "pending": health.pending_embeddings if health else None,
        "settled": window.live_settled(),
        "preview": window.preview.shown_path,
    }


class ScreenshotDriver:
    """Waits for the window to settle on the query's results, saves a PNG, quits."""

    def __init__(
        self,
        window: MainWindow,
        target: Path,
        query: str,
        timeout_s: float,
        done: Callable[[int], None],
    ) -> None:
        self.window = window
        self.target = target
        self.query = query
        self.done = done
        self.settled_ticks = 0
        self.timer = QTimer(window)
        self.timer.setInterval(200)
        self.timer.timeout.connect(self._check)
        self.deadline = QTimer(window)
        self.deadline.setSingleShot(True)
        self.deadline.timeout.connect(self._timeout)
        self.timer.start()
        self.deadline.start(int(timeout_s * 1000))

    def settled(self) -> bool:
        w = self.window
        response = w.response
        if response is None or w.flow.searching or response.query != self.query:
            return False
        if w.session is None or w.refresh_timer.isActive() or w.debounce.isActive():
            return False
        health = w.health
        if health is None:
            return False
        # A paused embedding will not finish while the picture waits (a laptop on battery).
        paused = health.embedding is not None and health.embedding.paused
        if not w.live_settled() and not paused:
            return False
        state = w.provider.state
        if state in (ModelState.IDLE, ModelState.LOADING):
            return False
        if state == ModelState.READY and w.mode() != Mode.FTS and not paused:
            if health.pending_embeddings > 0:
                return False
            if not response.listing and not response.semantic.available and response.hits:
                return False
        hit = w.table.current_hit()
        if hit is not None and w.preview.chunks_pending:
            return False  # the chunk strip beside the note is still being read
        return not (hit is not None and w.preview.shown_path != hit.path)

    def _check(self) -> None:
        self.settled_ticks = self.settled_ticks + 1 if self.settled() else 0
        if self.settled_ticks >= 3:  # settled for ~0.6 s: every repaint has landed
            self._save()

    def _timeout(self) -> None:
        print(
            f"vault-explorer: the window did not settle in time ({wait_state(self.window)}); "
            "saving the screenshot as it is",
            file=sys.stderr,
        )
        self._save()

    def _save(self) -> None:
        self.timer.stop()
        self.deadline.stop()
        try:
            image = self.window.grab().toImage()
            if os.environ.get(ENV_COMPACT):
                image = compact(image)
            self.target.parent.mkdir(parents=True, exist_ok=True)
            writer = QImageWriter(str(self.target), b"png")
            writer.setQuality(0)  # for PNG: the strongest compression
            ok = writer.write(image)
            if not ok:
                print(
                    f"vault-explorer: cannot write {self.target}: {writer.errorString()}",
                    file=sys.stderr,
                )
        except Exception as exc:  # never leave a headless run hanging
            print(f"vault-explorer: screenshot failed: {exc}", file=sys.stderr)
            ok = False
        self.done(0 if ok else 1)
