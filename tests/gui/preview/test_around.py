"""View ▸ Around This Note: the backlinks and related notes of the note the preview shows, and
a click on one opens it in the preview."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget
from pytestqt.qtbot import QtBot

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.session import VaultSession
from explorer.gui.preview.around import HTML_ROLE, UNLINKED_BADGE, Around, AroundPanel, line_html
from explorer.gui.window.actions import Action
from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.live import VectorsStored
from tests.gui.conftest import (
    SAFETY_MS,
    WindowFactory,
    index_with_fake_vectors,
    wait_for_results,
    wait_indexed,
)
from tests.gui.driver import drive
from tests.obsidian_vault import BACKLINKS, build_obsidian_vault

Write = Callable[[str, str], Path]

NOTES = {
    "ops/deploy.md": "# Deploy\n\nDeploy the service, then check the deploy dashboard.\n",
    "ops/rollback.md": "# Rollback\n\nRoll back a failed deploy of the service.\n",
    "recipes/bread.md": "# Bread\n\nFlour, water, salt and yeast; bake it hot.\n",
}


@pytest.fixture
def indexed(vault: Path, data_dir: Path, write: Write) -> Path:
    for rel, text in NOTES.items():
        write(rel, text)
    return index_with_fake_vectors(vault, data_dir)


@pytest.fixture
def session(
    qtbot: QtBot, indexed: Path, data_dir: Path, fake_provider: EmbedderProvider
) -> Iterator[VaultSession]:
    session = VaultSession(indexed, str(data_dir), fake_provider, live=False)
    with qtbot.waitSignal(session.opened, timeout=SAFETY_MS):
        session.open()
    yield session
    session.close(wait=True)


@pytest.fixture
def panel(qtbot: QtBot, session: VaultSession) -> Iterator[AroundPanel]:
    dock = AroundPanel(FakeEmbedder().name)
    qtbot.addWidget(dock)
    dock.show()
    dock.open_vault(session)
    yield dock
    dock.close_vault()


def shown_for(qtbot: QtBot, panel: AroundPanel, path: str) -> Around:
    with qtbot.waitSignal(
        panel.shown, timeout=SAFETY_MS, check_params_cb=lambda a: a.path == path
    ) as blocker:
        panel.show_note(path)
    around: Around = blocker.args[0]
    return around


def click(qtbot: QtBot, tree: QTreeWidget, row: int) -> None:
    item = tree.topLevelItem(row)
    assert item is not None
    tree.scrollToItem(item)
    rect = tree.visualItemRect(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_related_notes_are_listed_nearest_first_without_the_note(
    qtbot: QtBot, panel: AroundPanel
) -> None:
    shown_for(qtbot, panel, "ops/deploy.md")
    _backlinks, related = panel.listed()
    assert related[0] == "ops/rollback.md" and "ops/deploy.md" not in related
    assert set(related) == {"ops/rollback.md", "recipes/bread.md"}
    first, second = panel.related.topLevelItem(0), panel.related.topLevelItem(1)
    assert first is not None and second is not None
    assert first.text(0) == "Rollback" and float(first.text(1)) > float(second.text(1))


def test_a_click_asks_to_open_the_note(qtbot: QtBot, panel: AroundPanel) -> None:
    shown_for(qtbot, panel, "ops/deploy.md")
    with qtbot.waitSignal(panel.openRequested, timeout=SAFETY_MS) as blocker:
        click(qtbot, panel.related, 0)
    assert blocker.args == ["ops/rollback.md"]


def test_a_saved_note_is_listed_again(
    qtbot: QtBot, panel: AroundPanel, indexed: Path, data_dir: Path, write: Write
) -> None:
    shown_for(qtbot, panel, "recipes/bread.md")
    assert panel.listed()[1][0] != "recipes/pizza.md"
    write("recipes/pizza.md", "# Pizza\n\nFlour, water, salt and yeast; bake it very hot.\n")
    index_with_fake_vectors(indexed, data_dir)
    with qtbot.waitSignal(panel.shown, timeout=SAFETY_MS):
        panel.index_changed()
    assert panel.listed()[1][0] == "recipes/pizza.md"


def test_nothing_is_read_while_hidden(qtbot: QtBot, panel: AroundPanel) -> None:
    panel.hide()
    panel.show_note("ops/deploy.md")
    qtbot.wait(50)  # nothing to wait for: a hidden panel reads nothing
    assert panel.around is None and panel.reads == 0
    with qtbot.waitSignal(panel.shown, timeout=SAFETY_MS):
        panel.show()
    assert panel.around is not None and panel.around.path == "ops/deploy.md"


def test_a_note_without_vectors_says_so(
    qtbot: QtBot, panel: AroundPanel, indexed: Path, data_dir: Path, write: Write
) -> None:
    write("inbox/new.md", "# New\n\nNot embedded yet.\n")
    db = IndexDB.open(indexed, data_dir)
    try:
        sync_vault(db)
    finally:
        db.close()
    around = shown_for(qtbot, panel, "inbox/new.md")
    assert around.related.notes == [] and panel.related.topLevelItemCount() == 0
    assert "pending" in panel.related_label.text()


def test_a_note_is_listed_again_when_its_vectors_are_stored(
    qtbot: QtBot,
    panel: AroundPanel,
    session: VaultSession,
    indexed: Path,
    data_dir: Path,
    write: Write,
) -> None:
    """ "this note has no vector yet" stayed after the note was embedded and its strip showed
    (issue 46): the list waited for the whole queue to empty, minutes into a first embedding."""
    write("inbox/new.md", "# New\n\nDeploy the bread service.\n")
    db = IndexDB.open(indexed, data_dir)
    try:
        sync_vault(db)
    finally:
        db.close()
    shown_for(qtbot, panel, "inbox/new.md")
    assert "pending" in panel.related_label.text()
    index_with_fake_vectors(indexed, data_dir)  # its vectors stored, others still queued
    with qtbot.waitSignal(panel.shown, timeout=SAFETY_MS):
        session.liveEvent.emit(VectorsStored.now("stored", touched=frozenset({"inbox/new.md"})))
    assert "pending" not in panel.related_label.text()
    assert panel.listed()[1]


@pytest.mark.parametrize(
    ("line", "shown", "expected"),
    [
        ("See Deploy first.", ["Deploy"], "See <b><u>Deploy</u></b> first."),
        ("Read the runbook, deploy.", ["the runbook"], "Read <b><u>the runbook</u></b>, deploy."),
        ("Deployment, not deploy", ["deploy"], "Deployment, not <b><u>deploy</u></b>"),
        ("<script> Deploy", ["Deploy"], "&lt;script&gt; <b><u>Deploy</u></b>"),
        ("No words given", [], "No words given"),
    ],
)
def test_the_linking_line_shows_the_links_words_marked(
    line: str, shown: list[str], expected: str
) -> None:
    assert line_html(line, shown) == expected


# ----------------------------------------------------------------------------- the fixture vault


@pytest.fixture
def obsidian(tmp_path: Path, data_dir: Path) -> Path:
    vault = build_obsidian_vault(tmp_path / "obsidian")
    return index_with_fake_vectors(vault, data_dir)


def test_the_fixture_vaults_backlinks_and_related_notes(
    qtbot: QtBot, obsidian: Path, data_dir: Path, fake_provider: EmbedderProvider
) -> None:
    session = VaultSession(obsidian, str(data_dir), fake_provider, live=False)
    session.open()
    panel = AroundPanel(FakeEmbedder().name)
    qtbot.addWidget(panel)
    panel.show()
    panel.open_vault(session)
    try:
        for path in ("Home.md", "Properties.md", "Callouts.md"):
            shown_for(qtbot, panel, path)
            backlinks, related = panel.listed()
            # a line a link (Home links Properties on three lines), by path then line
            assert set(backlinks) == BACKLINKS[path] and backlinks == sorted(backlinks), path
            assert path not in related and related
        shown_for(qtbot, panel, "Home.md")
        backlinks, related = panel.listed()
        assert panel.backlinks_label.text() == f"Backlinks ({len(backlinks)})"
        # Properties links to Home with the words "Home": marked in its line.
        item = panel.backlinks.topLevelItem(backlinks.index("Properties.md"))
        assert item is not None and "See the <b><u>Home</u></b> note." in item.data(0, HTML_ROLE)
        assert "[[" not in item.data(0, HTML_ROLE)
        rows = {
            str(item.data(0, Qt.ItemDataRole.UserRole + 1)): item
            for i in range(panel.related.topLevelItemCount())
            if (item := panel.related.topLevelItem(i)) is not None
        }
        unlinked, linked = rows["Callouts.md"], rows["Properties.md"]
        assert unlinked.text(2) == UNLINKED_BADGE and unlinked.font(0).bold()
        assert linked.text(2) == "↔ linked" and not linked.font(0).bold()
        assert linked.foreground(0).color() != unlinked.foreground(0).color()
        assert rows["Archive/Old/Properties.md"].text(2) == "← links here"
        assert rows["Embedded note.md"].text(2) == "linked →"
        assert "3 not linked" in panel.related_label.text()
    finally:
        panel.close_vault()
        session.close(wait=True)


def test_in_the_window_a_click_opens_the_note_in_the_preview(
    qtbot: QtBot, make_window: WindowFactory, tmp_path: Path
) -> None:
    vault = build_obsidian_vault(tmp_path / "obsidian")
    window = make_window(EmbedderProvider.of(FakeEmbedder()), vault)
    wait_indexed(qtbot, window)
    drive(window).set_mode("fts")
    drive(window).set_query("welcome")
    wait_for_results(qtbot, window, "welcome")
    around = window.around
    assert around.isVisible() and drive(window).action(Action.AROUND).isChecked()

    def listed(path: str, backlinks: set[str]) -> None:
        assert around.around is not None and around.around.path == path
        assert set(around.listed()[0]) == backlinks and around.listed()[1]

    qtbot.waitUntil(lambda: listed("Home.md", BACKLINKS["Home.md"]), timeout=SAFETY_MS)
    click(qtbot, around.backlinks, around.listed()[0].index("Guides/Setup.md"))
    qtbot.waitUntil(lambda: drive(window).preview_path() == "Guides/Setup.md", timeout=SAFETY_MS)
    qtbot.waitUntil(lambda: listed("Guides/Setup.md", {"Home.md"}), timeout=SAFETY_MS)
    related = around.listed()[1]
    click(qtbot, around.related, related.index("Callouts.md"))
    qtbot.waitUntil(lambda: drive(window).preview_path() == "Callouts.md", timeout=SAFETY_MS)
    assert drive(window).preview_history()[0][-2:] == ["Home.md", "Guides/Setup.md"]
    drive(window).press(Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)  # Back
    qtbot.waitUntil(lambda: listed("Guides/Setup.md", {"Home.md"}), timeout=SAFETY_MS)
    # A new note linking here shows up among the backlinks (the live index tells the panel).
    (vault / "Later.md").write_text("# Later\n\nSee the [[Setup|setup guide]].\n", "utf-8")
    qtbot.waitUntil(lambda: listed("Guides/Setup.md", {"Home.md", "Later.md"}), timeout=SAFETY_MS)
    drive(window).trigger(Action.AROUND)
    assert not around.isVisible()
