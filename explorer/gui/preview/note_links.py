"""Where the preview's links lead, kept current: from the index through the vault's session in
the window, from the vault's folder for a pane on its own.

The first render of a vault reads every note and alias (one query on the session's reader; the
attachments beside them are listed on the render's pool thread, once per vault); the notes the
session's sync events name since are read again by the next render, and nothing else.  Without
a session the folder is scanned instead (:func:`~explorer.preview.links.vault_links`) and the
changed notes read from disk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QMetaObject, QObject, Signal

from explorer.gui.core.session import VaultSession
from explorer.index.links import note_names
from explorer.live import LiveEvent, SyncEvent
from explorer.preview.links import VaultLinks, links_of_notes, vault_links

#: The session's query group of the link lookups (a newer one supersedes the last).
LINKS_GROUP = "preview links"

#: How a render gets its links: a function run on its pool thread, and the generation of the
#: changes they include (``None``: none; handed back to :meth:`NoteLinks.keep`).
LinksOf = Callable[[], VaultLinks | None]


class NoteLinks(QObject):
    """The links of one vault's notes for the preview (see the module)."""

    #: Notes were added, changed, renamed or deleted (their paths), as the session's sync said.
    notesChanged = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.vault: Path | None = None
        self.session: VaultSession | None = None
        self._following: QMetaObject.Connection | None = None
        # Built by the first render of a vault, then updated with the notes that changed since
        # (``_changed``) by the next render.
        self._links: VaultLinks | None = None
        self._changed: set[str] = set()
        self._generation = 0

    def set_vault(self, vault: Path, session: VaultSession | None) -> None:
        """Lead to the notes of ``vault``: those ``session``'s index holds, else its folder's."""
        if self._following is not None:
            QObject.disconnect(self._following)  # the last session's (if still connected)
            self._following = None
        self.vault, self.session = vault, session
        if session is not None:  # its sync events say which notes changed
            self._following = session.liveEvent.connect(self._live_event)
        self._links = None  # another vault: read it whole at the next render
        self._changed.clear()
        self._generation += 1

    def _live_event(self, event: LiveEvent) -> None:
        if isinstance(event, SyncEvent) and event.touched:
            self.notesChanged.emit(set(event.touched))

    def changed(self, paths: Iterable[str]) -> None:
        """The notes ``paths`` changed: the next render reads them again."""
        self._changed |= set(paths)
        self._generation += 1

    def fetch(self, then: Callable[[LinksOf, int | None], None]) -> None:
        """Call ``then`` with how the render gets the links as they are now: at once, or when
        the session has read the notes (an index that cannot be read: the links as they were;
        a newer fetch supersedes this one, which then never calls)."""
        vault, session, known = self.vault, self.session, self._links
        changed, generation = frozenset(self._changed), self._generation
        if vault is None:
            return
        if session is None or (known is not None and not changed):

            def from_disk() -> VaultLinks:
                if known is None:
                    return vault_links(vault)
                return known.updated(changed) if changed else known

            then(from_disk, generation)
            return
        paths = None if known is None else changed
        reply = session.query(lambda ctx: note_names(ctx.db.conn, paths), group=LINKS_GROUP)

        def indexed(names: dict[str, list[str]]) -> None:
            def links() -> VaultLinks:
                if known is None:
                    return links_of_notes(vault, names)  # the attachments are found on disk
                return known.indexed(changed, names)

            then(links, generation)

        reply.answered.connect(indexed)
        reply.failed.connect(lambda _exc: then(lambda: known, None))

    def keep(self, vault: Path, links: VaultLinks | None, generation: int | None) -> None:
        """A render of ``vault`` made ``links`` for the changes up to ``generation``: the next
        render starts from them (the changes since are read again)."""
        if links is None or vault != self.vault:  # not one left since
            return
        self._links = links
        if generation == self._generation:
            self._changed.clear()  # else some changed again while they were read
