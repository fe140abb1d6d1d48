"""A note read from disk for the preview, as the indexer reads it."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

from explorer.preview.document import NoteDocument, load_note
from explorer.preview.links import vault_links
from tests.hostile_parsing import laughs


def test_the_preview_reads_frontmatter_as_the_index_does(tmp_path: Path) -> None:
    (tmp_path / "status.md").write_text(laughs(9, "status"), encoding="utf-8")
    (tmp_path / "aliases.md").write_text(
        laughs(9, "tags").replace("tags: [kept,", "aliases: [Other,"), encoding="utf-8"
    )
    doc = load_note(tmp_path, "status.md")
    assert doc.title == "Laughing note" and doc.status is None and doc.tags == ("kept", "inline")
    assert len(doc.warnings) == 1 and "`status`" in doc.warnings[0]
    assert doc.text[doc.body_start :].startswith("# Laughing note")
    assert vault_links(tmp_path).notes == {"aliases.md": [], "status.md": []}


def test_note_that_is_not_text_is_shown_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_bytes(b"\x00\x01binary")
    doc = load_note(tmp_path, "b.md")
    assert isinstance(doc, NoteDocument) and "binary" in doc.text


def test_a_note_that_became_a_link_out_of_the_vault_is_not_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (tmp_path / "secret.txt").write_text("root:x:0:0:SECRET", encoding="utf-8")
    (vault / "passwd.md").symlink_to(tmp_path / "secret.txt")
    doc = load_note(vault, "passwd.md")
    assert "SECRET" not in doc.text
    assert "outside the vault" in doc.text


def test_a_note_that_became_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    fifo = vault / "pipe.md"
    os.mkfifo(fifo)
    docs: list[NoteDocument] = []
    reader = threading.Thread(target=lambda: docs.append(load_note(vault, "pipe.md")))
    reader.start()
    reader.join(60)  # a safety net only: an open that waits for a writer would wait forever
    try:
        assert not reader.is_alive(), "the preview's worker blocked on the FIFO"
    finally:
        with contextlib.suppress(OSError):  # let a blocked reader go, if there is one
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join()
    assert "not a regular file" in docs[0].text
