"""The strips around the results: the degradation banner, the "no close match" line, the
legend, the index status bar.

The banner says, in words, why semantic search is not part of the result (still loading, no
model, a model that failed, embeddings pending), and what keeps the index from following the
vault: the machine (a full disk, no permission, a locked database: what to do) or a bug.  The
status bar shows the index health the live index reports: notes, vectors, pending embeddings,
model, watcher state, and a progress bar while it indexes or embeds — counts, rate and the time
left ("Embedding 1,204 of 9,870 · 14/s · about 10 min left", :mod:`explorer.live.progress`), or
that embedding is paused and why — with the notes searchable by meaning in its tooltip; a label
or bar with no room for its text elides it and shows all of it in its tooltip
(:class:`ElidedLabel`, :class:`ProgressBar`), so the bar never widens the window nor cuts a word
in half.  When no
hit clears the calibrated bar (``SearchResponse.close_match`` is ``False``), one line over the
results says so; the rows below it are muted (:mod:`explorer.gui.results.results_model`).
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette, QPixmap, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStatusBar,
    QWidget,
)

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.gui.core.theme import tints
from explorer.index.status import offered_model
from explorer.live import EmbeddingHealth, EmbeddingState, Health, WatcherState
from explorer.live.power import ON_BATTERY
from explorer.live.problems import Problem
from explorer.live.progress import RATE_WINDOW, progress_text, searchable_text
from explorer.search.options import Mode
from explorer.search.results import SearchResponse
from explorer.search.verdict import closeness


def model_text(provider: EmbedderProvider) -> str:
    """The model's name and state, for the status bar."""
    state = provider.state
    if state == ModelState.DISABLED:
        return "model: none"
    label = {
        ModelState.IDLE: "waiting",
        ModelState.LOADING: "loading…",
        ModelState.READY: "ready",
        ModelState.FAILED: "failed",
    }[state]
    return f"model: {provider.name} ({label})"


def banner_text(
    mode: str, provider: EmbedderProvider, response: SearchResponse | None
) -> str | None:
    """Why semantic search is not part of what is shown (rich text), or ``None`` if it is.

    The shown response says best (its reason: loading, failed, timed out, no vectors yet); with
    no response to go by (before the first search, or a listing), the model's state says.
    """
    if mode == Mode.FTS:
        return None
    state = provider.state
    if response is not None and not response.listing:
        if response.semantic.available:
            return None
        reason = response.semantic.reason or "unavailable"
    elif state in (ModelState.FAILED, ModelState.DISABLED):
        reason = provider.error or "no model"
    elif state in (ModelState.IDLE, ModelState.LOADING):
        reason = f"model {provider.name} is still loading"
    else:
        return None
    reason_html = html.escape(safe_text(reason))
    if state in (ModelState.IDLE, ModelState.LOADING) or "still loading" in reason:
        then = (
            "Hybrid shows the lexical result meanwhile."
            if mode == Mode.HYBRID
            else "Semantic mode has no results until it is ready."
        )
        return f"<b>Semantic search is loading</b> — {reason_html}. {then}"
    if "pending" in reason:
        then = (
            "Hybrid shows the lexical result meanwhile."
            if mode == Mode.HYBRID
            else "Semantic mode has no results until then."
        )
        return f"<b>Semantic search is not ready</b> — {reason_html}. {then}"
    then = (
        "Hybrid shows the lexical result."
        if mode == Mode.HYBRID
        else "Switch to Hybrid or Lexical for results."
    )
    return f"<b>Semantic search is unavailable</b> — {reason_html}. {then}"


#: The longest query the "no close match" line quotes in full (a longer one is cut with "…").
QUOTED_QUERY = 80


def no_close_match_text(response: SearchResponse | None) -> str | None:
    """The line said over hits none of which is a close match (plain text), or ``None``."""
    if response is None or response.listing or response.close_match is True:
        return None
    if not response.hits:
        return None  # the empty state says there are no results
    query = " ".join(safe_text(response.query).split())
    if len(query) > QUOTED_QUERY:
        query = query[: QUOTED_QUERY - 1].rstrip() + "…"
    return closeness(response, f"‘{query}’")


def summary_text(response: SearchResponse) -> tuple[str, str | None]:
    """What the summary beside the search field says of ``response``, and the empty state's
    text (rich text) when it has no hits to show (``None``: the table shows them)."""
    hits = len(response.hits)
    if response.listing:
        return f"{hits} most recently modified notes", None
    if hits:
        ms = sum(v for k, v in response.timings.items() if k.endswith("_ms"))
        return f"{hits} hits · {ms:.0f} ms", None
    if response.options.mode == Mode.SEMANTIC and not response.semantic.available:
        reason = html.escape(response.semantic.reason or "no model")
        return "no results", f"Semantic search is unavailable: {reason}."
    return "no results", f"No notes match <b>{html.escape(response.query)}</b>."


def problem_text(problem: Problem) -> str:
    """What keeps the live index from following the vault, for the banner (rich text)."""
    message = html.escape(safe_text(problem.message))
    if problem.is_bug:
        return f"<b>The index is not being kept current because of a bug</b> — {message}."
    return f"<b>The index is not being kept current</b> — {message}."


