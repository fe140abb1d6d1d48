"""Lexical coverage weighed by each word's rarity in the vault (issue 33)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.index.db import IndexDB
from explorer.search.fusion import evidence
from explorer.search.fusion.fusion import lexical_coverage
from explorer.search.fusion.hybrid import Searcher
from explorer.search.lists.lexical import PASSES
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]


def test_rarity_zero_is_the_plain_share() -> None:
    cal = replace(evidence.CALIBRATION, rarity=0.0, absent_terms=True)
    held = {"a.md": (0,), "b.md": (0, 2), "c.md": ()}
    covered = evidence.weighted_coverage(held, (30, 2, 1), 100, cal)
    assert covered == pytest.approx({"a.md": 1 / 3, "b.md": 2 / 3, "c.md": 0.0})


def test_the_rare_word_outweighs_the_common_ones() -> None:
    """A note holding only the vault's common words is weak evidence, one holding the rare
    word strong, whatever the count of words each holds."""
    cal = replace(evidence.CALIBRATION, rarity=1.0)
    # "settings" in 40 of 100 notes, "stored" in 30, "disk" in 2.
    held = {"common.md": (0, 1), "rare.md": (2,)}
    covered = evidence.weighted_coverage(held, (40, 30, 2), 100, cal)
    assert covered["rare.md"] > 0.5 > covered["common.md"]
    assert sum(covered.values()) == pytest.approx(1.0)


def test_a_word_no_note_holds_counts_only_if_asked() -> None:
    held = {"a.md": (0,)}
    counted = evidence.weighted_coverage(held, (5, 0), 50, replace(evidence.CALIBRATION))
    assert counted["a.md"] < 1.0
    cal = replace(evidence.CALIBRATION, absent_terms=False)
    assert evidence.weighted_coverage(held, (5, 0), 50, cal) == {"a.md": 1.0}


def test_candidates_carry_what_weighs_the_coverage(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """The candidates keep each any-word note's words and how many notes hold each word, so
    that a change of the calibration re-fuses them without searching again."""
    for i in range(6):
        write(f"common{i}.md", f"# Common {i}\n\nThe settings are stored here.\n")
    write("rare.md", "# Rare\n\nA JSON file on disk.\n")
    searcher = build_index(open_db(vault), None)
    found = searcher.candidates("settings stored disk", SearchOptions(mode="fts"))
    any_word = {p for p, t in found.lexical_tiers.items() if PASSES[t] == "any word"}
    assert any_word == set(found.lexical_held) == {*(f"common{i}.md" for i in range(6)), "rare.md"}
    assert found.term_notes == (6, 6, 1) and found.note_count == 7
    assert found.lexical_held["rare.md"] == (2,)
    assert found.lexical_held["common0.md"] == (0, 1)
    plain = found.lexical_coverage
    assert plain["rare.md"] == pytest.approx(1 / 3)
    assert plain["common0.md"] == pytest.approx(2 / 3)
    saved = evidence.CALIBRATION
    try:
        evidence.CALIBRATION = replace(saved, rarity=1.0)
        weighed = lexical_coverage(found)
    finally:
        evidence.CALIBRATION = saved
    assert weighed["rare.md"] > weighed["common0.md"]


def test_searcher_without_any_word_notes_counts_nothing(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nsettings stored disk\n")
    searcher: Searcher = build_index(open_db(vault), None)
    found = searcher.candidates("settings stored disk", SearchOptions(mode="fts"))
    assert found.lexical_held == {} and found.term_notes == ()


def test_each_model_weighs_words_by_the_rarity_chosen_for_it() -> None:
    """Issue 44: all-MiniLM-L6-v2's searches weigh a word by its whole idf (the English sets'
    dev halves chose it); multilingual-e5-small's by its square root (the translated sets')."""
    held = {"common.md": (0, 1), "rare.md": (2,)}
    english = evidence.weighted_coverage(
        held, (40, 30, 2), 100, evidence.calibration_for("all-MiniLM-L6-v2")
    )
    e5 = evidence.weighted_coverage(
        held, (40, 30, 2), 100, evidence.calibration_for("multilingual-e5-small")
    )
    assert evidence.calibration_for("all-MiniLM-L6-v2").rarity == 1.0
    assert evidence.calibration_for("multilingual-e5-small").rarity == 0.5
    assert english["rare.md"] > 0.5 > e5["rare.md"]
