"""The any-word pass's pruning: FTS5's own list, from scoring only the notes that can be in it."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.lists import bm25
from explorer.search.lists.bm25 import top_of_any
from tests.search.lists.helpers import CLAMPED, by_score, reference, zipf_notes

Write = Callable[[str, str | bytes], Path]

#: The notes a scoring statement ranks are filtered by an expression of this form.
_AMONG = re.compile(
    r"\+notes_fts\.rowid IN \(SELECT rowid FROM notes_fts WHERE notes_fts MATCH '((?:[^']|'')*)'\)"
)


def _zipf_vault(write: Write, vault: Path, open_db: Callable[[Path], IndexDB]) -> IndexDB:
    """Notes of words from common to rare (:func:`zipf_notes`), indexed."""
    zipf_notes(write, random.Random(7))
    db = open_db(vault)
    sync_vault(db)
    return db


def _queries(count: int) -> list[list[str]]:
    rng = random.Random(11)
    words = [f"w{i}" for i in range(60)]
    return [
        [f'"{w}"' for w in dict.fromkeys(rng.choices(words, k=rng.randint(4, 10)))]
        for _ in range(count)
    ]


def _assert_fts5s_own(db: IndexDB, parts: list[str], limit: int) -> list[tuple[int, float]]:
    """``top_of_any`` of ``parts``, checked against FTS5 ranking every match itself."""
    expected = reference(db, " OR ".join(parts), limit)
    got = top_of_any(db.conn, parts, limit, shortcut_matches=0)
    assert [s for s, _ in by_score(got)] == pytest.approx(
        [s for s, _ in by_score(expected)], abs=CLAMPED
    )
    cut = expected[-1][1] if expected else 0.0
    assert {i for i, s in got if abs(s - cut) > CLAMPED} == {
        i for i, s in expected if abs(s - cut) > CLAMPED
    }
    return got


def _notes(db: IndexDB, expression: str) -> int:
    return int(
        db.conn.execute(
            "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (expression,)
        ).fetchone()[0]
    )


def test_only_notes_whose_words_can_add_up_to_the_worst_kept_score_are_scored(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    # A note holding a rarer word scores no more than the most its words can add: when that
    # falls short of the worst score kept, it is not scored, whatever word it holds.
    db = _zipf_vault(write, vault, open_db)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    scored = holding = 0
    for parts in _queries(40):
        for limit in (5, 21):
            statements.clear()
            _assert_fts5s_own(db, parts, limit)
            for statement in statements:
                for among in _AMONG.findall(statement):
                    among = among.replace("''", "'")
                    scored += _notes(db, among)
                    # Every note holding one of the words the filter names: what it narrows.
                    words = dict.fromkeys(re.findall(r'"(?:[^"]|"")*"', among))
                    holding += _notes(db, " OR ".join(words))
    assert holding > 0, "the pruning was never taken"
    assert scored < 0.9 * holding


@pytest.mark.parametrize("guess", [0.05, 0.5, 1.0])
def test_a_first_guess_too_low_or_too_high_gives_the_same_list(
    write: Write,
    vault: Path,
    open_db: Callable[[Path], IndexDB],
    monkeypatch: pytest.MonkeyPatch,
    guess: float,
) -> None:
    # Too low, more notes are scored; too high, fewer than the list's length reach the guess
    # and the query runs again from the worst score found: the list is the same.
    db = _zipf_vault(write, vault, open_db)
    monkeypatch.setattr(bm25, "FIRST_GUESS", guess)
    monkeypatch.setattr(bm25, "LONG_GUESS", guess)
    for parts in _queries(25):
        for limit in (1, 5, 21, 51):
            _assert_fts5s_own(db, parts, limit)
