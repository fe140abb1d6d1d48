"""The Tune panel: every fusion setting of a grid scored on the vault's own judged queries.

The judged queries (the vault's judgments file, :func:`~explorer.evaluate.judgments.judgments_path`)
are searched once each through the vault session's reader (its connection and vector matrix,
one query at a time so that the window's own search goes in between), both lists floor-free and
deep (:func:`~explorer.evaluate.runner.collect_candidates`); then, on the panel's own thread,
every point of :data:`~explorer.evaluate.sweep.DEFAULT_GRID` is fused and scored from those
lists (:func:`~explorer.evaluate.sweep.sweep`): no model call per setting.  The base of the
grid (the floors and the depth) is the window's settings when the sweep starts.

The chart is pyqtgraph, imported only when the panel first draws (about 0.6 s, paid by whoever
opens the panel, not at start-up): nDCG@10 against the lexical weight share, one line per method
and k, the better single list as a dashed line, the window's settings as a star and the best
point as a ring.  "Apply best" hands the best point's ranking settings to the window's fusion
controls.
"""

from __future__ import annotations

import concurrent.futures
import html
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.embed.provider import ModelState
from explorer.evaluate.datasets import DatasetError, load_judgments
from explorer.evaluate.judgments import judgments_path
from explorer.evaluate.runner import QueryRun, collect_candidates
from explorer.evaluate.settings import EVAL_EMBED_TIMEOUT_S, RUN_LIMIT, EvalSettings
from explorer.evaluate.sweep import (
    DEFAULT_GRID,
    OBJECTIVE,
    Sweep,
    SweepPoint,
    grid,
    parse_grid,
    score_setting,
    share,
    sweep,
)
from explorer.evaluate.sweep import describe as describe_options
from explorer.gui.core.session import VaultSession
from explorer.gui.core.theme import is_dark
from explorer.gui.core.workers import run_in_pool
from explorer.index.embedding import pending_count
from explorer.jobs import Job, PriorityExecutor
from explorer.live.reader import ReadContext
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import Candidates
from explorer.search.query.options import Mode, SearchOptions
from explorer.search.query.query import QueryError

#: Line colours of the series, readable on a light and on a dark background.
SERIES_COLORS = ("#3b7ddd", "#e69b00", "#2ca25f", "#d6604d", "#8e6bd1", "#17a2b8", "#b8860b")
#: Their marker shapes, so that lines lying on top of each other can still be told apart.
#: The legend's column at most (its longest label is "semantic alone 0.000").
LEGEND_WIDTH = 190
SERIES_SYMBOLS = ("o", "t", "s", "d", "t1", "p", "h")
CURRENT_COLOR = "#e0218a"
PHASES = {"queries": "Searching the judged queries", "sweep": "Scoring the settings"}

#: Where a sweep's settings are scored (its searching is the reader's): one at a time, the
#: newest sweep of a panel superseding the older.
SWEEPS = PriorityExecutor("tune-sweep")
#: Seconds :meth:`SweepPanel.stop` waits at most for the scoring under way, when told to wait.
STOP_WAIT_S = 10.0


class Cancelled(Exception):
    """The sweep was stopped (the panel or the window closed, or a new run started)."""


@dataclass(frozen=True)
class TuneResult:
    """A finished sweep, and the window's settings scored on the same lists."""

    sweep: Sweep
    current: SweepPoint
    judged: int  # queries in the judgments file
    rejected: dict[str, str] = field(default_factory=dict)  # query -> why it was not searched
    degraded: dict[str, str] = field(default_factory=dict)  # query -> why semantic was missing
    pending: int = 0  # passages still without a vector of the model when the queries ran
    #: The lists the sweep was scored from, kept to score the window's settings as they change.
    candidates: Mapping[str, Candidates] = field(default_factory=dict)
    qrels: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    @property
    def best(self) -> SweepPoint:
        return self.sweep.best


@dataclass(frozen=True)
class Collected:
    """The judged queries' lists, fetched once: what every setting of the sweep is scored on."""

    qrels: Mapping[str, Mapping[str, int]]
    run: QueryRun
    pending: int
    base: SearchOptions


