"""The results table view: columns sized for numbers, the share bar, keyboard actions.

The title takes the room the other columns leave (at least :data:`TITLE_CHARS` characters) and
the path shares it down to :data:`PATH_CHARS` (cut as "folder/…/name.md", so the file name stays
whole; the tooltip holds all of it); on a window too narrow for that, the two contribution
columns step aside (their numbers are in the Share column's tooltip and the explain block), then
the two lists' ranks (in the explain block), and come back when there is room, so the share bar
is always in view without a horizontal scroll bar.  The view is never narrower than the columns
that always show, the title's least and the path's: the panels around it give way first.  A
path width the reader chose (dragging the column's edge) is theirs: kept as it is, and saved
with the header (:meth:`ResultsView.header_state`).

Enter (or a double click) asks to open the note; Ctrl+C asks to copy its path (instead of the
cell text ``QAbstractItemView`` would copy).  Arrows move through hits as in any table.  Keys
0–3 grade the selected hit for the current query and Delete (or Backspace) removes its grade;
the context menu offers the same, and Open in Obsidian when the vault is an Obsidian vault.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QByteArray,
    QItemSelection,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QContextMenuEvent, QKeyEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QMenu,
    QStyle,
    QTableView,
    QWidget,
)

from explorer.gui.results.delegates import ResultsDelegate
from explorer.gui.results.results_model import Column, ResultsModel, ResultsProxy, Role
from explorer.search.fusion.results import Hit

Index = QModelIndex | QPersistentModelIndex

#: Sample text of each fixed column: its width fits this (or the header label, if wider).
SAMPLES = {
    Column.RANK: "100",
    Column.MOVE: "↑100",
    Column.PATH: "dev/2024-06-review.md",  # elided from the left; the title gets the room
    Column.FUSED: "0.00000",
    Column.FTS_RANK: "100",
    Column.VEC_RANK: "100",
    Column.FTS_CONTRIB: "0.00000",
    Column.VEC_CONTRIB: "0.00000",
    Column.SHARE: "▆▆▆▆▆▆▆",
    Column.GRADE: "3",
}
#: The column each order of the search (``SearchOptions.sort``) sorts by, where one shows it.
SORT_COLUMNS = {"relevance": Column.RANK, "title": Column.TITLE, "path": Column.PATH}
#: The least room the title gets, in average characters, before columns step aside.
TITLE_CHARS = 26
#: The least room the path gets (elided from the left) while the title needs more.
PATH_CHARS = 14
#: The least room of the path on the narrowest window ("folder/…/name.md" still fits a name).
PATH_LEAST_CHARS = 14
#: Columns left out, a step at a time, while the title would get less than :data:`TITLE_CHARS`:
#: the two contributions first (in the Share column's tooltip and the explain block), then the
#: two lists' ranks (in the explain block).
STEPS_ASIDE = (
    (Column.FTS_CONTRIB, Column.VEC_CONTRIB),
    (Column.FTS_RANK, Column.VEC_RANK),
)
#: Keys that grade the selected hit, and the grade each gives (None removes it).
GRADE_KEYS: dict[int, int | None] = {
    Qt.Key.Key_0: 0,
    Qt.Key.Key_1: 1,
    Qt.Key.Key_2: 2,
    Qt.Key.Key_3: 3,
    Qt.Key.Key_Delete: None,
    Qt.Key.Key_Backspace: None,
}
GRADE_MENU = (
    (3, "&3 — highly relevant"),
    (2, "&2 — relevant"),
    (1, "&1 — somewhat relevant"),
    (0, "&0 — not relevant"),
)


class ResultsView(QTableView):
    """A table over a :class:`ResultsProxy`."""

    openRequested = Signal(object)  # Hit
    copyRequested = Signal(object)  # Hit
    whyRequested = Signal(object)  # Hit: Why Here? (the Why Not This Note? dialog on it)
    gradeRequested = Signal(object, object)  # Hit, grade 0..3 or None (remove)
    obsidianRequested = Signal(object)  # Hit: Open in Obsidian
    leaveRequested = Signal()  # Esc: back to the query

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("results")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSortingEnabled(True)
        self.setWordWrap(False)
        self.setShowGrid(False)
        self.setAlternatingRowColors(False)  # the tints carry meaning; no zebra to confuse them
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.setItemDelegate(ResultsDelegate(self))
        self.doubleClicked.connect(self._activated)
        #: Whether the hits are notes of an Obsidian vault (the menu offers Open in Obsidian).
        self.obsidian_vault = False
        self.widths: dict[Column, int] = {}  # each column's width for its sample text
        self.crowded = False  # the optional columns are left out for lack of room
        self.path_chosen = False  # the reader set the path's width: it is not fitted
        self._fitting = False  # widths change by fit_columns (or a restore), not by the reader
        self.auto_selecting = False  # the selection moves by select_path, not by the reader
        #: The hit the reader selected (its path), kept across refreshes of the results.
        self.chosen_path: str | None = None

    def configure_header(self) -> None:
        """Widths and stretch; call after the model is set."""
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionsMovable(True)
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        metrics = self.fontMetrics()
        model = self.model()
        for column, sample in SAMPLES.items():
            label = model.headerData(column, Qt.Orientation.Horizontal) if model else ""
            width = max(
                metrics.horizontalAdvance(sample) + 14,
                metrics.horizontalAdvance(str(label or "")) + 22,  # room for the sort arrow
            )
            header.resizeSection(column, width)
            self.widths[column] = width
        header.setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(28)
        self.sortByColumn(Column.RANK, Qt.SortOrder.AscendingOrder)
        header.sectionResized.connect(self._section_resized)
        header.sectionClicked.connect(lambda _: header.setSortIndicatorShown(True))
        self.fit_columns()

    def _section_resized(self, column: int, _old: int, new: int) -> None:
        if column == Column.PATH and new > 0 and not self._fitting:
            self.path_chosen = True

    def restore_header(self, state: QByteArray) -> bool:
        """Restore a saved header; a path width other than the default was the reader's."""
        header = self.horizontalHeader()
        self._fitting = True
        try:
            ok = header.restoreState(state)
        finally:
            self._fitting = False
        width = header.sectionSize(Column.PATH)
        self.path_chosen = bool(self.widths) and width not in (0, self.widths.get(Column.PATH))
        self.fit_columns()
        return bool(ok)

    def header_state(self) -> QByteArray:
        """The header to save: the path at its default width unless the reader chose one (a
        fitted width belongs to this window's size, not to the next session's)."""
        header = self.horizontalHeader()
        if self.path_chosen or Column.PATH not in self.widths:
            return header.saveState()
        fitted = header.sectionSize(Column.PATH)
        self._fitting = True
        try:
            header.resizeSection(Column.PATH, self.widths[Column.PATH])
            state = header.saveState()
            header.resizeSection(Column.PATH, fitted)
        finally:
            self._fitting = False
        return state

    def title_room(self) -> int:
        """The least width the title gets before other columns step aside."""
        return self.fontMetrics().averageCharWidth() * TITLE_CHARS

    def fit_columns(self) -> None:
        """Leave the optional columns out, a step at a time (:data:`STEPS_ASIDE`), while the
        title would get less than :meth:`title_room` with them (back in when it would not),
        and give the path a third of the room beyond both columns' least, between
        :data:`PATH_CHARS` and its sample's width (the title, stretched, takes the rest); a
        path the reader sized keeps its width."""
        header = self.horizontalHeader()
        if not self.widths or header.count() != len(Column):
            return
        room = self.viewport().width()
        chars = self.fontMetrics().averageCharWidth()
        fitted_least = min(chars * PATH_CHARS, self.widths[Column.PATH])
        path_least = header.sectionSize(Column.PATH) if self.path_chosen else fitted_least
        least = self.least_width(min(path_least, chars * PATH_LEAST_CHARS))
        if self.minimumWidth() != least:
            self.setMinimumWidth(least)
        fixed = self._fixed_width()
        steps = [sum(self.widths[c] for c in step) for step in STEPS_ASIDE]
        # How many steps step aside: the fewest that leave the title its least.
        aside = 0
        while aside < len(steps) and (
            room - fixed - sum(steps[aside:]) - path_least < self.title_room()
        ):
            aside += 1
        # The room beyond both columns' least goes a third to the path, the rest to the title.
        spare = room - fixed - sum(steps[aside:]) - self.title_room() - path_least
        path = min(self.widths[Column.PATH], path_least + max(0, spare) // 3)
        if spare < 0 and not self.path_chosen:  # the title's least first, then the path's
            path = max(chars * PATH_LEAST_CHARS, path + spare)
        self._fitting = True
        try:
            self.crowded = aside > 0
            for number, step in enumerate(STEPS_ASIDE):
                hide = number < aside
                for column in step:
                    if self.isColumnHidden(column) != hide:
                        super().setColumnHidden(column, hide)
                    if not hide and header.sectionSize(column) == 0:
                        header.resizeSection(column, self.widths[column])
            if not self.path_chosen and header.sectionSize(Column.PATH) != path:
                header.resizeSection(Column.PATH, path)
        finally:
            self._fitting = False

    def _fixed_width(self) -> int:
        """The width of the columns that always show (the Base column when it does)."""
        header = self.horizontalHeader()
        optional = {c for step in STEPS_ASIDE for c in step}
        return sum(
            header.sectionSize(c)
            for c in Column
            if c not in (Column.TITLE, Column.PATH, *optional) and not self.isColumnHidden(c)
        )

    def least_width(self, path_least: int) -> int:
        """The narrowest this view may be: every column that always shows at its width, the
        title at :meth:`title_room` and the path at ``path_least`` (the panels around the
        table give way before the title does; the optional columns step aside)."""
        scroll = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        frame = 2 * self.frameWidth() + 2
        return self._fixed_width() + self.title_room() + path_least + scroll + frame

    def setColumnHidden(self, column: int, hide: bool) -> None:
        """As Qt's, and the columns are fitted again (the Base column comes and goes)."""
        super().setColumnHidden(column, hide)
        self.fit_columns()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def show_order(self, sort: str) -> None:
        """Show the rows in the order of the search (``SearchOptions.sort``): the header's
        arrow on the column sorted by (# for relevance), on none for a date no column shows."""
        self.sortByColumn(Column.RANK, Qt.SortOrder.AscendingOrder)  # the search's own order
        header = self.horizontalHeader()
        column = SORT_COLUMNS.get(sort)
        header.setSortIndicatorShown(column is not None)
        if column is not None and column != Column.RANK:
            header.blockSignals(True)  # the arrow only: the rows are in that order already
            try:
                header.setSortIndicator(column, Qt.SortOrder.AscendingOrder)
            finally:
                header.blockSignals(False)
            header.viewport().update()

    def current_hit(self) -> Hit | None:
        index = self.currentIndex()
        if not index.isValid():
            rows = self.selectionModel().selectedRows() if self.selectionModel() else []
            if not rows:
                return None
            index = rows[0]
        hit = index.data(Role.HIT)
        return hit if isinstance(hit, Hit) else None

    def select_row(self, row: int) -> None:
        """Select the proxy row ``row`` (and make it current) and bring it into view."""
        model = self.model()
        if model is None or not 0 <= row < model.rowCount():
            return
        index = model.index(row, Column.TITLE)
        self.setCurrentIndex(index)
        self.scrollTo(index)

    def place_base_column(self) -> None:
        """The Base column goes next to Δ (it is the model's last), narrow, hidden unpinned."""
        header = self.horizontalHeader()
        header.moveSection(header.visualIndex(Column.BASE), header.visualIndex(Column.MOVE) + 1)
        header.resizeSection(Column.BASE, self.fontMetrics().horizontalAdvance("Base") + 16)
        self.setColumnHidden(Column.BASE, True)

    def enter(self) -> None:
        """Take the focus from the search field (Down), on the current row or the first."""
        model = self.model()
        if model is not None and model.rowCount():
            self.setFocus(Qt.FocusReason.OtherFocusReason)
            if not self.currentIndex().isValid():
                self.select_row(0)

    def selectionChanged(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        super().selectionChanged(selected, deselected)
        hit = self.current_hit()
        if hit is not None and not self.auto_selecting:
            self.chosen_path = hit.path

    def select_path(self, path: str | None) -> None:
        """Select the row of the note ``path`` if it is shown, else the first row; while it
        does, :attr:`auto_selecting` says the selection is not the reader's."""
        proxy = self.proxy()
        if proxy is None or not proxy.rowCount():
            return
        source = proxy.sourceModel()
        row = source.row_of(path) if path and isinstance(source, ResultsModel) else -1
        proxy_row = proxy.mapFromSource(source.index(row, Column.TITLE)).row() if row >= 0 else 0
        self.auto_selecting = True
        try:
            self.select_row(proxy_row)
        finally:
            self.auto_selecting = False

    def proxy(self) -> ResultsProxy | None:
        model = self.model()
        return model if isinstance(model, ResultsProxy) else None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.leaveRequested.emit()
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            hit = self.current_hit()
            if hit is not None:
                self.copyRequested.emit(hit)
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            hit = self.current_hit()
            if hit is not None:
                self.openRequested.emit(hit)
            event.accept()
            return
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if plain and event.key() in GRADE_KEYS:
            hit = self.current_hit()
            if hit is not None:
                self.gradeRequested.emit(hit, GRADE_KEYS[event.key()])
            event.accept()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self.indexAt(event.pos())
        hit = index.data(Role.HIT) if index.isValid() else None
        if not isinstance(hit, Hit):
            return
        self.select_row(index.row())
        menu = self.grade_menu(hit)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def grade_menu(self, hit: Hit) -> QMenu:
        """The context menu of ``hit``: open (in Obsidian too, for an Obsidian vault), copy the
        path, why here, Grade ▸ 3..0 / remove."""
        menu = QMenu(self)
        menu.addAction("&Open Note").triggered.connect(lambda: self.openRequested.emit(hit))
        if self.obsidian_vault:
            obsidian = menu.addAction("Open in O&bsidian")
            obsidian.triggered.connect(lambda: self.obsidianRequested.emit(hit))
        menu.addAction("&Copy Path").triggered.connect(lambda: self.copyRequested.emit(hit))
        menu.addAction("&Why Here?").triggered.connect(lambda: self.whyRequested.emit(hit))
        grades = menu.addMenu("&Grade")
        for grade, label in GRADE_MENU:
            action = grades.addAction(label)
            action.triggered.connect(lambda _=False, g=grade: self.gradeRequested.emit(hit, g))
        grades.addSeparator()
        remove = grades.addAction("&Remove Grade")
        remove.triggered.connect(lambda: self.gradeRequested.emit(hit, None))
        return menu

    def _activated(self, index: QModelIndex) -> None:
        hit = index.data(Role.HIT)
        if isinstance(hit, Hit):
            self.openRequested.emit(hit)
