"""Search ▸ Why Not This Note…: for one note and the window's query and settings, every reason
the note is where it is (:func:`explorer.search.explain.explain.explain`).

The note field completes a few typed letters of a path or title against the open index's notes
(:func:`explorer.search.explain.notes_lookup.lookup`, best first), matched on a thread of the
dialog's own, never on the GUI thread.  The notes are read and every explanation computed through
the vault session (:meth:`~explorer.gui.core.session.VaultSession.query`: its reader's connection
and vector matrix, shared with the window); only the newest request's answer is shown.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QStringListModel, Qt, Signal
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
from explorer.evaluate.settings import EVAL_EMBED_TIMEOUT_S
from explorer.gui.core.session import VaultSession
from explorer.gui.core.workers import run_in_pool
from explorer.jobs import PriorityExecutor
from explorer.live.reader import ReadContext
from explorer.search.explain.explain import explain
from explorer.search.explain.explanation import Explanation
from explorer.search.explain.notes_lookup import Match, NoteRef, lookup, notes
from explorer.search.query.options import SearchOptions

#: Completions offered at most.
COMPLETIONS = 12
#: The picker's matching, one text at a time (the newest typed supersedes the older).
PICKER = PriorityExecutor("why-not-picker")

#: What each reason code says in the dialog's one-line summary.
REASON_TEXT = {
    "filtered": "a filter of the query leaves it out",
    "excluded": "excluded by a -word",
    "listing": "no words to search: recent notes listed",
    "no-words": "has none of the words",
    "lexical-depth": "below the depth in the lexical list",
    "under-floor": "under the vector floor",
    "vector-depth": "below the depth in the vector list",
    "title-exact": "its title or an alias is the query",
    "title-near": "its title or an alias nearly matches the query",
    "stale-demoted": "stale: demoted below the shown hits",
    "below-limit": "ranked below the last hit shown",
    "shown": "shown",
}


def resolve(typed: str, known: list[NoteRef], labels: dict[str, str]) -> str | None:
    """The note the field means: a path as typed, a completion's label, else the best fuzzy
    match (or the text as typed)."""
    typed = typed.strip()
    if not typed:
        return None
    if any(n.path == typed for n in known):
        return typed
    if typed in labels:
        return labels[typed]
    found = lookup(typed, known, 1)
    return found[0].note.path if found else typed


def reasons_text(e: Explanation) -> str:
    """The reason codes, each in words; ``filtered`` names the filters that leave the note
    out, in the words ``explain`` prints (:func:`filter_lines`)."""
    said = []
    for code in e.reasons:
        text = REASON_TEXT.get(code, code)
        if code == "filtered":
            text = "; ".join(filter_lines(e)) or text
        said.append(f"{code}: {text}")
    return " · ".join(said)


def filter_lines(e: Explanation) -> list[str]:
    """The lines of ``explain`` that name a filter leaving the note out (``not listed:
    `[status:done]` excludes it, its status is open``): the explanation gives one line per
    filter, in the order of its checks, after the note, the query and the verdict."""
    lines = e.lines()
    failing = []
    for i, check in enumerate(e.filters):
        line = lines[3 + i] if 3 + i < len(lines) else ""
        if not check.passes:
            failing.append(line if check.value in line else f"filter {check.value}: fails")
    return failing


class WhyNotDialog(QDialog):
    """The note picker and the explanation for the query and settings it was opened with."""

    explained = Signal(object)  # Explanation
    failed = Signal(str)
    completed = Signal(object)  # the completion labels offered, each time they change

    def __init__(
        self,
        session: VaultSession,
        query: str,
        options: SearchOptions,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Why Not This Note?")
        self.resize(760, 520)
        self.session = session
        self.vault = session.vault
        self.query, self.options = query, options
        self.notes: list[NoteRef] = []
        self.notes_loaded = False
        self.explanation: Explanation | None = None
        self.error: str | None = None
        self._labels: dict[str, str] = {}  # completion label -> path
        self._typed = f"why-not-typed-{id(self)}"  # PICKER's group: the newest text to match

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
        reply = self.session.query(lambda ctx: notes(ctx.db.conn), group="why-not-notes")
        reply.answered.connect(self._notes_read)
        reply.failed.connect(self._fail)

    def _notes_read(self, found: list[NoteRef]) -> None:
        self.notes = found
        self.notes_loaded = True
        if self.note_field.text():
            self._complete(self.note_field.text())

    def _complete(self, typed: str) -> None:
        """Match ``typed`` against the notes on the picker's thread; the newest text wins."""
        run_in_pool(
            lookup,
            typed,
            self.notes,
            COMPLETIONS,
            on_result=self._completed,
            pool=PICKER,
            group=self._typed,
        )

    def _completed(self, found: list[Match]) -> None:
        self._labels = {m.note.label: m.note.path for m in found}
        self.completions.setStringList(list(self._labels))
        self.completed.emit(list(self._labels))
        if found:
            self.completer.complete()

    def _picked(self, label: str) -> None:
        path = self._labels.get(label, label)
        self.note_field.setText(path)
        self.explain_path(path)

    def explain_field(self) -> None:
        """Explain the note the field means (:func:`resolve`, on the picker's thread)."""
        run_in_pool(
            resolve,
            self.note_field.text(),
            self.notes,
            dict(self._labels),
            on_result=lambda path: self.explain_path(path) if path is not None else None,
            pool=PICKER,
        )

    # ------------------------------------------------------------------ explaining

    def explain_path(self, path: str) -> None:
        """Explain ``path`` for the dialog's query and settings (off the GUI thread)."""
        if self.note_field.text() != path:
            self.note_field.setText(path)
        self.reasons.setText(f"Explaining {safe_text(path)}…")
        query, options = self.query, self.options

        def run(ctx: ReadContext) -> Explanation:
            return explain(ctx.searcher(embed_timeout=EVAL_EMBED_TIMEOUT_S), query, path, options)

        reply = self.session.query(run, group="why-not")
        reply.answered.connect(self._explained)
        reply.failed.connect(self._fail)

    def _explained(self, e: Explanation) -> None:
        self.explanation, self.error = e, None
        self.reasons.setText(f"<b>Reasons</b> — {_escape(reasons_text(e))}")
        self.text.setPlainText("\n".join(safe_text(line) for line in e.lines()))
        self.explained.emit(e)

    def _fail(self, exc: Exception) -> None:
        self.explanation, self.error = None, safe_text(str(exc))
        self.reasons.setText(f"<b>Cannot explain</b> — {_escape(self.error)}")
        self.text.clear()
        self.failed.emit(self.error)


def _escape(text: str) -> str:
    return html.escape(text)
