"""Search ▸ Why Not This Note…: the dialog gives each reason a note is not shown, for the query
and settings it was opened with; the note field finds a note by a few letters of its title."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.session import VaultSession
from explorer.gui.panels.why_not import WhyNotDialog
from explorer.gui.results.results_model import Role
from explorer.gui.window.actions import Action
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions
from tests.gui.conftest import SAFETY_MS, WindowFactory, index_with_fake_vectors, wait_for_results
from tests.gui.driver import drive

NOTES = {
    "ops/deploy-runbook.md": "# Deploy runbook\n\nHow we deploy: deploy, check, deploy again.\n",
    "ops/deploy-runbook-2023.md": (
        "---\nstatus: stale\n---\n# Old deploy\n\nDeploy deploy deploy, the 2023 way.\n"
    ),
    "ops/rollback.md": "# Rollback\n\nRoll back a deploy of ledger-api when the checks fail.\n",
    "dev/release-notes.md": (
        "# Release notes\n\nWriting release notes for every version we ship, with the "
        "changes, the fixes, the known problems and the people who helped; a deploy follows "
        "the release, later, once the notes are reviewed and merged and the tag is pushed.\n"
    ),
    "recipes/quarterly-brulee.md": "# Crème brûlée\n\nCream, sugar, eggs, vanilla.\n",
}


@pytest.fixture
def indexed(vault: Path, data_dir: Path, write: Callable[[str, str], Path]) -> Path:
    for rel, text in NOTES.items():
        write(rel, text)
    return index_with_fake_vectors(vault, data_dir)


def reading_session(
    qtbot: QtBot, vault: Path, data_dir: Path, provider: EmbedderProvider
) -> VaultSession:
    """A session that only reads ``vault``'s index (no live index), open."""
    session = VaultSession(vault, str(data_dir), provider, live=False)
    with qtbot.waitSignal(session.opened, timeout=SAFETY_MS):
        session.open()
    return session


@pytest.fixture
def session(
    qtbot: QtBot, indexed: Path, data_dir: Path, fake_provider: EmbedderProvider
) -> Iterator[VaultSession]:
    session = reading_session(qtbot, indexed, data_dir, fake_provider)
    yield session
    session.close(wait=True)


@pytest.fixture
def open_dialog(
    qtbot: QtBot, session: VaultSession
) -> Iterator[Callable[[str, SearchOptions], WhyNotDialog]]:
    def make(query: str, options: SearchOptions) -> WhyNotDialog:
        dialog = WhyNotDialog(session, query, options)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitUntil(lambda: dialog.notes_loaded, timeout=SAFETY_MS)
        return dialog

    yield make


def explained(qtbot: QtBot, dialog: WhyNotDialog, path: str) -> list[str]:
    """Explain ``path`` in ``dialog`` and return the reason codes it shows."""
    with qtbot.waitSignal(dialog.explained, timeout=SAFETY_MS):
        dialog.explain_path(path)
    e = dialog.explanation
    assert e is not None and e.path == path
    return e.reasons


def test_excluded_by_a_minus_word(
    qtbot: QtBot, open_dialog: Callable[[str, SearchOptions], WhyNotDialog]
) -> None:
    dialog = open_dialog("deploy -rollback", replace(SearchOptions(), mode="fts"))
    assert explained(qtbot, dialog, "ops/rollback.md")[0] == "excluded"
    assert "excluded: excluded by a -word" in dialog.reasons.text()
    assert "excluded by -rollback: the note contains “rollback”" in (
        dialog.text.toPlainText().splitlines()
    )


