"""Where the window opens: at most the screen's available area, centred; a restored geometry
moved and shrunk onto it.  The functions alone, over given screens (the real window on a real
screen is in ``test_window.py``)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMargins, QRect, QSize

from explorer.gui.window.placement import FRAME_GUESS, first_geometry, fit_rect, fits

WANTED = QSize(1360, 820)
MINIMUM = QSize(900, 300)
#: A laptop's screens less a 28-pixel top panel, and one right of a 1920-pixel monitor.
LAPTOP = QRect(0, 28, 1366, 740)
SMALL = QRect(0, 28, 1280, 692)
SECOND = QRect(1920, 0, 1280, 720)


def outer(rect: QRect, frame: QMargins = FRAME_GUESS) -> QRect:
    return rect.marginsAdded(frame)


@pytest.mark.parametrize("available", [LAPTOP, SMALL, SECOND])
def test_a_first_window_larger_than_the_screen_is_shrunk_onto_it_and_centred(
    available: QRect,
) -> None:
    placed = first_geometry(WANTED, available, FRAME_GUESS, MINIMUM)
    assert fits(placed, available, FRAME_GUESS)
    frame = outer(placed)
    assert frame.height() == available.height()  # as tall as the screen lets it be
    assert placed.width() <= WANTED.width()
    left = frame.left() - available.left()
    right = available.right() - frame.right()
    assert abs(left - right) <= 1


def test_a_first_window_on_a_large_screen_has_the_size_it_wants_centred() -> None:
    available = QRect(0, 0, 1920, 1080)
    placed = first_geometry(WANTED, available, FRAME_GUESS, MINIMUM)
    assert placed.size() == WANTED
    frame = outer(placed)
    assert abs(frame.left() - (1920 - frame.right() - 1)) <= 1
    assert abs(frame.top() - (1080 - frame.bottom() - 1)) <= 1


def test_a_screen_smaller_than_the_minimum_keeps_the_title_bar_on_it() -> None:
    available = QRect(0, 0, 800, 600)
    placed = first_geometry(WANTED, available, FRAME_GUESS, MINIMUM)
    assert placed.width() == MINIMUM.width()  # the minimum wins; the rest goes off the right
    assert outer(placed).topLeft() == available.topLeft()


def test_a_restored_geometry_that_fits_is_kept() -> None:
    saved = QRect(100, 80, 1000, 600)
    assert fit_rect(saved, LAPTOP, QMargins(), MINIMUM) == saved


def test_a_restored_geometry_is_moved_and_shrunk_onto_the_screen() -> None:
    # Saved on a larger monitor: too big, hanging off the right and the bottom.
    saved = QRect(700, 400, 1800, 1000)
    fitted = fit_rect(saved, LAPTOP, FRAME_GUESS, MINIMUM)
    assert fits(fitted, LAPTOP, FRAME_GUESS)
    assert outer(fitted).height() == LAPTOP.height()
    # Saved on a monitor no longer there (far to the right): moved onto this one, size kept.
    gone = QRect(3000, 200, 1000, 600)
    moved = fit_rect(gone, LAPTOP, FRAME_GUESS, MINIMUM)
    assert moved.size() == gone.size() and fits(moved, LAPTOP, FRAME_GUESS)
    assert outer(moved).right() == LAPTOP.right()  # moved no further than needed
    # Above the screen's top (under the panel): its title bar comes back below the panel.
    above = fit_rect(QRect(50, -100, 1000, 600), LAPTOP, FRAME_GUESS, MINIMUM)
    assert outer(above).top() == LAPTOP.top()


def test_fits_counts_the_frame() -> None:
    rect = QRect(0, 28, 1366, 740)
    assert fits(rect, LAPTOP)
    assert not fits(rect, LAPTOP, QMargins(0, 1, 0, 0))
