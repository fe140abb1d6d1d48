"""What renaming costs: a note, and a folder of 100 notes (``bench --renames``).

A chunk is embedded with where it stands (its note's title, the file name when the content
gives none, and the headings above it: :meth:`explorer.vault.parse.ParsedNote.embed_text`), so a
renamed note's chunks get new texts.  The sync of a rename writes no vector: each chunk keeps
the vector it had as a stand-in, and the new texts are embedded in the background.  This
measures both halves on a copy of notes of the vault being benched (the vault itself is never
touched): the sync that takes the rename in, and the embedding it leaves behind.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from explorer.embed.base import Embedder
from explorer.evaluate.title_forms import untitled_text
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending, pending_count, restyling_count
from explorer.index.sync import sync_vault
from explorer.vault import parse
from explorer.vault.scan import scan_vault

#: Notes in the renamed folder.
FOLDER_NOTES = 100


def rename_costs(vault: Path, scratch: Path, embedder: Embedder) -> dict[str, Any]:
    """Copy ``FOLDER_NOTES + 1`` notes of ``vault`` into ``scratch`` (one alone, the rest in a
    folder), titled by their file names as most Obsidian notes are (an H1 or ``title:`` would
    keep a renamed note's title: :func:`~explorer.evaluate.title_forms.untitled_text`), index
    and embed them, then rename the note and the folder in turn: the sync's seconds, the
    chunks left to embed again and the seconds that takes, for each."""
    notes = [vault / rel for rel in sorted(scan_vault(vault).files)]  # the notes the index reads
    if len(notes) < FOLDER_NOTES + 1:
        return {"note": f"the vault has fewer than {FOLDER_NOTES + 1} notes"}
    root = scratch / "renames"
    if root.exists():
        shutil.rmtree(root)
    copy = root / "vault"
    (copy / "folder").mkdir(parents=True)
    _copy_untitled(notes[0], copy / "A note.md")
    for i, path in enumerate(notes[1 : FOLDER_NOTES + 1]):
        _copy_untitled(path, copy / "folder" / f"{i:03d} {path.stem}.md")
    db = IndexDB.open(copy, path=root / "index.sqlite")
    try:
        sync_vault(db)
        embed_pending(db, embedder)
        out: dict[str, Any] = {"form": parse.EMBED_FORM.value, "model": embedder.name}
        out["note"] = _rename(db, embedder, copy / "A note.md", copy / "The note renamed.md")
        out["folder"] = _rename(db, embedder, copy / "folder", copy / "folder renamed")
    finally:
        db.close()
        shutil.rmtree(root, ignore_errors=True)
    return out


def _rename(db: IndexDB, embedder: Embedder, old: Path, new: Path) -> dict[str, Any]:
    old.rename(new)
    rel = [str(p.relative_to(db.vault)) for p in (old, new)]
    started = time.perf_counter()
    report = sync_vault(db, paths=rel)
    sync_seconds = time.perf_counter() - started
    chunks = pending_count(db, embedder.name)
    standing = restyling_count(db)
    done = embed_pending(db, embedder)
    return {
        "moved": len(report.renamed),
        "syncMs": round(sync_seconds * 1000, 1),
        "notesOnStandIns": standing,
        "chunksEmbeddedAgain": chunks,
        "embedSeconds": round(done.seconds, 2),
    }


def format_renames(figures: dict[str, Any]) -> list[str]:
    """The lines ``bench`` prints for :func:`rename_costs`."""
    if "folder" not in figures:
        return [f"renames: {figures.get('note', 'not measured')}"]
    lines = [f"renames ({figures['form']} form, {figures['model']}):"]
    for label, key in (("one note", "note"), (f"a folder of {FOLDER_NOTES} notes", "folder")):
        f = figures[key]
        n = f["chunksEmbeddedAgain"]
        lines.append(
            f"  {label:<22} sync {f['syncMs']:.1f} ms ({f['moved']} moved); "
            f"{n} chunk{'' if n == 1 else 's'} embedded again in the background "
            f"({f['embedSeconds']:.2f} s), searched on their vectors of before meanwhile"
        )
    return lines


def _copy_untitled(source: Path, target: Path) -> None:
    text, _ = untitled_text(source.read_text(encoding="utf-8", errors="replace"))
    target.write_text(text, encoding="utf-8")
