"""Judging in the window: grades saved as they are given, and the Quality dock that scores them.

A grade (keys 0–3 on a hit, Delete to remove it) is shown at once and written to the vault's
own ``judgments.tsv`` (:func:`~explorer.evaluate.judgments.judgments_path`: beside the index,
never inside it) on a thread of its own, in the order given, in the format
``vault-explorer eval --judgments`` reads; ``saved`` tells the window when it is on disk.
:class:`Judging` owns that file for the open vault; a damaged file is reported and never
overwritten.

The Quality dock lists every judged query with its nDCG@10 and first relevant rank in each
mode, the mean on top.  The scores are computed by :class:`QualityService` on the vault
session's reader (:meth:`~explorer.gui.core.session.VaultSession.query`: its connection and vector
matrix, one judged query at a time, so the window's own search goes in between), exactly as
``eval`` computes them (both lists of each query fetched without a floor, then fused per mode
with the window's fusion settings, :func:`~explorer.evaluate.runner.rankings`).  The lists are
kept per query, so a change of the fusion settings or a new grade costs a re-fusion, not a
search; a change of the index drops them.
Recomputing is debounced and happens only while the dock is visible.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import html
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.evaluate.datasets import DatasetError, load_judgments
from explorer.evaluate.judgments import JudgmentFile, judgments_path
from explorer.evaluate.quality import QualityReport, score
from explorer.evaluate.runner import QueryRun, collect_candidates
from explorer.evaluate.settings import CUTOFF, EVAL_EMBED_TIMEOUT_S, RUN_LIMIT, EvalSettings
from explorer.gui.core.session import VaultSession
from explorer.gui.core.workers import run_in_pool
from explorer.jobs import Job, PriorityExecutor
from explorer.live import LiveEvent
from explorer.live.events import changes_results
from explorer.live.reader import ReadContext
from explorer.search.fusion.cached import fetch_options
from explorer.search.fusion.results import Candidates, Hit
from explorer.search.query.options import MODES, Mode, SearchOptions

Judgments = dict[str, dict[str, int]]

#: A grade waits this long for the next before the scores are recomputed.
RECOMPUTE_MS = 300
#: Where grades are written: one thread, so that they reach the file in the order given.
GRADES = PriorityExecutor("grades")
EMPTY_TEXT = "no judgments yet — press 0–3 on a hit"
MODE_LABELS = {"fts": "lex", "semantic": "sem", "hybrid": "hyb"}
QUERY_ROLE = Qt.ItemDataRole.UserRole + 1  # the query of a row (its text is made safe to show)

#: What shapes a query's fetched lists (not the fusion settings: those only re-fuse them).
ListKey = tuple[str, str, int, float]


def query_key(raw: str | None) -> str | None:
    """The judgments file's spelling of a query: its words separated by single spaces (a tab or
    newline pasted into the field would break the file's columns); None for no query."""
    key = " ".join((raw or "").split())
    return key or None


# ============================================================================ the file