def test_names_the_property_filter_that_removes_the_note(
    qtbot: QtBot, open_dialog: Callable[[str, SearchOptions], WhyNotDialog]
) -> None:
    dialog = open_dialog("deploy -[status:stale]", replace(SearchOptions(), mode="fts"))
    assert explained(qtbot, dialog, "ops/deploy-runbook-2023.md")[0] == "filtered"
    said = "not listed: `-[status:stale]` excludes it, its status is stale"
    assert f"filtered: {said}" in dialog.reasons.text()
    assert said in dialog.text.toPlainText().splitlines()  # the same words as explain's
    # A tag filter the note lacks is named the same way.
    dialog.set_context("deploy tag:ops", replace(SearchOptions(), mode="fts"))
    qtbot.waitUntil(lambda: "tag:ops" in dialog.reasons.text(), timeout=SAFETY_MS)
    assert "filter tag:ops: the note does not have this tag" in dialog.reasons.text()


def test_below_the_depth(
    qtbot: QtBot, open_dialog: Callable[[str, SearchOptions], WhyNotDialog]
) -> None:
    options = replace(SearchOptions(), mode="fts", depth=2, limit=2)
    dialog = open_dialog("deploy", options)
    reasons = explained(qtbot, dialog, "dev/release-notes.md")
    assert "lexical-depth" in reasons and "shown" not in reasons
    assert "lexical-depth: below the depth in the lexical list" in dialog.reasons.text()
    assert dialog.explanation is not None and dialog.explanation.lexical.rank == 4


def test_under_the_vector_floor(
    qtbot: QtBot, open_dialog: Callable[[str, SearchOptions], WhyNotDialog]
) -> None:
    options = replace(SearchOptions(), mode="semantic", min_sim=0.5, min_rel=0.0)
    dialog = open_dialog("deploy runbook", options)
    # The long release note mentions "deploy" once among many words: a low cosine.
    reasons = explained(qtbot, dialog, "dev/release-notes.md")
    assert reasons[0] == "under-floor"
    assert "under-floor: under the vector floor" in dialog.reasons.text()
    e = dialog.explanation
    assert e is not None and e.vector.cosine is not None and e.vector.cosine < 0.5
    # The same note is kept without the floor: the floor is what cuts it.
    dialog.set_context("deploy runbook", replace(options, min_sim=0.0))
    qtbot.waitUntil(
        lambda: dialog.explanation is not None and dialog.explanation.options.min_sim == 0.0,
        timeout=SAFETY_MS,
    )
    assert "under-floor" not in dialog.explanation.reasons


def test_only_stale_demoted(
    qtbot: QtBot, open_dialog: Callable[[str, SearchOptions], WhyNotDialog]
) -> None:
    dialog = open_dialog("deploy", replace(SearchOptions(), mode="fts", limit=1))
    # Its title, "Old deploy", is the query and a word more: a near match, stale still.
    reasons = ["title-near", "stale-demoted"]
    assert explained(qtbot, dialog, "ops/deploy-runbook-2023.md") == reasons
    assert "stale: demoted below the shown hits" in dialog.reasons.text()
    assert "its title or an alias nearly matches the query" in dialog.reasons.text()


def test_one_connection_serves_every_request_of_the_session(
    qtbot: QtBot,
    session: VaultSession,
    open_dialog: Callable[[str, SearchOptions], WhyNotDialog],
) -> None:
    """The notes and every explanation go through the session's reader: one connection and
    one vector matrix, read once, kept when the dialog closes and opens again."""
    dialog = open_dialog("deploy runbook", SearchOptions())
    explained(qtbot, dialog, "ops/deploy-runbook-2023.md")
    matrix = session.reader._vectors
    explained(qtbot, dialog, "dev/release-notes.md")
    dialog.close()
    dialog.show()
    explained(qtbot, dialog, "dev/release-notes.md")
    assert session.reader.opened == 1
    assert matrix is not None and session.reader._vectors is matrix


def test_an_unknown_note_says_so(
    qtbot: QtBot, open_dialog: Callable[[str, SearchOptions], WhyNotDialog]
) -> None:
    dialog = open_dialog("deploy", SearchOptions())
    with qtbot.waitSignal(dialog.failed, timeout=SAFETY_MS):
        dialog.explain_path("no/such.md")
    assert "Cannot explain" in dialog.reasons.text() and "no/such.md" in dialog.reasons.text()


