"""The preview says when the shown note was modified and created, and where creation comes
from (issue 35: "the window says which")."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from tests.gui.conftest import WindowFactory, wait_indexed
from tests.gui.driver import drive


def test_the_preview_names_where_a_note_s_creation_time_comes_from(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)

    ui.search("alpha plan")
    ui.select(ui.row_of("projects/alpha.md"))
    qtbot.waitUntil(lambda: "created 2024-01-10 (" in ui.preview_dates())
    assert "(from its frontmatter)" in ui.preview_dates()
    assert ui.preview_dates().startswith("modified ")

    ui.search("meeting")  # no frontmatter date: the file's birth time, or its first index
    ui.select(ui.row_of("meeting.md"))
    qtbot.waitUntil(lambda: _assert(ui.preview_dates(), "created", "frontmatter"))
    dates = ui.preview_dates()
    assert "birth time" in dates or "or before (not recorded)" in dates


def _assert(text: str, present: str, absent: str) -> None:
    assert present in text and absent not in text, text


def test_a_note_is_never_said_to_be_created_after_it_was_modified(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    """ "modified 2026-12-05 19:22 · created 2026-12-05 19:39 (when it was first indexed)"
    (issue 46): a note indexed after its last change existed by that change."""
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("meeting")  # modified 5 days ago, first indexed now, no frontmatter date
    ui.select(ui.row_of("meeting.md"))

    def said() -> None:
        assert ui.preview_path() == "meeting.md"
        line = ui.preview_dates()
        modified = line.removeprefix("modified ").split(" · ")[0]
        assert f"created {modified} or before (not recorded)" in line, line

    qtbot.waitUntil(said)
