"""The index status bar: the index health the live index reports (notes, vectors, pending
embeddings, model, watcher state) and a progress bar while it indexes or embeds — counts, rate and
the time left ("Embedding 1,204 of 9,870 · 14/s · about 10 min left",
:mod:`explorer.live.progress`), or that embedding is paused and why — with the notes searchable by
meaning in its tooltip; its labels and bar elide (:mod:`~explorer.gui.statusbar.elided`)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QStatusBar,
    QWidget,
)

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider, ModelState
from explorer.gui.statusbar.elided import ElidedLabel, ProgressBar
from explorer.index.status import offered_model
from explorer.live import EmbeddingHealth, EmbeddingState, Health, WatcherState
from explorer.live.power import ON_BATTERY
from explorer.live.progress import RATE_WINDOW, progress_text, searchable_text


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


def searchable_line(health: Health) -> str | None:
    """ "312 of 1,140 notes searchable by meaning" (every chunk of theirs has a vector), when
    the index was counted."""
    index = health.index
    if index is None or index.searchable_notes is None:
        return None
    line = searchable_text(index.searchable_notes, index.notes)
    return f"{line}; {index.restyling_line}" if index.restyling_line else line


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
            f"Texts of the notes' chunks embedded for meaning search (one vector for a text two "
            f"chunks share, as the vectors are counted); the rate is over the last "
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
        elif embedding is not None and embedding.state is EmbeddingState.LOADING:
            self.show_busy("Loading the model…")
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
        counts = f"{notes:,} notes · {vectors:,} vectors · {pending:,} pending"
        searchable = health.index.searchable_notes if health.index is not None else None
        if searchable is not None and searchable < notes:  # in sight, not only in a tooltip
            counts += f" · meaning: {searchable:,} of {notes:,} notes"
        restyling = health.index.restyling_notes if health.index is not None else 0
        if restyling:  # re-embedded with their titles and headings, searched meanwhile
            counts += (
                f" · {restyling:,} note{'s' if restyling != 1 else ''} on their vectors of before"
            )
        self.counts.setText(counts)
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