def test_the_picker_finds_a_note_by_letters_of_its_title(
    qtbot: QtBot, open_dialog: Callable[[str, SearchOptions], WhyNotDialog]
) -> None:
    dialog = open_dialog("deploy", SearchOptions())
    with qtbot.waitSignal(  # matched off the GUI thread: the last letter's answer
        dialog.completed, timeout=SAFETY_MS, check_params_cb=lambda labels: len(labels) > 0
    ):
        qtbot.keyClicks(dialog.note_field, "crbru")  # "Crème brûlée": only in the title
    assert dialog.completions.stringList()[0] == "recipes/quarterly-brulee.md — Crème brûlée"
    with qtbot.waitSignal(dialog.explained, timeout=SAFETY_MS):
        qtbot.keyClick(dialog.note_field, "\r")
    assert dialog.explanation is not None
    assert dialog.explanation.path == "recipes/quarterly-brulee.md"
    assert "no-words" in dialog.explanation.reasons


def test_the_search_menu_opens_it_on_the_window_s_query_and_settings(
    qtbot: QtBot, make_window: WindowFactory, indexed: Path, fake_provider: EmbedderProvider
) -> None:
    window = make_window(fake_provider, indexed, watch=False)
    drive(window).set_query("deploy -rollback")
    wait_for_results(qtbot, window, "deploy -rollback")
    action = drive(window).action(Action.WHY_NOT)
    assert action.shortcut().toString() == "Ctrl+Shift+W"
    assert action in next(
        m.menu().actions() for m in window.menuBar().actions() if m.text() == "&Search"
    )
    action.trigger()
    dialog = drive(window).why_not()
    assert dialog is not None and dialog.isVisible()
    assert dialog.query == "deploy -rollback" and dialog.options == drive(window).options()
    qtbot.waitUntil(lambda: dialog.notes_loaded, timeout=SAFETY_MS)
    qtbot.keyClicks(dialog.note_field, "rollbk")
    with qtbot.waitSignal(dialog.explained, timeout=SAFETY_MS):
        qtbot.keyClick(dialog.note_field, "\r")
    assert dialog.explanation is not None and dialog.explanation.path == "ops/rollback.md"
    assert dialog.explanation.reasons[0] == "excluded"


def test_why_here_on_a_hit_explains_that_hit(
    qtbot: QtBot, make_window: WindowFactory, indexed: Path, fake_provider: EmbedderProvider
) -> None:
    window = make_window(fake_provider, indexed, watch=False)
    drive(window).set_query("deploy")
    wait_for_results(qtbot, window, "deploy")
    hit = drive(window).current_hit() or drive(window).data(1, Role.HIT)
    assert isinstance(hit, Hit)
    why = next(a for a in drive(window).hit_menu(hit) if a.text() == "&Why Here?")
    why.trigger()
    dialog = drive(window).why_not()
    assert dialog is not None
    qtbot.waitUntil(
        lambda: dialog.explanation is not None and dialog.explanation.path == hit.path,
        timeout=SAFETY_MS,
    )
    rank = drive(window).rows().index(hit.path) + 1
    assert dialog.explanation.fused.rank == rank and "shown" in dialog.explanation.reasons


@pytest.mark.model
def test_under_the_floor_with_the_real_model(
    qtbot: QtBot, seeded_sample: Path, data_dir: Path, real_provider: EmbedderProvider
) -> None:
    options = replace(SearchOptions(), min_sim=0.3)
    query = "visitors glimpsed outdated stylesheets"
    session = reading_session(qtbot, seeded_sample, data_dir, real_provider)
    dialog = WhyNotDialog(session, query, options)
    qtbot.addWidget(dialog)
    dialog.show()
    try:
        reasons = explained(qtbot, dialog, "recipes/creme-brulee.md")
    finally:
        session.close(wait=True)
    assert "under-floor" in reasons and "no-words" in reasons
    assert "under-floor: under the vector floor" in dialog.reasons.text()
