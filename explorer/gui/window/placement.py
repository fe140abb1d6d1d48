"""Where the window opens: at most the screen's available area, centred on it.

A window taller than its screen hides its status bar below the edge (the old fixed 1360×820 on a
laptop's 1366×768).  The first window takes the size it wants shrunk to the available geometry
of the screen it opens on (the screen less its panels: ``QScreen.availableGeometry``), centred
there (:func:`first_geometry`); a geometry restored from the settings that does not lie on that
area is shrunk and moved onto it (:func:`fit_rect`).

The frame a window manager adds (the title bar) is not known before the window is shown, so
room for a typical one is kept then (:data:`FRAME_GUESS`); once the window is shown, the frame
the platform reports is checked (:func:`fits`).  Geometries here are a window's own, without its
frame, as ``QWidget.geometry`` gives them.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize, Qt
from PySide6.QtWidgets import QWidget

#: Room kept for a window manager's frame while it is not known: a title bar and thin borders.
#: (Too much only leaves a strip of the desktop showing; too little hides the status bar.)
FRAME_GUESS = QMargins(6, 36, 6, 6)


def _room(available: QRect, frame: QMargins) -> QSize:
    """The largest window that fits ``available`` with ``frame`` around it."""
    return QSize(
        available.width() - frame.left() - frame.right(),
        available.height() - frame.top() - frame.bottom(),
    )


def _size(wanted: QSize, room: QSize, minimum: QSize) -> QSize:
    return QSize(
        max(minimum.width(), min(wanted.width(), room.width())),
        max(minimum.height(), min(wanted.height(), room.height())),
    )


def _onto(start: int, length: int, lowest: int, highest: int) -> int:
    """``start`` moved as little as possible for ``length`` to end by ``highest`` and start at
    ``lowest`` or after; when it cannot do both it starts at ``lowest`` (the title bar stays on
    screen)."""
    return max(lowest, min(start, highest - length))


def fit_rect(
    rect: QRect,
    available: QRect,
    frame: QMargins | None = None,
    minimum: QSize | None = None,
) -> QRect:
    """``rect`` shrunk and moved as little as possible so that with ``frame`` around it it lies
    within ``available``; never smaller than ``minimum`` (on a screen smaller than that the
    window's top-left corner is on it).  No ``frame``: none; no ``minimum``: none."""
    frame = QMargins() if frame is None else frame
    minimum = QSize(0, 0) if minimum is None else minimum
    size = _size(rect.size(), _room(available, frame), minimum)
    x = _onto(
        rect.x(),
        size.width() + frame.right(),
        available.left() + frame.left(),
        available.left() + available.width(),
    )
    y = _onto(
        rect.y(),
        size.height() + frame.bottom(),
        available.top() + frame.top(),
        available.top() + available.height(),
    )
    return QRect(x, y, size.width(), size.height())


def first_geometry(
    wanted: QSize,
    available: QRect,
    frame: QMargins = FRAME_GUESS,
    minimum: QSize | None = None,
) -> QRect:
    """A first window of ``wanted`` size (shrunk to fit, not below ``minimum``), its frame
    centred on ``available``."""
    minimum = QSize(0, 0) if minimum is None else minimum
    size = _size(wanted, _room(available, frame), minimum)
    outer_w = size.width() + frame.left() + frame.right()
    outer_h = size.height() + frame.top() + frame.bottom()
    x = available.left() + (available.width() - outer_w) // 2 + frame.left()
    y = available.top() + (available.height() - outer_h) // 2 + frame.top()
    return fit_rect(QRect(x, y, size.width(), size.height()), available, frame, minimum)


def fits(rect: QRect, available: QRect, frame: QMargins | None = None) -> bool:
    """Whether ``rect`` with ``frame`` around it lies within ``available``."""
    return available.contains(rect.marginsAdded(QMargins() if frame is None else frame))


#: The states in which the window manager sizes the window, not the window.
_MANAGED = Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen


def place_first(window: QWidget, wanted: QSize) -> QRect:
    """The first size: ``wanted`` at most the available area of the screen ``window`` opens on
    (room kept for a frame not known yet), centred there; the geometry it is placed at."""
    window.ensurePolished()  # the stylesheet's sizes count in the minimum
    available = window.screen().availableGeometry()
    placed = first_geometry(wanted, available, FRAME_GUESS, window.minimumSizeHint())
    window.setGeometry(placed)
    return placed


def fit_restored(window: QWidget) -> QRect | None:
    """A restored geometry that is not within its screen's available area (saved on a larger
    screen, or one no longer there) is shrunk and moved onto it; the geometry it is placed at
    (``None``: maximised or full screen, the window manager sizes it)."""
    if window.windowState() & _MANAGED:
        return None
    geometry = window.geometry()
    available = window.screen().availableGeometry()
    if not fits(geometry, available):
        geometry = fit_rect(geometry, available, FRAME_GUESS, window.minimumSizeHint())
        window.setGeometry(geometry)
    return geometry


def keep_on_screen(window: QWidget, placed: QRect | None) -> None:
    """Once shown, with the frame the platform reports (only guessed before): a window still at
    the size it was ``placed`` at that runs off the screen's available area is fitted onto it.
    A size set since (``--screenshot``'s, a test's) is left alone."""
    if placed is None or window.size() != placed.size() or not window.isVisible():
        return
    if window.windowState() & _MANAGED:
        return
    geometry, outer = window.geometry(), window.frameGeometry()
    frame = QMargins(
        geometry.left() - outer.left(),
        geometry.top() - outer.top(),
        outer.right() - geometry.right(),
        outer.bottom() - geometry.bottom(),
    )
    available = window.screen().availableGeometry()
    if not fits(geometry, available, frame):
        window.setGeometry(fit_rect(geometry, available, frame, window.minimumSizeHint()))
