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

from PySide6.QtCore import QMargins, QRect, QSize

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
