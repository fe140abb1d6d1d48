"""Search ▸ Why Not This Note…: for one note and the window's query and settings, every reason
the note is where it is (:func:`explorer.search.explain.explain`).

The note field completes a few typed letters of a path or title against the open index's notes
(:func:`explorer.search.notes_lookup.lookup`, best first).  The notes are read and every
explanation computed on the dialog's one worker thread, with the dialog's own index connection
and searcher (:class:`Reader`), opened at the first request and kept while the dialog is shown,
so the vector matrix is read once, not at every explanation; only the newest request's answer
is shown.
"""

from __future__ import annotations

import html
import threading
from functools import partial
from pathlib import Path

from PySide6.QtCore import QStringListModel, Qt, QThreadPool, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.settings import EVAL_EMBED_TIMEOUT_S
from explorer.gui.workers import Latest, Worker, run_in_pool
from explorer.index.db import IndexDB
from explorer.search.explain import Explanation, explain
from explorer.search.hybrid import Searcher
from explorer.search.notes_lookup import NoteRef, lookup, notes
from explorer.search.options import SearchOptions

#: Completions offered at most.
COMPLETIONS = 12

#: What each reason code says in the dialog's one-line summary.
REASON_TEXT = {
    "filtered": "fails a tag:/path: filter",
    "excluded": "excluded by a -word",
    "listing": "no words to search: recent notes listed",
    "no-words": "has none of the words",
    "lexical-depth": "below the depth in the lexical list",
    "under-floor": "under the vector floor",
    "vector-depth": "below the depth in the vector list",
    "stale-demoted": "stale: demoted below the shown hits",
    "below-limit": "ranked below the last hit shown",
    "shown": "shown",
}


class Reader:
    """The dialog's connection and searcher (no Qt): opened at the first request, kept until
    :meth:`close`, so the vector matrix is loaded once and refreshed only when the index
    changes (:meth:`VectorIndex.refresh`)."""

    def __init__(self, vault: Path, data_dir: str | None, provider: EmbedderProvider) -> None:
        self.vault, self.data_dir, self.provider = vault, data_dir, provider
        self._lock = threading.Lock()
        self._db: IndexDB | None = None
        self._searcher: Searcher | None = None
        self.opened = 0  # connections opened, for the tests

    def _open(self) -> Searcher:
        if self._searcher is None:
            self._db = IndexDB.open(self.vault, self.data_dir)
            self.opened += 1
            self._searcher = Searcher(
                self._db, self.provider, wait_for_model=False, embed_timeout=EVAL_EMBED_TIMEOUT_S
            )
        return self._searcher

    @property
    def is_open(self) -> bool:
        return self._db is not None

    def notes(self) -> list[NoteRef]:
        with self._lock:
            return notes(self._open().db.conn)

    def explain(self, query: str, path: str, options: SearchOptions) -> Explanation:
        with self._lock:
            return explain(self._open(), query, path, options)

    def close(self) -> None:
        with self._lock:
            db, self._db, self._searcher = self._db, None, None
            if db is not None:
                db.close()


def reasons_text(e: Explanation) -> str:
    return " · ".join(f"{code}: {REASON_TEXT.get(code, code)}" for code in e.reasons)


