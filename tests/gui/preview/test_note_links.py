"""Where the preview's links lead: the index's notes through the session (all once, then the
changed ones), the folder's without a session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.session import VaultSession
from explorer.gui.preview.note_links import LinksOf, NoteLinks
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.preview.links import VaultLinks
from tests.gui.conftest import SAFETY_MS


def _sync(vault: Path, data_dir: Path) -> None:
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
    finally:
        db.close()


@pytest.fixture
def session(
    qtbot: QtBot, vault: Path, data_dir: Path, fake_provider: EmbedderProvider
) -> Iterator[VaultSession]:
    (vault / "a.md").write_text("---\naliases: [Alpha]\n---\n# A\n", encoding="utf-8")
    (vault / "pic.png").write_bytes(b"x")
    _sync(vault, data_dir)
    svc = VaultSession(vault, str(data_dir), fake_provider, live=False)
    with qtbot.waitSignal(svc.opened, timeout=SAFETY_MS):
        svc.open()
    yield svc
    svc.close(wait=True)


def fetched(qtbot: QtBot, links: NoteLinks) -> tuple[VaultLinks | None, int | None]:
    """What a render would get now (made as its pool thread would), kept as a render keeps it."""
    got: list[tuple[LinksOf, int | None]] = []
    links.fetch(lambda links_of, generation: got.append((links_of, generation)))
    qtbot.waitUntil(lambda: _assert(bool(got)), timeout=SAFETY_MS)
    links_of, generation = got[0]
    made = links_of()
    assert links.vault is not None
    links.keep(links.vault, made, generation)
    return made, generation


def test_the_index_says_where_links_lead_and_only_changed_notes_are_read_again(
    qtbot: QtBot, session: VaultSession, vault: Path, data_dir: Path
) -> None:
    links = NoteLinks()
    links.set_vault(vault, session)
    (vault / "unindexed.md").write_text("# Not yet\n", encoding="utf-8")
    made, _ = fetched(qtbot, links)
    assert made is not None and made.notes == {"a.md": ["Alpha"]}
    assert made.resolve("alpha") == "a.md" and made.resolve("unindexed") is None
    assert made.resolve("pic.png") == "pic.png"  # attachments: on disk
    _sync(vault, data_dir)
    links.changed(["unindexed.md"])
    again, _ = fetched(qtbot, links)
    assert again is not None and again.resolve("unindexed") == "unindexed.md"
    assert again.notes == {"a.md": ["Alpha"], "unindexed.md": []}


def test_without_a_session_the_folder_says_where_links_lead(qtbot: QtBot, vault: Path) -> None:
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    links = NoteLinks()
    links.set_vault(vault, None)
    made, _ = fetched(qtbot, links)
    assert made is not None and made.notes == {"a.md": []}
    (vault / "b.md").write_text("# B\n", encoding="utf-8")
    links.changed(["b.md"])
    again, _ = fetched(qtbot, links)
    assert again is not None and again.resolve("b") == "b.md"


def _assert(condition: bool) -> None:
    assert condition
