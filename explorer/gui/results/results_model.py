"""The results as one table model driven by roles, and the proxy that sorts it.

Every column reads from the same :class:`~explorer.search.fusion.results.Hit`; custom roles carry
the raw numbers (ranks, contributions, the share of each list) so the sort proxy and the bar
delegate never parse display text.  ``BackgroundRole`` gives the source tint — blue for a hit
only the lexical list found, amber for one only the vector list found, none when both did —
from a small colour cache chosen for the palette's lightness.  Titles and paths come from the
vault: they are shown with :func:`~explorer.display.safe_text`, so a bidi override or a control
character shows as an escape (``Role.PATH`` and ``Role.HIT`` keep the real values, for opening
and copying).

While a baseline is pinned (:meth:`ResultsModel.set_response` with ``baseline``), the Base column
shows each row's rank under it and the Δ column the move against it; the baseline's rows that
left the top follow the hits, greyed, as "gone".

When no hit is a close match (``SearchResponse.close_match`` is ``False``), every row of the
response is muted: its text in the muted colour and its tint washed toward the base colour (still
blue or amber, quieter), and :attr:`Role.MUTED` says so.

The Grade column shows the user's judgment of each hit for the current query
(:meth:`ResultsModel.set_grades`): its grade 0–3, or a muted ``?`` on a top-10 hit of a judged
query that has no grade yet.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QApplication

from explorer.display import safe_text
from explorer.gui.core.theme import Tints, tints, washed
from explorer.search.answers.compare import GONE, Comparison
from explorer.search.fusion.results import Hit, SearchResponse
from explorer.search.query.options import Mode

Index = QModelIndex | QPersistentModelIndex

ABSENT = "—"
NEW = "new"
UNJUDGED = "?"
#: Hits of a judged query that are flagged when unjudged: the ones nDCG@10 looks at.
JUDGED_TOP = 10


class Column(IntEnum):
    RANK = 0
    MOVE = 1
    TITLE = 2
    PATH = 3
    FUSED = 4
    FTS_RANK = 5
    VEC_RANK = 6
    FTS_CONTRIB = 7
    VEC_CONTRIB = 8
    SHARE = 9
    GRADE = 10
    BASE = 11


HEADERS = {
    Column.RANK: ("#", "Fused rank"),
    Column.MOVE: (
        "Δ",
        "How the row moved at the last change of the fusion settings or index; while a "
        "baseline is pinned, against the baseline",
    ),
    Column.TITLE: ("Title", "Note title"),
    Column.PATH: ("Path", "Path in the vault (the note id)"),
    Column.FUSED: ("Fused", "Fused score: the sum of the two contributions"),
    Column.FTS_RANK: ("Lex #", "Rank in the lexical (FTS5 bm25) list; — if it did not find it"),
    Column.VEC_RANK: ("Vec #", "Rank in the vector (cosine) list; — if it did not find it"),
    Column.FTS_CONTRIB: ("Lex contrib", "w_fts / (k + lexical rank)"),
    Column.VEC_CONTRIB: ("Vec contrib", "w_vec / (k + vector rank)"),
    Column.BASE: ("Base", "Rank under the pinned baseline; — if it is not in the baseline's top"),
    Column.SHARE: (
        "Share",
        "Each list's part of the fused score (bar length: relative to #1); its tooltip gives "
        "the contributions",
    ),
    Column.GRADE: ("Grade", "Your grade of the hit for this query (keys 0–3; Delete removes it)"),
}
NUMERIC = {
    Column.RANK,
    Column.BASE,
    Column.FUSED,
    Column.FTS_RANK,
    Column.VEC_RANK,
    Column.FTS_CONTRIB,
    Column.VEC_CONTRIB,
}


class Role(IntEnum):
    HIT = Qt.ItemDataRole.UserRole + 1
    SOURCE = Qt.ItemDataRole.UserRole + 2
    FUSED = Qt.ItemDataRole.UserRole + 3
    FTS_RANK = Qt.ItemDataRole.UserRole + 4
    VEC_RANK = Qt.ItemDataRole.UserRole + 5
    FTS_CONTRIB = Qt.ItemDataRole.UserRole + 6
    VEC_CONTRIB = Qt.ItemDataRole.UserRole + 7
    MOVE = Qt.ItemDataRole.UserRole + 8  # int (positive: moved up), "new", or None
    SHARE = Qt.ItemDataRole.UserRole + 9  # (lexical, vector) as fractions of the top score
    SORT = Qt.ItemDataRole.UserRole + 10
    PATH = Qt.ItemDataRole.UserRole + 11
    TINTED = Qt.ItemDataRole.UserRole + 12
    GRADE = Qt.ItemDataRole.UserRole + 13  # int 0..3, or None (unjudged)
    MUTED = Qt.ItemDataRole.UserRole + 14  # bool: no hit is a close match, the row is muted


def _five(value: float) -> str:
    return f"{value:.5f}"


def _rank(rank: int | None) -> str:
    return ABSENT if rank is None else str(rank)


def movement_text(move: int | str | None) -> str:
    if move in (NEW, GONE):
        return str(move)
    if isinstance(move, int) and move > 0:
        return f"↑{move}"
    if isinstance(move, int) and move < 0:
        return f"↓{-move}"
    return ""


_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
_RIGHT = frozenset(int(c) for c in (*NUMERIC, Column.MOVE, Column.GRADE))
_ALIGN_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_ALIGN_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)


def alignment(column: int) -> int:
    return _ALIGN_RIGHT if column in _RIGHT else _ALIGN_LEFT


class ResultsModel(QAbstractTableModel):
    """The hits of the current response, one row each: in fused order, or in the order a sort
    gave them (:meth:`set_response` with ``order``; the # column still shows the fused rank)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hits: list[Hit] = []
        self._moves: dict[str, int | str] = {}
        self._base: dict[str, int] | None = None  # ranks under the pinned baseline
        self._shown = 0  # rows of the response; the baseline's gone rows follow
        self._tinted = False
        self._muted_rows = False  # no close match: the response's rows are muted
        self._listing = False
        self._ranks: dict[str, int] = {}  # path -> fused rank, of the response's hits
        self._top = 0.0
        self._tints: Tints = tints()
        self._brushes: dict[str, QBrush] = {}
        self._muted_brushes: dict[str, QBrush] = {}
        self._move_colours: dict[str, QColor] = {}
        self._text: list[list[str | None]] = []
        self._sort: list[list[Any]] = []
        self._row_brush: list[QBrush | None] = []
        self._move_colour: list[QColor | None] = []
        self._shares: list[tuple[float, float]] = []
        self._grades: dict[str, int] = {}  # note path -> grade, for the current query
        self._judged = False  # whether the current query has any grade
        self._muted = QColor()
        self.refresh_palette()

    # ------------------------------------------------------------------ content

    def set_response(
        self,
        response: SearchResponse | None,
        *,
        compare: bool = False,
        baseline: Comparison | None = None,
        order: list[str] | None = None,
    ) -> None:
        """Show ``response``; with ``compare``, mark how each row moved from the current one;
        with ``baseline`` (the pinned baseline against ``response``), mark how each row moved
        from the baseline instead, and list the baseline's rows that left the top after them.
        ``order`` (the hits' paths in another order: a sort) puts the rows in that order; the
        fused rank, the moves and the baseline still speak of the fused order."""
        old = dict(self._ranks)
        hits = list(response.hits) if response is not None else []
        ranks = {hit.path: rank for rank, hit in enumerate(hits, start=1)}
        if order is not None and set(order) == set(ranks):
            by_path = {hit.path: hit for hit in hits}
            hits = [by_path[path] for path in order]
        moves: dict[str, int | str] = {}
        if compare and old:
            for hit in hits:
                rank = ranks[hit.path]
                before = old.get(hit.path)
                if before is None:
                    moves[hit.path] = NEW
                elif before != rank:
                    moves[hit.path] = before - rank
        shown = len(hits)
        base: dict[str, int] | None = None
        if baseline is not None:
            base = {r.path: r.rank_a for r in baseline.rows if r.rank_a is not None}
            moves = {r.path: r.move for r in baseline.rows if r.move != 0}
            hits += [r.hit for r in baseline.gone]
        self.beginResetModel()
        self._hits = hits
        self._ranks = ranks
        self._moves = moves
        self._base = base
        self._shown = shown
        self._listing = bool(response and response.listing)
        self._muted_rows = response is not None and response.close_match is False
        self._tinted = bool(
            response is not None
            and not response.listing
            and response.options.mode == Mode.HYBRID
            and response.semantic.available
        )
        self._top = max((h.fused_score for h in hits), default=0.0)
        self._build_cache()
        self.endResetModel()

    def _build_cache(self) -> None:
        """Text, sort key, tint and share of every cell, computed once per response: painting
        asks for them many times, and each answer must cost a lookup, not a format."""
        self._text = [
            [self._display(hit, row, col) for col in Column] for row, hit in enumerate(self._hits)
        ]
        self._sort = [
            [self._sort_key(hit, row, col) for col in Column] for row, hit in enumerate(self._hits)
        ]
        brushes = self._muted_brushes if self._muted_rows else self._brushes
        self._row_brush = [
            brushes.get(hit.source or "") if self._tinted and row < self._shown else None
            for row, hit in enumerate(self._hits)
        ]
        self._move_colour = [self._move_foreground(hit) for hit in self._hits]
        self._shares = [self._share(hit) for hit in self._hits]

    def clear(self) -> None:
        self.set_response(None)

    def set_grades(self, grades: Mapping[str, int], *, judged: bool) -> None:
        """The current query's grades (note path -> 0..3); ``judged``: it has any grade, so
        its unjudged top-10 hits are flagged.  Only the Grade column changes."""
        self._grades = dict(grades)
        self._judged = judged
        column = int(Column.GRADE)
        for row, hit in enumerate(self._hits):
            self._text[row][column] = self._display(hit, row, Column.GRADE)
            self._sort[row][column] = self._sort_key(hit, row, Column.GRADE)
        if self._hits:
            self.dataChanged.emit(self.index(0, column), self.index(len(self._hits) - 1, column))

    def grade(self, row: int) -> int | None:
        hit = self.hit(row)
        return None if hit is None else self._grades.get(hit.path)

    def _unjudged(self, row: int) -> bool:
        return self._text[row][Column.GRADE] == UNJUDGED

    @property
    def hits(self) -> list[Hit]:
        """The response's hits (without the baseline's gone rows)."""
        return self._hits[: self._shown]

    @property
    def pinned(self) -> bool:
        """Whether rows are compared with a pinned baseline."""
        return self._base is not None

    def is_gone(self, row: int) -> bool:
        """Whether ``row`` is one of the baseline's that left the top (shown greyed)."""
        return self._shown <= row < len(self._hits)

    @property
    def muted(self) -> bool:
        """Whether the response's rows are muted: none of its hits is a close match."""
        return self._muted_rows

    @property
    def tinted(self) -> bool:
        """Whether rows are tinted by source (a hybrid result with both lists)."""
        return self._tinted

    def hit(self, row: int) -> Hit | None:
        return self._hits[row] if 0 <= row < len(self._hits) else None

    def rank_of(self, path: str) -> int | None:
        """The fused rank of the response's hit ``path`` (whatever row it sits in)."""
        return self._ranks.get(path)

    def row_of(self, path: str) -> int:
        for row, hit in enumerate(self._hits):
            if hit.path == path:
                return row
        return -1

    def cell(self, row: int, column: int) -> tuple[str, QBrush | None, QColor | None]:
        """What the delegate paints at (row, column): text, row tint, text colour (or none).
        The same values ``data`` gives for the display, background and foreground roles."""
        return (
            self._text[row][column] or "",
            self._row_brush[row],
            self._foreground(row, column),
        )

    def _foreground(self, row: int, column: int) -> QColor | None:
        if row >= self._shown or self._muted_rows:
            return self._muted  # a baseline row that left the top, or no close match
        if column == Column.MOVE:
            return self._move_colour[row]
        if column == Column.GRADE and self._unjudged(row):
            return self._muted
        return None

    def sort_key(self, row: int, column: int) -> Any:
        """:attr:`Role.SORT` of a cell, for the proxy."""
        return self._sort[row][column]

    def share(self, row: int) -> tuple[float, float]:
        """:attr:`Role.SHARE` of ``row``, for the bar."""
        return self._shares[row]

    def refresh_palette(self) -> None:
        """Pick tints for the current application palette (call on a palette change)."""
        self._tints = tints()
        self._brushes = {
            "fts": QBrush(self._tints.fts),
            "vector": QBrush(self._tints.vector),
        }
        base = QApplication.palette().color(QPalette.ColorRole.Base)
        self._muted_brushes = {
            name: QBrush(washed(brush.color(), base)) for name, brush in self._brushes.items()
        }
        dark = self._tints.dark
        self._move_colours = {
            "up": QColor("#5fd17a" if dark else "#1b7f3a"),
            "down": QColor("#ff8a80" if dark else "#b3261e"),
            NEW: QColor("#82b1ff" if dark else "#1a5fb4"),
        }
        self._muted = QColor("#8a8f98" if dark else "#8c8c8c")
        self._build_cache()
        if self._hits:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._hits) - 1, len(Column) - 1)
            )

    # ------------------------------------------------------------------ Qt model API

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._hits)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(Column)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(Column):
            return None
        label, tip = HEADERS[Column(section)]
        if role == Qt.ItemDataRole.DisplayRole:
            return label
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if Column(section) in NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row, column = index.row(), index.column()
        if not (0 <= row < len(self._hits) and 0 <= column < len(Column)) or not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text[row][column]
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._row_brush[row]
        if role == Role.SORT:
            return self._sort[row][column]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _ALIGN_RIGHT if column in _RIGHT else _ALIGN_LEFT
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(row, column)
        hit = self._hits[row]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == Column.GRADE:
                return self._grade_tooltip(row)
            return self._tooltip(hit, Column(column))
        if role == Role.SHARE:
            return self._shares[row]
        return self._custom(hit, role)

    def _move_foreground(self, hit: Hit) -> QColor | None:
        move = self._moves.get(hit.path)
        if move == NEW:
            return self._move_colours[NEW]
        if isinstance(move, int):
            return self._move_colours["up" if move > 0 else "down"]
        return None

    def _share(self, hit: Hit) -> tuple[float, float]:
        if self._top <= 0 or self._moves.get(hit.path) == GONE:
            return (0.0, 0.0)
        c = hit.contributions
        return (c.get("fts", 0.0) / self._top, c.get("vector", 0.0) / self._top)

    def _display(self, hit: Hit, row: int, col: Column) -> str | None:
        listing = self._listing
        c = hit.contributions
        gone = row >= self._shown
        if col == Column.RANK:
            return ABSENT if gone else str(self._ranks.get(hit.path, row + 1))
        if col == Column.BASE:
            return "" if self._base is None else _rank(self._base.get(hit.path))
        if gone and col in (Column.FUSED, Column.FTS_CONTRIB, Column.VEC_CONTRIB):
            return ABSENT  # the baseline's scores: not comparable with the rows above
        if col == Column.MOVE:
            return movement_text(self._moves.get(hit.path))
        if col == Column.TITLE:
            return safe_text(hit.title) + ("  (stale)" if hit.demoted else "")
        if col == Column.PATH:
            return safe_text(hit.path)
        if col == Column.FUSED:
            return ABSENT if listing else _five(hit.fused_score)
        if col == Column.FTS_RANK:
            return _rank(hit.fts_rank)
        if col == Column.VEC_RANK:
            return _rank(hit.vector_rank)
        if col == Column.FTS_CONTRIB:
            return ABSENT if hit.fts_rank is None else _five(c.get("fts", 0.0))
        if col == Column.VEC_CONTRIB:
            return ABSENT if hit.vector_rank is None else _five(c.get("vector", 0.0))
        if col == Column.GRADE:
            grade = self._grades.get(hit.path)
            if grade is not None:
                return str(grade)
            return UNJUDGED if self._judged and row < JUDGED_TOP else ""
        return None

    def _custom(self, hit: Hit, role: int) -> Any:
        c = hit.contributions
        if role == Role.HIT:
            return hit
        if role == Role.PATH:
            return hit.path
        if role == Role.SOURCE:
            return hit.source
        if role == Role.FUSED:
            return hit.fused_score
        if role == Role.FTS_RANK:
            return hit.fts_rank
        if role == Role.VEC_RANK:
            return hit.vector_rank
        if role == Role.FTS_CONTRIB:
            return c.get("fts", 0.0)
        if role == Role.VEC_CONTRIB:
            return c.get("vector", 0.0)
        if role == Role.MOVE:
            return self._moves.get(hit.path)
        if role == Role.TINTED:
            return self._tinted
        if role == Role.GRADE:
            return self._grades.get(hit.path)
        if role == Role.MUTED:
            return self._muted_rows
        return None

    def _sort_key(self, hit: Hit, row: int, col: Column) -> Any:
        c = hit.contributions
        if col == Column.RANK:
            return row if row >= self._shown else self._ranks.get(hit.path, row + 1)
        if col == Column.MOVE:
            move = self._moves.get(hit.path)
            if move == GONE:
                return -math.inf
            return math.inf if move == NEW else float(move or 0)
        if col == Column.BASE:
            base = self._base.get(hit.path) if self._base is not None else None
            return base if base is not None else math.inf
        if col == Column.TITLE:
            return hit.title.casefold()
        if col == Column.PATH:
            return hit.path.casefold()
        if col == Column.FUSED:
            return hit.fused_score
        if col == Column.FTS_RANK:
            return hit.fts_rank if hit.fts_rank is not None else math.inf
        if col == Column.VEC_RANK:
            return hit.vector_rank if hit.vector_rank is not None else math.inf
        if col == Column.FTS_CONTRIB:
            return c.get("fts", 0.0)
        if col == Column.VEC_CONTRIB:
            return c.get("vector", 0.0)
        if col == Column.SHARE:
            total = hit.fused_score
            return c.get("fts", 0.0) / total if total > 0 else 0.0
        if col == Column.GRADE:  # unjudged below 0, so a descending sort puts the best first
            return self._grades.get(hit.path, -1)
        return row

    def _grade_tooltip(self, row: int) -> str | None:
        grade = self.grade(row)
        if grade is not None:
            return f"graded {grade} for this query (0–3 to change, Delete to remove)"
        return "not judged yet (press 0–3 to grade)" if self._unjudged(row) else None

    def _tooltip(self, hit: Hit, col: Column) -> str | None:
        if col == Column.SHARE:
            total = hit.fused_score
            if total <= 0:
                return None
            lexical, vector = (
                hit.contributions.get("fts", 0.0),
                hit.contributions.get("vector", 0.0),
            )
            return (
                f"lexical {lexical:.5f} ({100 * lexical / total:.0f}%) · "
                f"vector {vector:.5f} ({100 * vector / total:.0f}%) · fused {total:.5f}"
            )
        if col == Column.PATH:  # the cell elides it from the left: all of it, then the passage
            path = f"<nobr>{html.escape(safe_text(hit.path))}</nobr>"
            snippet = self._tooltip(hit, Column.TITLE)
            return f"{path}<br>{snippet}" if snippet else path
        if col == Column.TITLE and hit.snippet:
            found = {
                "both": "found by both lists",
                "fts": "found by the lexical list only",
                "vector": "found by the vector list only",
            }.get(hit.source or "", "")
            snippet = safe_text(hit.snippet).replace("<mark>", "<b>").replace("</mark>", "</b>")
            head = f"<b>{html.escape(safe_text(hit.title))}</b>"
            return f"{head}<br>{snippet}" + (f"<br><i>{found}</i>" if found else "")
        return None