class Banner(QFrame):
    """A coloured strip with a message; hidden when there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.label, 1)
        self._apply_colours()
        self.hide()

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self._apply_colours()
        self.show()

    def message(self) -> str:
        return self.label.text() if self.isVisible() else ""

    def _apply_colours(self) -> None:
        parent = self.parentWidget()
        t = tints(parent.palette() if parent is not None else None)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, t.banner)
        palette.setColor(QPalette.ColorRole.WindowText, t.banner_text)
        self.setPalette(palette)
        self.label.setPalette(palette)


class NoCloseMatch(QLabel):
    """The "no close match" line: shown over results none of which is a close match."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noCloseMatch")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setToolTip(
            "No hit clears the calibrated bar: neither list holds strong evidence for any note "
            "(a cosine high above this query's spread over the vault, or the query's words). "
            "The rows are what comes nearest."
        )
        self.hide()

    def show_for(self, response: SearchResponse | None) -> None:
        text = no_close_match_text(response)
        self.setText(text or "")
        self.setVisible(text is not None)


class Legend(QWidget):
    """What the row tints and bar colours mean: painted swatches with a frame, so that even a
    pale tint is visible as a swatch."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.setSpacing(6)
        self._swatches: dict[str, QLabel] = {}
        for key, text in (
            ("fts", "lexical only"),
            ("vector", "vector only"),
            ("both", "both lists"),
            ("bar", "share of the fused score"),  # by its two-colour swatch: the bar
        ):
            swatch = QLabel(self)
            label = QLabel(text, self)
            layout.addWidget(swatch)
            layout.addWidget(label)
            layout.addSpacing(4)  # the legend and its note fit a laptop's results pane
            self._swatches[key] = swatch
        self.note = QLabel(self)
        self.note.setObjectName("legendNote")
        # The note comes and goes with the mode: it must not widen the results pane's minimum
        # (the pane would jump, and a saved splitter position would depend on the mode).
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.note, 1)  # takes the room left (its size hint is ignored)
        self.update_legend(True)

    def update_legend(self, tinted: bool) -> None:
        t = tints(self.palette())
        frame = self.palette().color(QPalette.ColorRole.Mid)
        base = self.palette().color(QPalette.ColorRole.Base)
        size = self.fontMetrics().height()
        self._swatches["fts"].setPixmap(_swatch(size, [t.fts], frame))
        self._swatches["vector"].setPixmap(_swatch(size, [t.vector], frame))
        self._swatches["both"].setPixmap(_swatch(size, [base], frame))
        self._swatches["bar"].setPixmap(_swatch(size, [t.fts_bar, t.vector_bar], frame, 2))
        self.note.setText("" if tinted else "(tints mark Hybrid results)")

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.update_legend(not self.note.text())


def _swatch(size: int, colours: list[QColor], frame: QColor, width_factor: int = 1) -> QPixmap:
    """A framed rectangle filled with ``colours`` side by side."""
    w, h = int(size * 1.4) * width_factor, size
    pixmap = QPixmap(w, h)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    part = (w - 2) // len(colours)
    for i, colour in enumerate(colours):
        painter.fillRect(
            1 + i * part, 1, part if i < len(colours) - 1 else w - 2 - i * part, h - 2, colour
        )
    painter.setPen(frame)
    painter.drawRect(0, 0, w - 1, h - 1)
    painter.end()
    return pixmap


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


def searchable_line(health: Health) -> str | None:
    """ "312 of 1,140 notes searchable by meaning" (every chunk of theirs has a vector), when
    the index was counted."""
    index = health.index
    if index is None or index.searchable_notes is None:
        return None
    return searchable_text(index.searchable_notes, index.notes)


def embedding_words(embedding: EmbeddingHealth) -> str:
    """What the progress bar says of the embedding queue: "Embedding 1,204 of 9,870 · 14/s ·
    about 10 min left", "Embedding paused: on battery · 1,204 of 9,870"."""
    words = embedding.progress
    if embedding.paused:
        return words[:1].upper() + words[1:]
    return f"Embedding {words}"


def embedding_tip(embedding: EmbeddingHealth, searchable: str | None) -> str:
    """The progress bar's tooltip: the notes searchable by meaning, and what the words mean."""
    lines = [f"{searchable} (every part of them has its vector)"] if searchable else []
    if embedding.paused and embedding.reason == ON_BATTERY:
        lines.append(
            "Embedding waits for the charger (VAULT_EXPLORER_EMBED_ON_BATTERY=1 keeps it going "
            "on battery); searches find the other notes by their words."
        )
    elif embedding.paused:
        lines.append("File ▸ Pause Embedding resumes it; searches find the other notes by words.")
    else:
        lines.append(
            f"Chunks of notes embedded for meaning search; the rate is over the last "
            f"{RATE_WINDOW:.0f} s, the time left assumes it holds."
        )
    return "\n".join(lines)