class Judging(QObject):
    """The open vault's judgments file: grades per query, shown at once, saved in order off the
    GUI thread."""

    changed = Signal()
    saved = Signal(str)  # what to tell the user once a grade is on disk (or why it is not)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.file: JudgmentFile | None = None
        self._all: Judgments = {}
        self.pool = GRADES
        self._last: Job[Any] | None = None  # the grade written last

    @property
    def path(self) -> Path | None:
        return self.file.path if self.file is not None else None

    @property
    def error(self) -> str | None:
        return self.file.error if self.file is not None else None

    def open(self, vault: Path, data_dir: str | None) -> None:
        self.file = JudgmentFile(judgments_path(vault, data_dir))
        self._all = _read(self.file)
        self.changed.emit()

    def close(self) -> None:
        self.file = None
        self._all = {}
        self.changed.emit()

    def all(self) -> Judgments:
        """Every query's grades, as ``eval`` reads them from the file."""
        return {query: dict(notes) for query, notes in self._all.items()}

    def grades(self, raw: str | None) -> tuple[dict[str, int], bool]:
        """The grades of query ``raw`` (note path -> grade) and whether it is judged at all."""
        key = query_key(raw)
        grades = dict(self._all.get(key, {})) if key else {}
        return grades, bool(grades)

    def set_grade(self, raw: str | None, hit: Hit, grade: int | None) -> str | None:
        """Grade ``hit`` for query ``raw`` (None: remove the grade): shown at once, written on
        the grading thread (``saved`` then says so).  What to tell the user now, when the grade
        is refused."""
        key = query_key(raw)
        file = self.file
        if file is None:
            return "Open a vault to grade its notes"
        if key is None:
            return "Type a query first: a grade is for a hit of a query"
        if file.error is not None:
            damaged = f"{file.path}: not overwriting a damaged file: {file.error}"
            return f"Not graded: {safe_text(damaged)}"
        notes = self._all.setdefault(key, {})
        if grade is None:
            notes.pop(hit.path, None)
            if not notes:
                del self._all[key]
        else:
            notes[hit.path] = grade
        self.changed.emit()
        title, shown = safe_text(hit.title or hit.path), safe_text(key)
        where = safe_text(str(file.path))
        done = (
            f"removed the grade of {title} for '{shown}' — saved to {where}"
            if grade is None
            else f"graded {title} {grade} for '{shown}' — saved to {where}"
        )
        self._last = run_in_pool(
            _write_grade,
            file,
            key,
            hit.path,
            grade,
            done,
            on_result=partial(self._written, file),
            pool=self.pool,
        ).job
        return None

    def _written(self, file: JudgmentFile, outcome: tuple[str, Judgments | None]) -> None:
        message, reread = outcome
        if file is not self.file:
            return  # another vault since
        if reread is not None:  # not written: show what the file holds
            self._all = reread
            self.changed.emit()
        self.saved.emit(message)

    def wait_saved(self, msecs: int = 5_000) -> bool:
        """Wait for the grades under way to reach the file (the window's exit)."""
        if self._last is None:
            return True
        done, _ = concurrent.futures.wait([self._last], msecs / 1000)
        return bool(done)


def _write_grade(
    file: JudgmentFile, key: str, path: str, grade: int | None, done: str
) -> tuple[str, Judgments | None]:
    """The grading thread: write one grade; the message, and the file's grades if it failed."""
    try:
        file.set_grade(key, path, grade)
    except (DatasetError, OSError) as exc:
        return f"Not graded: {safe_text(str(exc))}", _read(file)
    return done, None


def _read(file: JudgmentFile) -> Judgments:
    if file.error is not None or not file.path.exists():
        return {}
    try:
        return load_judgments(file.path)
    except DatasetError:  # pragma: no cover - JudgmentFile read the same file just now
        file.load()
        return {}


# ============================================================================ the scores


class QualityService(QObject):
    """Scores the judgments on the vault session's reader, one judged query at a time."""

    computed = Signal(object)  # QualityReport of the latest request
    failed = Signal(str)

    def __init__(self, session: VaultSession, parent: QObject) -> None:
        super().__init__(parent)
        self.session = session
        self.fetched = 0  # queries searched (tests prove that re-scoring needs no search)
        self._generation = 0  # bumped when the index changes: the kept lists are stale
        self._lists: dict[ListKey, Candidates] = {}  # used on the reader thread only
        self._lists_generation = 0
        self._closed = False

    def invalidate(self) -> None:
        self._generation += 1

    def compute(self, judgments: Judgments, options: SearchOptions) -> None:
        generation = self._generation
        reply = self.session.query(
            lambda ctx: self._compute(ctx, judgments, options, generation), group="quality"
        )
        reply.answered.connect(self._deliver)
        reply.failed.connect(lambda exc: self.failed.emit(f"{exc}"))

    def _compute(
        self, ctx: ReadContext, judgments: Judgments, options: SearchOptions, generation: int
    ) -> QualityReport:
        # Like eval, wait for each query's embedding: a busy machine must not change the
        # scores (the window's 3 s limit would score such a query lexically).
        searcher = ctx.searcher(embed_timeout=EVAL_EMBED_TIMEOUT_S)
        settings = EvalSettings(search=replace(options, mode=Mode.HYBRID, limit=RUN_LIMIT))
        fetch = fetch_options(settings.options(settings.candidate_mode))

        def key(query: str) -> ListKey:
            return (query, fetch.mode, fetch.depth, fetch.min_sim)

        if self._lists_generation != generation:
            self._lists, self._lists_generation = {}, generation
        missing = {q: q for q in judgments if key(q) not in self._lists}
        started = time.perf_counter()
        ctx.checkpoint()
        # Between two judged queries the window's search (more urgent) runs, and a newer
        # computation stops this one.
        fresh = collect_candidates(searcher, missing, settings, lambda *_: ctx.checkpoint())
        self.fetched += len(missing)
        for query, found in fresh.candidates.items():
            if query not in fresh.degraded:  # without its vector list: fetch it next time
                self._lists[key(query)] = found
        kept = {q: self._lists[key(q)] for q in judgments if key(q) in self._lists}
        run = QueryRun(
            candidates={**kept, **fresh.candidates},
            rejected=dict(fresh.rejected),
            degraded=dict(fresh.degraded),
            seconds=time.perf_counter() - started,
        )
        return score(judgments, run, settings)

    def _deliver(self, report: QualityReport) -> None:
        if not self._closed:
            self.computed.emit(report)

    def close(self) -> None:
        self._closed = True