def collect_tune(
    searcher: Searcher,
    judgments: Path,
    current: SearchOptions,
    progress: Callable[[str, int, int], None],
    should_stop: Callable[[], bool],
) -> Collected:
    """Search each judged query once, floor-free and deep, with ``searcher`` (no Qt)."""
    qrels = load_judgments(judgments)
    if not qrels:
        raise DatasetError(f"{judgments}: no judgments in the file")
    base = replace(current, mode=Mode.HYBRID, limit=RUN_LIMIT)
    settings = EvalSettings(search=base, modes=("hybrid",))
    run = collect_candidates(
        searcher, {q: q for q in qrels}, settings, _reporter(progress, should_stop)
    )
    provider = searcher.provider
    pending = (
        pending_count(searcher.db, provider.name)
        if provider.state is not ModelState.DISABLED
        else 0
    )
    if not run.candidates:
        reasons = "; ".join(f"{q!r}: {why}" for q, why in list(run.rejected.items())[:3])
        raise DatasetError(f"none of the judged queries could be searched ({reasons})")
    return Collected(qrels, run, pending, base)


def sweep_tune(
    collected: Collected,
    progress: Callable[[str, int, int], None],
    should_stop: Callable[[], bool],
) -> TuneResult:
    """Score every point of the default grid over the window's floors and depth, and the
    window's settings, from the lists fetched (no Qt, no index)."""
    run, qrels, base = collected.run, collected.qrels, collected.base
    report = _reporter(progress, should_stop)
    swept = sweep(run.candidates, qrels, base, parse_grid(DEFAULT_GRID), progress=report)
    scored = score_setting(swept, run.candidates, qrels, base)
    return TuneResult(
        swept,
        scored,
        len(qrels),
        dict(run.rejected),
        dict(run.degraded),
        collected.pending,
        run.candidates,
        qrels,
    )


def run_tune(
    searcher: Searcher,
    judgments: Path,
    current: SearchOptions,
    progress: Callable[[str, int, int], None],
    should_stop: Callable[[], bool],
) -> TuneResult:
    """The work of one sweep in one go (no Qt): :func:`collect_tune`, then :func:`sweep_tune`."""
    collected = collect_tune(searcher, judgments, current, progress, should_stop)
    return sweep_tune(collected, progress, should_stop)


def _reporter(
    progress: Callable[[str, int, int], None], should_stop: Callable[[], bool]
) -> Callable[..., None]:
    def report(phase: str, done: int, total: int, _note: str = "") -> None:
        if should_stop():
            raise Cancelled
        progress(phase, done, total)

    return report


def score_current(result: TuneResult, current: SearchOptions) -> SweepPoint:
    """``current`` (as Hybrid) scored from the sweep's lists: a grid point's score, or one
    fusion per query.  Raises :class:`QueryError` for a depth deeper than the lists fetched."""
    options = replace(current, limit=RUN_LIMIT)
    return score_setting(result.sweep, result.candidates, result.qrels, options)


class _Signals(QObject):
    """Progress from the pool thread, delivered on the GUI thread."""

    progress = Signal(int, str, int, int)  # request, phase, done, total