class IndexStatus(QWidget):
    """Permanent widgets of the status bar: counts, model, watcher, progress."""

    skippedClicked = Signal()
    #: The languages line's offer was clicked: the model to use for this vault (its name).
    modelOffered = Signal(str)

    def __init__(self, status_bar: QStatusBar) -> None:
        super().__init__(status_bar)
        self.progress = ProgressBar(self)
        self.progress.setObjectName("indexProgress")
        self.progress.hide()
        # The languages line elides first (its stretch), then the others alike.
        self.counts = ElidedLabel(self, least=("12,345 notes · 12,345 vecto…",))
        self.counts.setObjectName("indexCounts")
        self.model = ElidedLabel(self, least=("model: all-MiniLM…",))
        self.model.setObjectName("modelState")
        self.watcher = ElidedLabel(self, least=tuple(f"watcher: {s.value}" for s in WatcherState))
        self.watcher.setObjectName("watcherState")
        #: The vault's languages and what the model reads of them (hidden until known), and
        #: the offer of a model that reads them: a link, kept whole when the line elides.
        self.languages = ElidedLabel(self)
        self.languages.setObjectName("vaultLanguages")
        self.languages.linkActivated.connect(self.modelOffered)
        self.languages.hide()
        #: The model the languages line offers (``None``: none).
        self.offered: str | None = None
        self.skipped = QPushButton(self)
        self.skipped.setObjectName("skippedButton")
        self.skipped.setFlat(True)
        self.skipped.setCursor(Qt.CursorShape.PointingHandCursor)
        self.skipped.clicked.connect(self.skippedClicked)
        self.skipped.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(12)
        widgets = (self.progress, self.counts, self.skipped, self.languages, self.model)
        for widget in (*widgets, self.watcher):
            # Short of room for every text, a box layout takes a stretched item down to its
            # minimum before it shrinks the others: the languages line elides first.
            layout.addWidget(widget, 1 if widget is self.languages else 0)
        status_bar.addPermanentWidget(self)

    def follow(self, health: Health, model_text: str, *, settled: bool) -> None:
        """Show ``health``: the counts, and the one progress bar (the start-up reconcile under
        way while it is not ``settled``, else the embedding queue's progress)."""
        self.show_health(health, model_text)
        watcher, embedding = health.watcher, health.embedding
        starting = watcher is not None and watcher.state is WatcherState.STARTING
        if starting and not settled:
            # The start-up reconcile reports only when it is done: show that it is under way.
            self.show_busy("Indexing the vault…")
        elif (
            embedding is not None
            and embedding.state in (EmbeddingState.EMBEDDING, EmbeddingState.PAUSED)
            and embedding.total
        ):
            self.show_embedding(embedding, searchable_line(health))
        else:
            self.hide_progress()

    def show_health(self, health: Health, model_text: str) -> None:
        notes, vectors, pending = health.notes, health.vectors, health.pending_embeddings
        self.counts.setText(f"{notes:,} notes · {vectors:,} vectors · {pending:,} pending")
        self.counts.setToolTip(searchable_line(health) or "")
        skipped = health.skipped
        if skipped:
            self.skipped.setText(f"{len(skipped)} skipped…")
            self.skipped.setToolTip("Files that were not indexed, with the reason")
            self.skipped.show()
        else:
            self.skipped.hide()
        index = health.index
        line = index.language_line if index is not None else None
        self.offered = offered_model(index.languages, index.model) if index is not None else None
        tip = "The languages of the notes, detected as they are indexed"
        link = None
        if self.offered:
            link = (self.offered, f"use {self.offered}…")
            tip += f"; {self.offered} reads them (Search ▸ Meaning Model)"
        self.languages.set_content(line or "", link)
        self.languages.setToolTip(tip)
        self.languages.setVisible(bool(line))
        self.model.setText(model_text)
        watcher = health.watcher
        state = watcher.state.value if watcher is not None else "starting"
        reason = watcher.reason if watcher is not None else None
        self.watcher.setText(f"watcher: {state}")
        self.watcher.setToolTip(safe_text(reason) if reason else "")

    def show_progress(
        self, label: str, done: int, total: int, rate: float = 0.0, tip: str = ""
    ) -> None:
        """``label`` and ``done`` of ``total``, with the rate and the time left once there is
        a rate ("Embedding 1,204 of 9,870 · 14/s · about 10 min left")."""
        if total <= 0:
            self.progress.hide()
            return
        self.progress.setRange(0, total)
        self.progress.setValue(min(done, total))
        self.progress.set_words(f"{label} {progress_text(done, total, rate or None)}", tip)
        self.progress.show()

    def show_embedding(self, embedding: EmbeddingHealth, searchable: str | None = None) -> None:
        """The embedding queue's progress, or that it is paused and why; ``searchable`` (the
        notes searchable by meaning already) in the tooltip."""
        total = max(embedding.total, 1)
        self.progress.setRange(0, total)
        self.progress.setValue(min(embedding.done, total))
        self.progress.set_words(embedding_words(embedding), embedding_tip(embedding, searchable))
        self.progress.show()

    def show_busy(self, label: str) -> None:
        """An indeterminate bar (work whose size is not known yet)."""
        self.progress.setRange(0, 0)
        self.progress.set_words(label)
        self.progress.show()

    def hide_progress(self) -> None:
        self.progress.hide()
