"""Finding a note by a few letters of its path or title (explorer.search.explain.notes_lookup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.explain.notes_lookup import NoteRef, fuzzy_score, lookup, notes
from tests.sample_vault_facts import VAULT as SAMPLE_VAULT

NOTES = [
    NoteRef("ops/deploy-runbook.md", "Deploy runbook"),
    NoteRef("ops/deploy-runbook-2023.md", "Deploy runbook (2023)"),
    NoteRef("dev/python-exceptions-style.md", "How we raise and handle exceptions"),
    NoteRef("dev/pydantic-v2-migration.md", "Pydantic v2 migration notes"),
    NoteRef("recipes/creme-brulee.md", "Crème brûlée"),
    NoteRef("ops/restore-drill.md", "Quarterly restore drill"),
    NoteRef("travel/sao-paulo.md", "São Paulo"),
]


def paths(pattern: str, limit: int = 20) -> list[str]:
    return [m.note.path for m in lookup(pattern, NOTES, limit)]


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("dpl", "deploy"), ("OPS/", "ops/x.md"), ("d r", "deploy-runbook"), ("a", "a")],
)
def test_letters_in_order_match(pattern: str, text: str) -> None:
    assert fuzzy_score(pattern, text) is not None


@pytest.mark.parametrize(
    ("pattern", "text"), [("ldp", "deploy"), ("", "deploy"), ("   ", "x"), ("toolong", "tool")]
)
def test_missing_or_out_of_order_letters_do_not(pattern: str, text: str) -> None:
    assert fuzzy_score(pattern, text) is None


def test_a_contiguous_run_beats_scattered_letters() -> None:
    run = fuzzy_score("run", "xx-runbook")
    scattered = fuzzy_score("run", "rxuxnxxxxx")
    assert run is not None and scattered is not None
    assert run[0] > scattered[0]
    assert run[1] == (3, 4, 5)


def test_the_start_of_a_segment_beats_the_middle_of_a_word() -> None:
    start = fuzzy_score("dr", "ops/restore-drill")  # d-r at "drill"
    middle = fuzzy_score("dr", "hydrant")
    assert start is not None and middle is not None
    assert start[0] > middle[0]
    assert start[1] == (12, 13)


def test_the_initials_of_segments_find_a_note() -> None:
    assert paths("dpem")[0] == "dev/python-exceptions-style.md"
    assert paths("pvm")[0] == "dev/pydantic-v2-migration.md"


def test_a_title_match_is_found_and_said() -> None:
    # "quarterly" is only in the title
    (match,) = lookup("quartr", NOTES)
    assert match.note.path == "ops/restore-drill.md" and match.on == "title"


def test_best_first_shorter_path_on_a_tie_and_limited() -> None:
    assert paths("deploy runbook") == ["ops/deploy-runbook.md", "ops/deploy-runbook-2023.md"]
    assert paths("e", limit=3) == paths("e")[:3] and len(paths("e", limit=3)) == 3


def test_nothing_typed_finds_nothing() -> None:
    assert lookup("", NOTES) == []
    assert lookup("zzzz", NOTES) == []


def test_the_label_adds_the_title_when_it_says_more() -> None:
    assert NoteRef("ops/cdn-purge.md", "CDN purge").label == "ops/cdn-purge.md"
    assert NoteRef("ops/backups.md", "Nightly backups").label == "ops/backups.md — Nightly backups"


def test_the_notes_of_an_index(tmp_path: Path) -> None:
    db = IndexDB.open(SAMPLE_VAULT, tmp_path / "data")
    try:
        sync_vault(db)
        found = notes(db.conn)
    finally:
        db.close()
    by_path = {n.path: n.title for n in found}
    assert by_path["ops/backups.md"] == "Nightly backups"
    assert lookup("nightly bak", found)[0].note.path == "ops/backups.md"
