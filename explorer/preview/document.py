"""A note as the preview reads it from disk: read as the indexer reads it, parsed by the vault's
own parser (title, tags, status, where the body starts), or the reason it is not shown."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from pathlib import Path

from explorer.vault.parse import NotANote, parse_note
from explorer.vault.scan import read_note


@dataclass(frozen=True)
class NoteDocument:
    """A note as read from disk for the preview."""

    path: str
    title: str
    tags: tuple[str, ...]
    status: str | None
    text: str
    body_start: int
    warnings: tuple[str, ...] = ()
    readable: bool = True  # False: ``text`` is the reason the note is not shown


def load_note(vault: Path, rel: str) -> NoteDocument:
    """Read and parse the note ``rel`` of ``vault`` (raises ``OSError`` if it is gone).

    Read as the indexer reads it (:func:`~explorer.vault.scan.read_note`): a note that has
    become a FIFO, a device, a link out of the vault or too large since it was indexed is shown
    as its reason, never waited on or read."""
    data = read_note(vault, rel)
    if data is None:
        raise FileNotFoundError(errno.ENOENT, "no such file", rel)
    if isinstance(data, str):
        return NoteDocument(rel, rel, (), None, f"(not shown: {data})", 0, (data,), False)
    try:
        note = parse_note(rel, data)
    except NotANote as exc:
        return NoteDocument(rel, rel, (), None, f"({exc})", 0, (str(exc),), False)
    return NoteDocument(
        rel,
        note.title,
        tuple(note.tags),
        note.status,
        note.text,
        note.body_start,
        tuple(note.warnings),
    )