class ResultsProxy(QSortFilterProxyModel):
    """Sorts by :attr:`Role.SORT` (numbers as numbers, absent ranks last).

    The fused rank is the source model's own order, so sorting by it ascending is no sort at
    all (the proxy passes rows through); other columns compare the model's cached sort keys
    directly, one Python call per comparison instead of three.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSortRole(Role.SORT)
        self.setDynamicSortFilter(True)
        self._by: tuple[int, Qt.SortOrder] = (Column.RANK, Qt.SortOrder.AscendingOrder)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._by = (column, order)
        if column == Column.RANK and order == Qt.SortOrder.AscendingOrder:
            super().sort(-1, order)  # the source order is the fused order
        else:
            super().sort(column, order)

    def sorted_by(self) -> tuple[int, Qt.SortOrder]:
        return self._by

    def lessThan(self, left: Index, right: Index) -> bool:
        source = self.sourceModel()
        column = left.column()
        if isinstance(source, ResultsModel):
            a = source.sort_key(left.row(), column)
            b = source.sort_key(right.row(), column)
        else:  # pragma: no cover - only ResultsModel is used
            a, b = left.data(Role.SORT), right.data(Role.SORT)
        if a == b:
            return bool(left.row() < right.row())
        try:
            return bool(a < b)
        except TypeError:
            return str(a) < str(b)