class SweepPanel(QDialog):
    """The "Tune on judgments" window of one vault."""

    finished_sweep = Signal(object)  # TuneResult, when a sweep is drawn
    failed = Signal(str)  # the message shown, when a sweep could not run
    missing = Signal(object)  # Path of the judgments file that does not exist

    def __init__(
        self,
        session: VaultSession,
        options: Callable[[], SearchOptions],
        apply: Callable[[SearchOptions], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.vault = vault = session.vault
        self._options = options
        self._apply = apply
        self.tuned: TuneResult | None = None
        self.judgments = judgments_path(vault, session.data_dir)
        self.setWindowTitle(f"Tune on judgments — {safe_text(vault.name)}")
        self.resize(900, 620)

        self.group = f"tune-{id(self)}"  # its sweeps' group of SWEEPS's requests
        self._scoring: Job[TuneResult] | None = None
        self._running = False
        self._stop = threading.Event()  # of the running sweep
        self._signals = _Signals(self)
        self._signals.progress.connect(self._progress)

        self.status = QLabel(self)
        self.status.setObjectName("tuneStatus")
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar(self)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.chart_area = QVBoxLayout()
        self.chart_area.setContentsMargins(0, 0, 0, 0)
        self.plot: Any = None  # pyqtgraph.GraphicsLayoutWidget, made on the first draw
        self.plot_item: Any = None  # its PlotItem
        self.legend: Any = None  # its LegendItem, beside the plot
        self.series_items: dict[str, Any] = {}  # label -> PlotDataItem
        self.single_item: Any = None
        self.best_item: Any = None
        self.current_item: Any = None

        self.run_button = QPushButton("Run again", self)
        self.run_button.setToolTip("Search the judged queries again and score every setting")
        self.run_button.clicked.connect(self.start)
        self.apply_button = QPushButton("Apply best", self)
        self.apply_button.setToolTip("Set the window's fusion controls to the best setting")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply_best)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(close)

        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.progress)
        layout.addLayout(self.chart_area, 1)
        layout.addLayout(buttons)

    # ------------------------------------------------------------------ running

    @property
    def running(self) -> bool:
        return self._running

    def start(self) -> None:
        """Start a sweep (a running one is dropped), or say that there is nothing to judge by."""
        self.stop()
        self.tuned = None
        self.apply_button.setEnabled(False)
        if not self.judgments.is_file():
            self._show_missing()
            return
        request = SWEEPS.supersede(self.group)
        current = self._options()
        signals = self._signals
        stop = self._stop = threading.Event()
        judgments = self.judgments

        def progress(phase: str, done: int, total: int) -> None:
            signals.progress.emit(request, phase, done, total)

        def collect(ctx: ReadContext) -> Collected:
            searcher = ctx.searcher(embed_timeout=EVAL_EMBED_TIMEOUT_S)

            def step(phase: str, done: int, total: int) -> None:
                progress(phase, done, total)
                ctx.checkpoint()  # the window's search goes in between

            return collect_tune(searcher, judgments, current, step, stop.is_set)

        def collected(found: Collected) -> None:
            if not SWEEPS.is_latest(self.group, request):
                return  # stopped, or another sweep began
            self._scoring = run_in_pool(
                sweep_tune,
                found,
                progress,
                stop.is_set,
                on_result=self._done,
                on_error=lambda exc: self._error(request, exc),
                pool=SWEEPS,
                group=self.group,
                request=request,
            ).job

        reply = self.session.query(collect, group="tune")
        reply.answered.connect(collected)
        reply.failed.connect(lambda exc: self._error(request, exc))
        self._running = True
        self.progress.setRange(0, 0)
        self.progress.setFormat("Searching the judged queries…")
        self.progress.show()
        self.status.setText(
            f"Sweeping {_grid_size(current)} fusion settings on the judged queries of "
            f"<code>{html.escape(safe_text(str(self.judgments)))}</code>…"
        )

    def stop(self, wait: bool = False) -> None:
        """Abort the running sweep (its result is dropped); with ``wait``, wait for its thread."""
        self._running = False
        SWEEPS.supersede(self.group)
        self._stop.set()
        self.progress.hide()
        if wait and self._scoring is not None:
            concurrent.futures.wait([self._scoring], STOP_WAIT_S)

    def _progress(self, request: int, phase: str, done: int, total: int) -> None:
        if not SWEEPS.is_latest(self.group, request):
            return
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{PHASES.get(phase, phase)}: {done} of {total}")

    def _done(self, result: TuneResult) -> None:
        self._running = False
        self.progress.hide()
        self.tuned = result
        self.apply_button.setEnabled(True)
        self.status.setText(summary_html(result))
        self.draw(result)
        self.finished_sweep.emit(result)

    def _error(self, request: int, exc: BaseException) -> None:
        if not SWEEPS.is_latest(self.group, request) or isinstance(exc, Cancelled):
            return
        self._running = False
        self.progress.hide()
        message = safe_text(str(exc)) or type(exc).__name__
        self.status.setText(f"The sweep could not run: {html.escape(message)}")
        self.failed.emit(message)

    def _show_missing(self) -> None:
        path = html.escape(safe_text(str(self.judgments)))
        vault = html.escape(safe_text(str(self.vault)))
        self.status.setText(
            "<p><b>This vault has no judgments yet.</b></p>"
            f"<p>The sweep reads them from <code>{path}</code> (beside the vault's index, never "
            "inside the vault): one line per graded hit, <code>query&lt;TAB&gt;note "
            "path&lt;TAB&gt;grade</code>.</p>"
            "<p>To make one, search, select a hit and press <b>0</b>–<b>3</b> (0: not relevant, "
            "3: exactly what you wanted): each grade is saved there at once. Or write the file by "
            "hand, in the format <code>vault-explorer eval VAULT --judgments FILE</code> reads "
            f"(<code>vault-explorer eval {vault}</code> then finds it too). Then press "
            "<i>Run again</i>.</p>"
        )
        self._clear_chart()
        self.missing.emit(self.judgments)

    # ------------------------------------------------------------------ applying

    def apply_best(self) -> None:
        """Hand the best setting to the window's fusion controls (they re-fuse at once)."""
        if self.tuned is not None:
            self._apply(self.tuned.best.options)
            hybrid = self._options().mode == Mode.HYBRID
            self.status.setText(summary_html(self.tuned, applied=True, hybrid=hybrid))

    def current_changed(self) -> None:
        """The window's fusion settings changed: move the star (scored from the kept lists,
        on the spot: one fusion per judged query)."""
        tuned = self.tuned
        if tuned is None:
            return
        options = replace(self._options(), mode=Mode.HYBRID, limit=RUN_LIMIT)
        if options == tuned.current.options:
            return
        try:
            point = score_current(tuned, options)
        except QueryError:
            return  # deeper than the lists fetched: "Run again" scores it
        self.tuned = replace(tuned, current=point)
        self.status.setText(summary_html(self.tuned))
        self.draw(self.tuned)

    def vault_changed(self, vault: Path) -> None:
        """The window opened another vault: this panel's sweep is not about it any more."""
        if Path(vault) != self.vault:
            self.stop()
            self.close()

    # ------------------------------------------------------------------ the chart

    def _ensure_plot(self) -> Any:
        """The chart widget: the plot, and its legend in a column of its own (never over the
        points)."""
        if self.plot is None:
            pg = _pyqtgraph()
            self.plot = pg.GraphicsLayoutWidget(self)
            self.plot.setMinimumHeight(320)
            self.plot_item = self.plot.addPlot(row=0, col=0)
            self.plot_item.setMenuEnabled(False)
            self.plot_item.getAxis("left").enableAutoSIPrefix(False)
            self.plot_item.setLabel("bottom", "lexical weight share  w_fts / (w_fts + w_vec)")
            self.plot_item.setLabel("left", OBJECTIVE.replace("ndcg", "nDCG"))
            self.legend = pg.LegendItem(labelTextSize="9pt")
            side = self.plot.addLayout(row=0, col=1)
            side.addItem(self.legend, row=0, col=0)
            side.addLabel("", row=1, col=0)  # takes the height below the legend
            side.layout.setRowStretchFactor(1, 1)
            side.setMaximumWidth(LEGEND_WIDTH)  # the plot takes the rest
            self.side = side
            self.chart_area.addWidget(self.plot)
        return self.plot

    def _clear_chart(self) -> None:
        if self.plot is not None:
            self.plot_item.clear()
            self.legend.clear()
            self.plot.hide()
        self.series_items = {}
        self.single_item = self.best_item = self.current_item = None

    def draw(self, result: TuneResult) -> None:
        """nDCG@10 against the lexical share: a line per method/k, references and marks."""
        pg = _pyqtgraph()
        self._ensure_plot()
        self._clear_chart()
        self.plot.show()
        plot, legend = self.plot_item, self.legend
        palette = self.palette()
        background = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        self.plot.setBackground(background)
        legend.setLabelTextColor(text)
        for name in ("left", "bottom"):
            axis = plot.getAxis(name)
            axis.setPen(pg.mkPen(text))
            axis.setTextPen(pg.mkPen(text))
        plot.showGrid(x=True, y=True, alpha=0.25 if is_dark(palette) else 0.15)

        def add(item: Any, name: str) -> Any:
            plot.addItem(item)
            legend.addItem(item, name)
            return item

        for i, (label, points) in enumerate(result.sweep.series().items()):
            color = QColor(SERIES_COLORS[i % len(SERIES_COLORS)])
            line = pg.PlotDataItem(
                [x for x, _ in points],
                [y for _, y in points],
                pen=pg.mkPen(color, width=2),
                symbol=SERIES_SYMBOLS[i % len(SERIES_SYMBOLS)],
                symbolSize=7,
                symbolPen=pg.mkPen(color),
                symbolBrush=pg.mkBrush(color),
            )
            self.series_items[label] = add(line, label)
        mode, single = max(result.sweep.singles.items(), key=lambda kv: kv[1][OBJECTIVE])
        value = single[OBJECTIVE]
        self.single_item = add(
            pg.PlotDataItem(
                [0.0, 1.0],
                [value, value],
                pen=pg.mkPen(text, width=1.5, style=Qt.PenStyle.DashLine),
            ),
            f"{_MODE_NAMES.get(mode, mode)} alone {value:.3f}",
        )
        best, current = result.best, result.current
        self.best_item = add(
            pg.ScatterPlotItem(
                [share(best.options)],
                [best.metrics[OBJECTIVE]],
                symbol="o",
                size=18,
                pen=pg.mkPen(text, width=2.5),
                brush=pg.mkBrush(0, 0, 0, 0),
            ),
            f"best {best.metrics[OBJECTIVE]:.3f}",
        )
        self.current_item = add(
            pg.ScatterPlotItem(
                [share(current.options)],
                [current.metrics[OBJECTIVE]],
                symbol="star",
                size=20,
                pen=pg.mkPen(text, width=1),
                brush=pg.mkBrush(CURRENT_COLOR),
            ),
            f"current {current.metrics[OBJECTIVE]:.3f}",
        )
        plot.setXRange(0, 1, padding=0.03)

    # ------------------------------------------------------------------ events

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        kinds = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
        if event.type() in kinds and self.tuned is not None and self.plot is not None:
            self.draw(self.tuned)

    def closeEvent(self, event: Any) -> None:
        self.stop()
        super().closeEvent(event)


