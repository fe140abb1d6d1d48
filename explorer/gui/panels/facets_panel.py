"""View ▸ Facets: the tags, folders and most frequent property values of the notes shown, with
how many of them have each (:func:`explorer.search.answers.facets.facets`).

The facets are read through the vault session (its reader, never the GUI thread), each time the
results change while the panel is visible; only the newest request answers.  A click on a value
asks for its filter (``tag:ops``, ``path:dev/``, ``[status:open]``) to be added to the query; a
click on a value whose filter the query already holds (an active facet: checked and bold) asks
for it to be removed.  The window does both and searches again.  An active filter stays listed
when no note shown has it (with 0 notes), so that it can be clicked off
(:func:`~explorer.search.answers.facets.with_active`).
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.display import safe_text
from explorer.gui.core.session import VaultSession
from explorer.live import LiveEvent, SyncEvent
from explorer.search.answers.facets import (
    Facet,
    Facets,
    active_keys,
    facets,
    filter_key,
    with_active,
)

#: The session's query group of the facets' reads.
GROUP = "facets"
#: Properties not listed as such: the Tags group lists them already (``tag:`` filters).
SHOWN_ELSEWHERE = frozenset({"tags", "tag"})
#: The item role that holds a value's filter text.
FILTER_ROLE = Qt.ItemDataRole.UserRole + 1


class FacetsPanel(QDockWidget):
    """The facets of the result set on screen (see the module)."""

    #: A value was clicked: add its filter to the query, or remove it when active.
    toggled = Signal(str)
    #: The facets listed (a :class:`~explorer.search.answers.facets.Facets`), each time they change.
    shown = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Facets", parent)
        self.setObjectName("facetsDock")
        self.session: VaultSession | None = None
        self.paths: list[str] = []  # the result set the facets are of
        self.query = ""  # the query on screen: which facets are active
        self.facets: Facets | None = None
        self._read_for: tuple[str, ...] | None = None  # the paths last asked about

        body = QWidget(self)
        self.heading = QLabel(body)
        self.heading.setObjectName("facetsHeading")
        self.heading.setWordWrap(True)
        self.tree = QTreeWidget(body)
        self.tree.setObjectName("facets")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Value", "Notes"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setToolTip("Click a value to add its filter to the query; click again to remove")
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.heading)
        layout.addWidget(self.tree, 1)
        self.setWidget(body)
        self.visibilityChanged.connect(lambda visible: self._read() if visible else None)
        self._fill(None)

    # ------------------------------------------------------------------ the vault

    def open_vault(self, session: VaultSession) -> None:
        """Read through ``session``; a change of its notes reads the facets again (the same
        notes shown may hold other values now)."""
        self.close_vault()
        self.session = session
        session.liveEvent.connect(self._live_event)

    def _live_event(self, event: LiveEvent) -> None:
        if isinstance(event, SyncEvent) and event.touched:
            self._read_for = None  # the next results shown are read again, even the same notes

    def close_vault(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            with contextlib.suppress(RuntimeError, TypeError):  # the session may be gone
                session.drop(GROUP)
                session.liveEvent.disconnect(self._live_event)
        self.paths, self.query, self.facets, self._read_for = [], "", None, None
        self._fill(None)

    # ------------------------------------------------------------------ following the results

    def show_results(self, query: str, paths: list[str]) -> None:
        """The results on screen changed: the facets of ``paths`` (read while visible)."""
        changed, self.query = query != self.query, query
        self.paths = list(paths)
        if self.facets is not None and changed:
            self._render()
        self._read()

    def _read(self) -> None:
        session = self.session
        wanted = tuple(self.paths)
        if session is None or not self.isVisible() or wanted == self._read_for:
            return
        self._read_for = wanted
        if not wanted:
            self._fill(Facets([], [], {}))
            return
        paths = list(wanted)
        reply = session.query(lambda ctx: facets(ctx.db.conn, paths), group=GROUP)
        reply.answered.connect(self._fill)
        reply.failed.connect(self._failed)

    def _failed(self, exc: Exception) -> None:
        self._read_for = None
        self.heading.setText(f"Facets unavailable: {safe_text(str(exc))}")
        self.failed.emit(str(exc))

    # ------------------------------------------------------------------ listing

    def _fill(self, found: Facets | None) -> None:
        self.facets = found
        self._render()
        if found is not None:
            self.shown.emit(found)

    def _render(self) -> None:
        self.tree.clear()
        if self.facets is None:
            self.heading.setText("The tags, folders and properties of the results.")
            return
        found = with_active(self.facets, self.query)
        groups: list[tuple[str, list[Facet]]] = [("Tags", found.tags), ("Folders", found.folders)]
        groups += [
            (name, values)
            for name, values in found.properties.items()
            if name.casefold() not in SHOWN_ELSEWHERE
        ]
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for title, values in groups:
            if not values:
                continue
            group = QTreeWidgetItem(self.tree, [safe_text(title), ""])
            group.setFont(0, bold)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            group.setFirstColumnSpanned(False)
            for facet in values:
                item = QTreeWidgetItem(group, [safe_text(facet.label), str(facet.count)])
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                item.setData(0, FILTER_ROLE, facet.filter)
                item.setTextAlignment(
                    1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                )
                item.setToolTip(0, f"{safe_text(facet.filter)} — {facet.count} of the notes shown")
            group.setExpanded(True)
        notes = len(self.paths)
        self.heading.setText(
            f"Of the {notes} notes shown. Click a value to filter; again to remove."
            if self.tree.topLevelItemCount()
            else "No tags, folders or properties among the notes shown."
        )
        self._mark_active()

    def _mark_active(self) -> None:
        """Check (and embolden) the values whose filter the query holds."""
        held = active_keys(self.query)  # the query read once, not once a value
        for item in self._items():
            active = filter_key(str(item.data(0, FILTER_ROLE))) in held
            item.setCheckState(0, Qt.CheckState.Checked if active else Qt.CheckState.Unchecked)
            font = QFont(self.tree.font())
            font.setBold(active)
            item.setFont(0, font)
            item.setFont(1, font)

    def _groups(self) -> list[tuple[QTreeWidgetItem, list[QTreeWidgetItem]]]:
        """Each group's item and its values' items."""
        out = []
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            if group is not None:
                children = [group.child(c) for c in range(group.childCount())]
                out.append((group, [c for c in children if c is not None]))
        return out

    def _items(self) -> list[QTreeWidgetItem]:
        return [item for _, items in self._groups() for item in items]

    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        token = item.data(0, FILTER_ROLE)
        if token:
            self.toggled.emit(str(token))

    # ------------------------------------------------------------------ for tests and tools

    def values(self) -> dict[str, list[tuple[str, int, bool]]]:
        """What the panel lists: group title → (value, count, active), as shown."""
        return {
            group.text(0): [
                (i.text(0), int(i.text(1)), i.checkState(0) == Qt.CheckState.Checked) for i in items
            ]
            for group, items in self._groups()
        }

    def item(self, group: str, value: str) -> QTreeWidgetItem | None:
        """The item of ``value`` in ``group`` (as shown), or None."""
        for top, items in self._groups():
            if top.text(0) == group:
                return next((i for i in items if i.text(0) == value), None)
        return None
