"""Where the links of a vault's notes lead, for the preview: every note with its aliases, and
every image or attachment beside them.

The notes and aliases come from the index when there is one (:func:`links_from_index`: the sync
already parsed every note's frontmatter and stores its aliases); :func:`vault_links` reads them
from the files on disk instead, for a vault the index has not seen yet.  Attachments are not
indexed: they are always found on disk.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from explorer.index.links import note_names
from explorer.preview.document import load_note
from explorer.preview.obsidian import IMAGE_SUFFIXES
from explorer.vault.frontmatter import read_frontmatter
from explorer.vault.ignore import IgnoreRules
from explorer.vault.links import Resolver, aliases
from explorer.vault.scan import FileStat, read_inside, read_note, scan_vault, stat_note

#: Frontmatter read for aliases, at most (aliases come first in practice; a longer block is read
#: whole only when the head mentions them).
_ALIAS_HEAD_BYTES = 4096


@dataclass(frozen=True)
class VaultLinks:
    """Where the links of a vault's notes lead: every note (with its aliases) and every image
    or attachment, as the files on disk are now.  Built once per vault, off the GUI thread
    (:func:`vault_links`); when notes change, :meth:`updated` reads only those again."""

    vault: Path
    notes: dict[str, list[str]]  # note path -> its aliases
    attachments: tuple[str, ...]
    resolver: Resolver

    @classmethod
    def of(cls, vault: Path, notes: dict[str, list[str]], attachments: Iterable[str]) -> VaultLinks:
        kept = tuple(attachments)
        return cls(vault, notes, kept, Resolver(notes.items(), kept))

    def resolve(self, target: str, source: str | None = None, markdown: bool = False) -> str | None:
        return self.resolver.resolve(target, source, markdown=markdown)

    def embed(self, path: str) -> str | None:
        """The body markdown of the note ``path``, for an embed (``None``: cannot be read)."""
        try:
            doc = load_note(self.vault, path)
        except OSError:
            return None
        return doc.text[doc.body_start :] if doc.readable else None

    def updated(self, paths: Iterable[str]) -> VaultLinks:
        """These links after the notes ``paths`` were created, changed or deleted (each is
        looked at again on disk; the rest of the vault is not read)."""
        notes = dict(self.notes)
        rules = IgnoreRules.for_vault(self.vault)
        for rel in paths:
            if not rules.ignores_file(rel) and isinstance(stat_note(self.vault, rel), FileStat):
                notes[rel] = _aliases(self.vault, rel)
            else:
                notes.pop(rel, None)
        return VaultLinks.of(self.vault, notes, self.attachments)

    def indexed(self, paths: Iterable[str], names: dict[str, list[str]]) -> VaultLinks:
        """These links after the notes ``paths`` changed, as the index holds them now
        (``names``: those of them it has, with their aliases; :func:`note_names`)."""
        gone = set(paths)
        notes = {path: found for path, found in self.notes.items() if path not in gone}
        notes.update(names)
        return VaultLinks.of(self.vault, notes, self.attachments)


def vault_links(vault: Path) -> VaultLinks:
    """:class:`VaultLinks` of ``vault`` from its files: the notes the scan finds (aliases read
    from the head of each), and the attachments beside them (names with an image, PDF or other
    non-note suffix, outside hidden and ignored folders)."""
    root = vault.resolve()
    rules = IgnoreRules.for_vault(root)
    notes = {rel: _aliases(root, rel) for rel in scan_vault(root, rules).files}
    return VaultLinks.of(root, notes, _attachments(root, rules))


def links_from_index(conn: sqlite3.Connection, vault: Path) -> VaultLinks:
    """:class:`VaultLinks` of ``vault`` from its index (``conn``): every note the index holds,
    with the aliases its sync read from the frontmatter, and the attachments on disk (the index
    keeps notes only).  Nothing of the vault's notes is read."""
    return links_of_notes(vault, note_names(conn))


def links_of_notes(vault: Path, notes: dict[str, list[str]]) -> VaultLinks:
    """:class:`VaultLinks` of ``vault`` over ``notes`` (path to aliases, as
    :func:`~explorer.index.links.note_names` reads them from the index) and the attachments
    on disk."""
    root = vault.resolve()
    return VaultLinks.of(root, notes, _attachments(root, IgnoreRules.for_vault(root)))


def _aliases(root: Path, rel: str) -> list[str]:
    head = read_inside(str(root), str(root / rel), _ALIAS_HEAD_BYTES)
    if not isinstance(head, bytes) or not head.startswith(b"---") or b"alias" not in head:
        return []
    if len(head) > _ALIAS_HEAD_BYTES:
        whole = read_note(root, rel)
        head = whole if isinstance(whole, bytes) else head
    return aliases(read_frontmatter(head.decode("utf-8", "replace").replace("\r\n", "\n")).fields)


#: Files a note may link to or embed besides notes.
ATTACHMENT_SUFFIXES = IMAGE_SUFFIXES | {".pdf", ".mp3", ".mp4", ".webm", ".wav", ".ogg", ".csv"}


def _attachments(root: Path, rules: IgnoreRules) -> list[str]:
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        rel_folder = "" if rel_folder == "." else rel_folder.replace(os.sep, "/") + "/"
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not rules.ignores_dir(rel_folder + d)
        )
        for name in files:
            if os.path.splitext(name)[1].lower() in ATTACHMENT_SUFFIXES:
                found.append(rel_folder + name)
    return found
