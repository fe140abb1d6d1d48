"""View ▸ Facets: the tags, folders and property values of the results with their counts, read
through the session; a click adds the value's filter and searches, a second click removes it."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from tests.gui.conftest import WindowFactory, wait_indexed
from tests.gui.driver import drive


def test_facet_click_adds_the_filter_then_a_second_click_removes_it(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.show_facets()
    ui.search("deploy plan")
    qtbot.waitUntil(lambda: "status" in ui.facets())
    facets = ui.facets()
    assert ("project", 3, False) in facets["Tags"]
    assert ("projects/", 3, False) in facets["Folders"]
    assert ("open", 2, False) in facets["status"]
    assert ("in progress", 1, False) in facets["status"]

    ui.click_facet("status", "open")
    response = ui.wait_for_results("deploy plan [status:open]")
    assert {hit.path for hit in response.hits} == {"projects/alpha.md", "projects/gamma.md"}
    # The facets of the narrowed results, the clicked value active.
    qtbot.waitUntil(lambda: ui.facets().get("Tags") == [("project", 2, False), ("ops", 1, False)])
    assert ui.facets()["status"] == [("open", 2, True)]

    ui.click_facet("status", "open")  # again: the filter goes
    response = ui.wait_for_results("deploy plan")
    assert len(response.hits) == 5
    qtbot.waitUntil(lambda: ("open", 2, False) in ui.facets().get("status", []))


def test_a_value_with_a_space_is_quoted_and_toggles(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.show_facets()
    ui.search("plan")
    qtbot.waitUntil(lambda: "status" in ui.facets())
    ui.click_facet("status", "in progress")
    response = ui.wait_for_results('plan [status:"in progress"]')
    assert [hit.path for hit in response.hits] == ["reading/zeta.md"]


def test_hidden_panel_reads_nothing_until_shown(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.search("deploy plan")
    assert not window.facets.isVisible()
    assert ui.facets() == {}
    ui.show_facets()  # shown: the facets of the results on screen, at once
    qtbot.waitUntil(lambda: "Tags" in ui.facets())


def test_facets_follow_a_note_changed_on_disk(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, property_vault: Path
) -> None:
    window = make_window(fake_provider, property_vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.show_facets()
    ui.set_mode("fts")  # the one note with the word
    ui.search("gamma")
    qtbot.waitUntil(lambda: ui.facets().get("Tags") == [("project", 1, False)])
    note = property_vault / "projects/gamma.md"
    note.write_text(note.read_text().replace("tags: [project]", "tags: [project, urgent]"))
    drive(window).reconcile()  # as the watcher would, without waiting for it
    qtbot.waitUntil(
        lambda: ui.facets().get("Tags") == [("project", 1, False), ("urgent", 1, False)],
        timeout=20_000,
    )


def test_a_folder_with_a_space_filters_and_an_empty_result_keeps_its_facets(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, vault: Path
) -> None:
    """The folder's facet finds the folder's notes (it wrote ``path:"my notes/"``, which
    found none); a query whose filters leave no note keeps them listed, active, to be
    clicked off."""
    for name in ("a", "b", "c"):
        (vault / "my notes").mkdir(exist_ok=True)
        (vault / "my notes" / f"{name}.md").write_text(f"# {name}\n\nthe plan\n")
    (vault / "other.md").write_text("---\nkind: a]b\n---\n# Other\n\nthe plan\n")
    window = make_window(fake_provider, vault)
    wait_indexed(qtbot, window)
    ui = drive(window, qtbot)
    ui.set_mode("fts")
    ui.show_facets()
    ui.search("plan")
    qtbot.waitUntil(lambda: ("my notes/", 3, False) in ui.facets().get("Folders", []))
    ui.click_facet("Folders", "my notes/")
    response = ui.wait_for_results('plan path:"my notes/"')
    assert len(response.hits) == 3

    ui.search('plan path:"my notes/" [kind:"a]b"]')  # no note passes both
    # The query's own filter is listed as soon as it is typed, the counts once its (empty)
    # results are read: wait for both, not for the first.
    qtbot.waitUntil(
        lambda: (
            ui.facets().get("kind") == [("a]b", 0, True)]
            and ui.facets().get("Folders") == [("my notes/", 0, True)]
        )
    )
    ui.click_facet("kind", "a]b")
    response = ui.wait_for_results('plan path:"my notes/"')
    assert len(response.hits) == 3