class WhyNotDialog(QDialog):
    """The note picker and the explanation for the query and settings it was opened with."""

    explained = Signal(object)  # Explanation
    failed = Signal(str)

    def __init__(
        self,
        vault: Path,
        data_dir: str | None,
        provider: EmbedderProvider,
        query: str,
        options: SearchOptions,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Why Not This Note?")
        self.resize(760, 520)
        self.vault, self.data_dir, self.provider = vault, data_dir, provider
        self.query, self.options = query, options
        self.notes: list[NoteRef] = []
        self.notes_loaded = False
        self.explanation: Explanation | None = None
        self.error: str | None = None
        self._latest = Latest()
        self._labels: dict[str, str] = {}  # completion label -> path
        self.reader = Reader(vault, data_dir, provider)
        self.pool = QThreadPool(self)  # one thread: the reader's connection stays on it
        self.pool.setMaxThreadCount(1)

        self.context = QLabel(self)
        self.context.setWordWrap(True)
        self.context.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note_field = QLineEdit(self)
        self.note_field.setPlaceholderText("A few letters of the note's path or title…")
        self.note_field.setClearButtonEnabled(True)
        self.completions = QStringListModel(self)
        self.completer = QCompleter(self.completions, self)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setMaxVisibleItems(COMPLETIONS)
        self.note_field.setCompleter(self.completer)
        self.note_field.textEdited.connect(self._complete)
        self.completer.activated[str].connect(self._picked)  # type: ignore[index]
        self.note_field.returnPressed.connect(self.explain_field)
        self.explain_button = QPushButton("&Explain", self)
        self.explain_button.setAutoDefault(False)
        self.explain_button.clicked.connect(self.explain_field)

        self.reasons = QLabel(self)
        self.reasons.setWordWrap(True)
        self.reasons.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)

        row = QHBoxLayout()
        note_label = QLabel("&Note:", self)
        note_label.setBuddy(self.note_field)
        row.addWidget(note_label)
        row.addWidget(self.note_field, 1)
        row.addWidget(self.explain_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.context)
        layout.addLayout(row)
        layout.addWidget(self.reasons)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self._show_context()
        self.reasons.setText("Pick a note to see why it is where it is for this query.")
        self._load_notes()

    # ------------------------------------------------------------------ the context

    def set_context(self, query: str, options: SearchOptions) -> None:
        """A new query or new settings: explain the note again under them."""
        self.query, self.options = query, options
        self._show_context()
        if self.explanation is not None:
            self.explain_path(self.explanation.path)

    def _show_context(self) -> None:
        o = self.options
        query = safe_text(self.query) if self.query.strip() else "(empty: recent notes)"
        self.context.setText(
            f"Query: <b>{_escape(query)}</b><br>"
            f"<small>{o.mode} · {o.fusion} · depth {o.depth} · min sim {o.min_sim:g} · "
            f"min rel {o.min_rel:g} · top {o.limit}</small>"
        )

    # ------------------------------------------------------------------ picking the note

    def _load_notes(self) -> None:
        run_in_pool(
            self.reader.notes, on_result=self._notes_read, on_error=self._fail, pool=self.pool
        )

    def _notes_read(self, found: list[NoteRef]) -> None:
        self.notes = found
        self.notes_loaded = True
        if self.note_field.text():
            self._complete(self.note_field.text())

    def matches(self, typed: str) -> list[str]:
        """The paths the field offers for ``typed``, best first."""
        return [m.note.path for m in lookup(typed, self.notes, COMPLETIONS)]

    def _complete(self, typed: str) -> None:
        found = lookup(typed, self.notes, COMPLETIONS)
        self._labels = {m.note.label: m.note.path for m in found}
        self.completions.setStringList(list(self._labels))
        if found:
            self.completer.complete()

    def _picked(self, label: str) -> None:
        path = self._labels.get(label, label)
        self.note_field.setText(path)
        self.explain_path(path)

    def resolve(self, typed: str) -> str | None:
        """The note the field means: a path as typed, a completion's label, else the best
        fuzzy match."""
        typed = typed.strip()
        if not typed:
            return None
        if any(n.path == typed for n in self.notes):
            return typed
        if typed in self._labels:
            return self._labels[typed]
        found = lookup(typed, self.notes, 1)
        return found[0].note.path if found else typed

    def explain_field(self) -> None:
        path = self.resolve(self.note_field.text())
        if path is not None:
            self.explain_path(path)

    # ------------------------------------------------------------------ explaining

    def explain_path(self, path: str) -> None:
        """Explain ``path`` for the dialog's query and settings (off the GUI thread)."""
        if self.note_field.text() != path:
            self.note_field.setText(path)
        request = self._latest.next()
        self.reasons.setText(f"Explaining {safe_text(path)}…")
        run_in_pool(
            self.reader.explain,
            self.query,
            path,
            self.options,
            on_result=partial(self._explained, request),
            on_error=partial(self._failed, request),
            pool=self.pool,
        )

    def _explained(self, request: int, e: Explanation) -> None:
        if not self._latest.is_current(request):
            return
        self.explanation, self.error = e, None
        self.reasons.setText(f"<b>Reasons</b> — {_escape(reasons_text(e))}")
        self.text.setPlainText("\n".join(safe_text(line) for line in e.lines()))
        self.explained.emit(e)

    def _failed(self, request: int, exc: Exception) -> None:
        if self._latest.is_current(request):
            self._fail(exc)

    def done(self, result: int) -> None:
        """Closing the dialog releases its connection and matrix (on the reader's thread, after
        any request still running); the next request opens them again."""
        Worker(self.reader.close).start(self.pool)
        super().done(result)

    def _fail(self, exc: Exception) -> None:
        self.explanation, self.error = None, safe_text(str(exc))
        self.reasons.setText(f"<b>Cannot explain</b> — {_escape(self.error)}")
        self.text.clear()
        self.failed.emit(self.error)


def _escape(text: str) -> str:
    return html.escape(text)