def _pyqtgraph() -> Any:
    """pyqtgraph, imported when the panel first draws, not at start-up (~0.6 s)."""
    import pyqtgraph  # type: ignore[import-untyped]

    return pyqtgraph


_MODE_NAMES = {"fts": "lexical", "semantic": "semantic"}


def _with_alpha(color: QColor, alpha: int) -> QColor:
    out = QColor(color)
    out.setAlpha(alpha)
    return out


def _grid_size(current: SearchOptions) -> int:
    return len(grid(replace(current, mode=Mode.HYBRID), parse_grid(DEFAULT_GRID)))


def summary_html(result: TuneResult, *, applied: bool = False, hybrid: bool = True) -> str:
    """What the panel says above the chart: the judged queries, the best and current settings."""
    s = result.sweep
    best, current = result.best, result.current
    b, c = best.metrics[OBJECTIVE], current.metrics[OBJECTIVE]
    lines = [
        f"<b>{s.queries}</b> judged queries searched"
        + (f" (of {result.judged})" if s.queries != result.judged else "")
        + f"; {len(s.points)} settings scored in {s.seconds:.2f} s from the cached lists.",
        f"<b>Best</b> nDCG@10 <b>{b:.3f}</b>: <code>{html.escape(describe_options(best.options))}"
        "</code>",
        f"<b>Current</b> nDCG@10 <b>{c:.3f}</b> ({c - b:+.3f}): "
        f"<code>{html.escape(describe_options(current.options))}</code>",
        "Alone: "
        + ", ".join(
            f"{_MODE_NAMES.get(mode, mode)} {metrics[OBJECTIVE]:.3f}"
            for mode, metrics in s.singles.items()
        ),
    ]
    if result.degraded:
        reason = next(iter(result.degraded.values()))
        lines.append(
            f"<i>Semantic search was unavailable for {len(result.degraded)} queries "
            f"({html.escape(safe_text(reason))}): these scores are the lexical list's.</i>"
        )
    if result.pending:
        lines.append(
            f"<i>{result.pending:,} passages were still waiting for their vectors: the semantic "
            "list was incomplete; run again when the index is up to date.</i>"
        )
    if result.rejected:
        lines.append(f"<i>{len(result.rejected)} judged queries could not be searched.</i>")
    if applied:
        lines.append(
            "Applied the best setting to the fusion controls."
            + ("" if hybrid else " It ranks Hybrid results: switch the mode to Hybrid to see it.")
        )
    return "<br>".join(lines)
