"""A label and a progress bar that never widen the window: with no room for their text they
elide it and show all of it in their tooltip, never cutting a word in half."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QProgressBar,
    QSizePolicy,
    QWidget,
)


class _LaysOut:
    """A widget that fits its text to its width (``_lay_out``) whenever it is resized or shown."""

    _lay_out: Callable[[], None]  # the widget's own

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)  # type: ignore[misc]
        self._lay_out()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)  # type: ignore[misc]
        self._lay_out()


class ElidedLabel(_LaysOut, QLabel):
    """A one-line label that elides its text at the right ("…") when it has less room than the
    text needs, and then holds the whole text in its tooltip (before its own tip, if any).

    Its minimum is a few characters, not the whole text, so a long line never widens the window;
    its size hint is the whole text, so it has all of it when there is room.  A link after the
    text (:meth:`set_content`) is never elided: the text before it is, and the link stays whole
    and clickable.  :meth:`text` is the whole text as it reads with room (the link's HTML
    included); :meth:`shown_text` is what is on screen.
    """

    SEPARATOR = " · "

    def __init__(
        self, parent: QWidget | None = None, least: tuple[str, ...] = ("72 % Ger…",)
    ) -> None:
        super().__init__(parent)
        #: Its narrowest is the widest of these texts (beside its link): a layout short of room
        #: takes as much from each label, so a short label keeps its few words whole by least
        #: texts as long as they are, and the long line gives up the rest.
        self.least = least
        self._text = ""
        self._link: tuple[str, str] | None = None  # href, its words
        self._tip = ""
        #: Whether the text on screen is cut short (its tooltip then holds all of it).
        self.elided = False
        self.setTextFormat(Qt.TextFormat.PlainText)

    def setText(self, text: str) -> None:
        self.set_content(text)

    def set_content(self, text: str, link: tuple[str, str] | None = None) -> None:
        """Show plain ``text``, then (``link``: href and words) a link after " · "."""
        self._text, self._link = text, link
        self.setTextFormat(Qt.TextFormat.RichText if link else Qt.TextFormat.PlainText)
        self.updateGeometry()
        self._lay_out()

    def text(self) -> str:
        return self._compose(self._text)

    def shown_text(self) -> str:
        """What the label shows now (elided or whole)."""
        return super().text()

    def full_text(self) -> str:
        """The whole text in words (the link's words, not its HTML)."""
        words = [self._text] if self._text else []
        if self._link is not None:
            words.append(self._link[1])
        return self.SEPARATOR.join(words)

    def setToolTip(self, tip: str) -> None:
        self._tip = tip
        self._apply_tip()

    def tip(self) -> str:
        """Its own tip, without the whole text an elided label adds."""
        return self._tip

    def _compose(self, text: str) -> str:
        if self._link is None:
            return text
        href, words = self._link
        head = html.escape(text) + self.SEPARATOR if text else ""
        return f'{head}<a href="{html.escape(href)}">{html.escape(words)}</a>'

    def _link_width(self) -> int:
        if self._link is None:
            return 0
        return self.fontMetrics().horizontalAdvance(self.SEPARATOR + self._link[1]) + 2

    def _extra(self) -> int:
        margins = self.contentsMargins()
        return margins.left() + margins.right() + 2 * self.margin() + 2

    def sizeHint(self) -> QSize:
        width = self.fontMetrics().horizontalAdvance(self.full_text()) + self._extra()
        return QSize(width + (4 if self._link else 0), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        hint = self.sizeHint()
        metrics = self.fontMetrics()
        least = max(metrics.horizontalAdvance(text) for text in self.least)
        least += self._link_width() + self._extra()
        return QSize(min(hint.width(), least), super().minimumSizeHint().height())

    def _lay_out(self) -> None:
        if self.isVisible():
            room = self.contentsRect().width() - 2 * self.margin() - self._link_width()
            shown = self.fontMetrics().elidedText(
                self._text, Qt.TextElideMode.ElideRight, max(0, room)
            )
        else:
            shown = self._text  # not laid out yet: its width means nothing
        self.elided = shown != self._text
        text = self._compose(shown)
        if text != super().text():  # (every resize comes here: no relayout for nothing)
            super().setText(text)
        self._apply_tip()

    def _apply_tip(self) -> None:
        parts = [self.full_text()] if self.elided else []
        if self._tip:
            parts.append(self._tip)
        tip = "<br>".join(html.escape(p) for p in parts)
        tip = f"<p>{tip}</p>" if tip else ""
        if tip != self.toolTip():
            super().setToolTip(tip)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()
            self._lay_out()


class ProgressBar(_LaysOut, QProgressBar):
    """The status bar's progress bar: its words (:meth:`set_words`) elide at the right when it
    is narrower than they are, all of them then in its tooltip (before its own tip, a line
    each).  It asks
    for the width of its words, up to :data:`MOST`; its minimum is :data:`LEAST`, so long words
    never widen the window."""

    LEAST = 180
    MOST = 460

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._words = ""
        self._tip = ""
        #: Whether the words on the bar are cut short (its tooltip then holds all of them).
        self.elided = False
        self.setTextVisible(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMaximumWidth(self.MOST)

    def set_words(self, words: str, tip: str = "") -> None:
        self._words, self._tip = words, tip
        self.updateGeometry()
        self._lay_out()

    def words(self) -> str:
        """All its words, as they read with room."""
        return self._words

    def tip(self) -> str:
        return self._tip

    def text(self) -> str:
        """What the bar says: Qt gives a busy bar (a range of 0 to 0) no text, which drew a
        full bar with no words; its words are said then too."""
        if self.minimum() == self.maximum() == 0:
            return self.format()
        return super().text()

    def sizeHint(self) -> QSize:
        width = self.fontMetrics().horizontalAdvance(self._words) + 40
        return QSize(max(self.LEAST, min(self.MOST, width)), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.LEAST, super().minimumSizeHint().height())

    def _lay_out(self) -> None:
        shown = self._words
        if self.isVisible():
            room = self.contentsRect().width() - 16
            shown = self.fontMetrics().elidedText(
                self._words, Qt.TextElideMode.ElideRight, max(0, room)
            )
        self.elided = shown != self._words
        self.setFormat(shown)  # (words with no %p, %v or %m: the format says them as they are)
        parts = [self._words] if self.elided else []
        if self._tip:
            parts.extend(self._tip.splitlines())
        tip = "<br>".join(html.escape(p) for p in parts)
        self.setToolTip(f"<p>{tip}</p>" if tip else "")
