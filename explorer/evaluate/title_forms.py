"""Notes in the form most people keep them: titled by their file names alone.

Every collection of the development pool keeps its titles inside the text (an H1 or a
frontmatter ``title:``); most Obsidian vaults do not.  :func:`file_named_vault` writes a copy of
a vault with each note's ``title:`` and H1 removed and the file named by that title
(``deck-options.md`` holding ``# Deck Options`` becomes ``Deck Options.md``), and gives the
old path -> new path map the judgments are carried over by; :func:`file_named_corpus` writes a
BEIR corpus so (``<title>.md`` holding the abstract alone).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path, PurePosixPath

from explorer.evaluate.datasets import BeirDataset
from explorer.vault.frontmatter import read_frontmatter
from explorer.vault.links import blank_fences
from explorer.vault.parse import parse_note

#: Characters no file name on some system may hold, and the longest name kept (in characters;
#: ext4 takes 255 bytes).
_UNSAFE = re.compile(r'[\x00-\x1f/\\:*?"<>|#^\[\]]+')
_NAME_CHARS = 120
_H1 = re.compile(r"^#[ \t]+.*$\n?", re.MULTILINE)
_TITLE_FIELD = re.compile(r"^title[ \t]*:.*$\n?", re.MULTILINE)


def file_name(title: str) -> str:
    """A file name (without ``.md``) for a note titled ``title``."""
    name = " ".join(_UNSAFE.sub(" ", title).split()).strip(". ")
    return name[:_NAME_CHARS].rstrip(". ") or "untitled"


def untitled_text(text: str) -> tuple[str, str | None]:
    """``text`` without its frontmatter ``title:`` and its first H1, and the title they gave
    (``None``: the content gives none, and the text is returned as it was)."""
    note = parse_note("x.md", text.encode("utf-8"))
    if not note.title_from_content:
        return text, None
    front = read_frontmatter(text)
    head, body = text[: front.end], text[front.end :]
    if "title" in front.fields:
        head = _TITLE_FIELD.sub("", head, count=1)
        if re.fullmatch(r"---\s*\n---\s*\n?", head):
            head = ""
    else:
        match = _H1.search(blank_fences(body))
        if match is not None:
            body = body[: match.start()] + body[match.end() :]
    return (head + body.lstrip("\n")), note.title


def _unique(folder: PurePosixPath, stem: str, taken: set[str]) -> str:
    rel, n = str(folder / f"{stem}.md"), 1
    while rel.casefold() in taken:
        n += 1
        rel = str(folder / f"{stem} ({n}).md")
    taken.add(rel.casefold())
    return rel


def file_named_vault(vault: Path, out: Path) -> dict[str, str]:
    """Write ``vault`` titled by file names into ``out`` (replaced); returns old -> new path of
    every note."""
    if out.exists():
        shutil.rmtree(out)
    renamed: dict[str, str] = {}
    taken: set[str] = set()
    for path in sorted(vault.rglob("*")):
        if not path.is_file() or any(p.startswith(".") for p in path.relative_to(vault).parts):
            continue
        rel = PurePosixPath(path.relative_to(vault).as_posix())
        if path.suffix.lower() not in (".md", ".markdown"):
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            continue
        text, title = untitled_text(path.read_text(encoding="utf-8", errors="replace"))
        new = _unique(rel.parent, file_name(title) if title else rel.stem, taken)
        target = out / new
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        renamed[str(rel)] = new
    return renamed


def file_named_corpus(dataset: BeirDataset, out: Path) -> dict[str, str]:
    """Write each document of ``dataset`` as ``<title>.md`` holding its text alone into ``out``
    (kept when already complete); returns note path -> document id."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for doc_id, doc in dataset.corpus.items():
        stem = file_name(doc.title) if doc.title.strip() else doc_id
        names[_unique(PurePosixPath(), stem, taken)] = doc_id
    marker = out / ".complete"
    if marker.is_file() and marker.read_text() == str(len(names)):
        return names
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for rel, doc_id in names.items():
        (out / rel).write_text(f"{dataset.corpus[doc_id].text}\n", encoding="utf-8")
    marker.write_text(str(len(names)))
    return names