# ============================================================================ the dock


class QualityPanel(QDockWidget):
    """The Quality dock: judged queries and their scores, the judgments file's path."""

    queryActivated = Signal(str)  # a judged query was clicked: run it
    updated = Signal(object)  # QualityReport, each time the table is refilled

    def __init__(
        self,
        data_dir: str | None,
        options: Callable[[], SearchOptions],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Quality", parent)
        self.setObjectName("qualityDock")
        self.data_dir = data_dir
        self.options = options
        self.judging = Judging(self)
        self.judging.changed.connect(self.schedule)
        self.service: QualityService | None = None
        self.report: QualityReport | None = None

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 4, 6, 6)
        layout.setSpacing(4)
        self.path_label = QLabel(body)
        self.path_label.setObjectName("judgmentsPath")
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path_label.setWordWrap(True)
        self.path_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status = QLabel(body)
        self.status.setObjectName("qualityStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, 2 + 2 * len(MODES), body)
        self.table.setObjectName("qualityTable")
        self.table.setHorizontalHeaderLabels(
            ["Query", "Judged"]
            + [f"nDCG {MODE_LABELS[m]}" for m in MODES]
            + [f"1st {MODE_LABELS[m]}" for m in MODES]
        )
        tips = ["A judged query (click to run it)", "Notes judged (relevant: grade above 0)"]
        tips += [
            f"nDCG@{CUTOFF} of the {m} ranking with the current fusion settings" for m in MODES
        ]
        tips += [f"Rank of the first relevant note in the {m} ranking (— none)" for m in MODES]
        for column, tip in enumerate(tips):
            header_item = self.table.horizontalHeaderItem(column)
            if header_item is not None:
                header_item.setToolTip(tip)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, self.table.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.cellClicked.connect(self._clicked)
        layout.addWidget(self.path_label)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        self.setWidget(body)

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(RECOMPUTE_MS)
        self.timer.timeout.connect(self.recompute)
        self.visibilityChanged.connect(self._visibility_changed)
        self._show_file()

    # ------------------------------------------------------------------ the vault

    def open_vault(self, session: VaultSession) -> None:
        """Judge and score ``session``'s vault; its live events tell when to score again."""
        self.close_vault()
        self.service = QualityService(session, self)
        self.service.computed.connect(self._computed)
        self.service.failed.connect(self._failed)
        session.liveEvent.connect(self._live_event)
        self.judging.open(session.vault, self.data_dir)

    def close_vault(self, wait: bool = False) -> None:
        self.timer.stop()
        if wait:
            self.judging.wait_saved()
        if self.service is not None:
            service, self.service = self.service, None
            with contextlib.suppress(RuntimeError, TypeError):  # the session may be gone
                service.session.liveEvent.disconnect(self._live_event)
            service.close()
            service.deleteLater()
        if self.judging.file is not None:
            self.judging.close()
        self.report = None
        self._fill(None)

    def grade(self, raw: str | None, hit: Hit, grade: int | None) -> str | None:
        """Grade ``hit`` for query ``raw`` (None removes the grade); the status-bar message
        when it is refused (``judging.saved`` says when it is on disk)."""
        return self.judging.set_grade(raw, hit, grade)

    def grades(self, raw: str | None) -> tuple[dict[str, int], bool]:
        return self.judging.grades(raw)

    def _live_event(self, event: LiveEvent) -> None:
        if changes_results(event):
            self.invalidate()

    def invalidate(self) -> None:
        """The index changed: fetch the lists again at the next computation."""
        if self.service is not None:
            self.service.invalidate()
            self.schedule()

    # ------------------------------------------------------------------ computing

    def _visibility_changed(self, visible: bool) -> None:
        if visible:
            self.schedule()

    def schedule(self) -> None:
        """Recompute soon (after a burst of grades or setting changes), if anyone is looking."""
        self._show_file()
        if self.service is not None and self.isVisible():
            self.timer.start()

    def recompute(self) -> None:
        judgments = self.judging.all()
        if self.service is None:
            return
        if not judgments:
            self.report = None
            self._fill(None)
            return
        self.status.setText(f"scoring {len(judgments)} judged queries…")
        self.service.compute(judgments, self.options())

    def _computed(self, report: QualityReport) -> None:
        self.report = report
        self._fill(report)
        self.updated.emit(report)

    def _failed(self, message: str) -> None:
        self.status.setText(f"could not score the judgments: {html.escape(safe_text(message))}")

    # ------------------------------------------------------------------ showing

    def _show_file(self) -> None:
        path = self.judging.path
        if path is None:
            self.path_label.setText("Judgments: open a vault")
            self.status.setText("")
            return
        self.path_label.setText(f"Judgments: {safe_text(str(path))}")
        error = self.judging.error
        if error is not None:
            self.status.setText(
                f"<b>The judgments file is damaged and is left as it is:</b> "
                f"{html.escape(safe_text(error))}<br>Fix or move it away, then reopen the vault."
            )
        elif not self.judging.all():
            self.status.setText(EMPTY_TEXT)

    def _fill(self, report: QualityReport | None) -> None:
        table = self.table
        table.setRowCount(0)
        self._show_file()
        if report is None or not report.rows:
            return
        notes = []
        if report.scored < len(report.rows):
            notes.append(f"{len(report.rows) - report.scored} with no relevant note yet")
        if not report.semantic:
            notes.append("some queries without their vector list (model not ready)")
        if report.rejected:
            notes.append(f"{len(report.rejected)} could not run")
        self.status.setText(
            f"{len(report.rows)} judged queries, mean of {report.scored}"
            + (f" · {' · '.join(notes)}" if notes else "")
        )
        table.setRowCount(len(report.rows) + 1)
        bold = QFont(table.font())
        bold.setBold(True)
        mean_cells = ["mean", str(sum(r.judged for r in report.rows))]
        mean_cells += [f"{report.mean[m]:.3f}" for m in MODES]
        mean_cells += [f"{report.in_top[m]}/{report.scored} ≤{CUTOFF}" for m in MODES]
        for column, text in enumerate(mean_cells):
            item = _item(text, column)
            item.setFont(bold)
            if column >= 2 + len(MODES):
                item.setToolTip(f"queries with a relevant note in the top {CUTOFF}")
            table.setItem(0, column, item)
        for row, quality in enumerate(report.rows, start=1):
            cells = [safe_text(quality.query), f"{quality.judged} ({quality.relevant})"]
            cells += [_ndcg(quality.ndcg[m]) for m in MODES]
            cells += ["—" if quality.first[m] is None else str(quality.first[m]) for m in MODES]
            for column, text in enumerate(cells):
                item = _item(text, column)
                if column == 0:
                    item.setToolTip(f"{safe_text(quality.query)} — click to run it")
                    item.setData(QUERY_ROLE, quality.query)
                table.setItem(row, column, item)

    def _clicked(self, row: int, _column: int) -> None:
        item = self.table.item(row, 0)
        query = item.data(QUERY_ROLE) if item is not None else None
        if isinstance(query, str):
            self.queryActivated.emit(query)

    def rows(self) -> list[list[str]]:
        """The table's text, row by row (the mean first): what tests and tools read."""
        return [
            [
                (item.text() if (item := self.table.item(r, c)) is not None else "")
                for c in range(self.table.columnCount())
            ]
            for r in range(self.table.rowCount())
        ]


def _ndcg(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _item(text: str, column: int) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if column > 0:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item
