"""The lexical list's order is bm25 then path, also where FTS5 sorts the matches itself."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.lists import bm25, lexical
from explorer.search.lists.bm25 import top_by_bm25, top_of_any
from explorer.search.lists.lexical import PASSES, lexical_list
from explorer.search.query.query import parse_query
from tests.search.lists.helpers import CLAMPED, by_score, reference, zipf_notes

Write = Callable[[str, str | bytes], Path]


def _tied_notes(write: Write, vault: Path, open_db: Callable[[Path], IndexDB]) -> IndexDB:
    """Ten notes that tie exactly in bm25 (identical bodies), q.md..z.md, and best.md above
    them; written in reverse order, so rowids run against the paths: FTS5 alone would order
    the tied notes z..q."""
    for name in "zyxwvutsrq":
        write(f"{name}.md", "# Same\n\nalpha beta gamma\n")
    write("best.md", "# Alpha beta\n\nalpha beta alpha beta\n")
    db = open_db(vault)
    sync_vault(db)
    return db


def test_ties_are_ordered_by_path_even_across_the_cut_off(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    db = _tied_notes(write, vault, open_db)
    query = parse_query("alpha beta")
    for depth in (1, 3, 5, 11, 20):
        paths = [h.path for h in lexical_list(db.conn, query, depth)]
        expected = ["best.md", *[f"{c}.md" for c in "qrstuvwxyz"]][:depth]
        assert paths == expected, depth


def test_filtered_and_unfiltered_lists_agree(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a/one.md", "# One\n\nalpha beta\n")
    write("a/two.md", "# Two\n\nalpha alpha beta gamma delta\n")
    write("b/three.md", "# Three\n\nalpha\n")
    db = open_db(vault)
    sync_vault(db)
    everything = lexical_list(db.conn, parse_query("alpha beta"), 10)
    under_a = lexical_list(db.conn, parse_query("alpha beta path:a/"), 10)
    in_a = [h for h in everything if h.path.startswith("a/")]
    assert [(h.path, h.score, h.snippet) for h in under_a] == [
        (h.path, h.score, h.snippet) for h in in_a
    ]


def test_each_hit_carries_the_pass_that_found_it(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("phrase.md", "# One\n\nthe cache purge failed\n")
    write("words.md", "# Two\n\npurge the whole cache, then it failed\n")
    write("any.md", "# Three\n\npurge purge purge purge\n")
    db = open_db(vault)
    sync_vault(db)
    hits = lexical_list(db.conn, parse_query("cache purge failed"), 10)
    assert [(h.path, PASSES[h.tier]) for h in hits] == [
        ("phrase.md", "phrase"),
        ("words.md", "all words"),
        ("any.md", "any word"),
    ]
    # One word is no phrase, and its any-word pass would repeat the all-words one: one pass.
    (only,) = lexical_list(db.conn, parse_query("whole"), 10)
    assert PASSES[only.tier] == "all words"


def test_the_any_word_shortcut_ranks_as_fts5_does(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    # Words from common (in most notes) to rare (in a few): the any-word pass of a question
    # mixes both, and scoring only the notes with a rarer word must give the same list.
    rng = random.Random(7)
    words = zipf_notes(write, rng)
    db = open_db(vault)
    sync_vault(db)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    checked = 0
    for _ in range(40):
        parts = [f'"{w}"' for w in dict.fromkeys(rng.choices(words, k=rng.randint(2, 8)))]
        expression = " OR ".join(parts)
        for limit in (1, 5, 21, 51):
            expected = reference(db, expression, limit)
            statements.clear()
            got = top_of_any(db.conn, parts, limit, shortcut_matches=0)
            # The same scores (but for the terms in half the notes or more, matched and not
            # scored: next to nothing); at a tie FTS5 and SQLite may keep different notes.
            scores = [s for s, _ in by_score(got)]
            assert scores == pytest.approx([s for s, _ in by_score(expected)], abs=CLAMPED)
            cut = expected[-1][1] if expected else 0.0
            assert {i for i, s in got if abs(s - cut) > CLAMPED} == {
                i for i, s in expected if abs(s - cut) > CLAMPED
            }
            checked += any("+notes_fts.rowid IN" in s for s in statements)
    assert checked > 40, "the shortcut was hardly ever taken"


def test_the_top_of_a_pass_is_fts5s_own(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    for n, body in enumerate(["alpha beta", "alpha alpha gamma", "beta", "alpha beta gamma"]):
        write(f"{n}.md", f"# Note {n}\n\n{body}\n")
    db = open_db(vault)
    sync_vault(db)
    for expression in ('"alpha"', '"alpha" AND "beta"', '"alpha" OR "gamma"', '"alpha beta"'):
        for limit in (1, 2, 10):
            got = top_by_bm25(db.conn, expression, limit)
            assert by_score(got) == by_score(reference(db, expression, limit))


def test_no_phrase_pass_where_no_note_holds_every_word(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    write("a.md", "# A\n\nthe cache purge failed\n")
    write("b.md", "# B\n\npurge it\n")
    db = open_db(vault)
    sync_vault(db)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    hits = lexical_list(db.conn, parse_query("cache purge failed"), 10)
    assert [(h.path, PASSES[h.tier]) for h in hits] == [("a.md", "phrase"), ("b.md", "any word")]
    assert any('"cache purge failed"' in s for s in statements)
    statements.clear()
    # No note holds "never": no note can hold the phrase either, and it is not searched.
    hits = lexical_list(db.conn, parse_query("purge never failed"), 10)
    assert {h.path for h in hits} == {"a.md", "b.md"}
    assert all(PASSES[h.tier] == "any word" for h in hits)
    assert not any('"purge never failed"' in s for s in statements)


def test_coverage_is_the_same_read_whole_or_looked_up(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(3)
    words = [f"w{i}" for i in range(30)]
    weights = [1 / (i + 1) for i in range(len(words))]
    for n in range(200):
        write(f"n{n:03}.md", f"# N{n}\n\n{' '.join(rng.choices(words, weights, k=20))}\n")
    db = open_db(vault)
    sync_vault(db)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    query = parse_query("w0 w3 w11 w29 w17")

    def listed(lookup_per_note: int) -> list[tuple[str, float, float]]:
        monkeypatch.setattr(lexical, "LOOKUP_PER_NOTE", lookup_per_note)
        monkeypatch.setattr(bm25, "ANY_WORD_SHORTCUT_MATCHES", 0)  # count every term
        statements.clear()
        return [(h.path, h.score, h.coverage) for h in lexical_list(db.conn, query, 20)]

    read_whole = listed(10**9)
    assert not any(" rowid IN" in s and "+rowid IN" not in s for s in statements)
    looked_up = listed(0)
    assert any(" rowid IN" in s and "+rowid IN" not in s for s in statements)
    assert looked_up == read_whole
    assert len({c for _, _, c in read_whole}) > 1  # partial coverages, not all 1


def test_a_tie_across_the_cut_off_is_settled_by_more_rows_not_by_every_match(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _tied_notes(write, vault, open_db)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    query = parse_query("alpha")
    expected = ["best.md", "q.md", "r.md"]  # the tied notes by path, whatever their rowids
    assert [h.path for h in lexical_list(db.conn, query, 3)] == expected
    assert not any("JOIN notes n" in s for s in statements)  # no pass read every match's note
    statements.clear()
    monkeypatch.setattr(lexical, "TIE_ROWS", 4)  # more rows than that: the plain query
    assert [h.path for h in lexical_list(db.conn, query, 3)] == expected
    assert any("JOIN notes n" in s for s in statements)


def test_stop_words_in_half_the_notes_or_more_rank_nothing_and_are_not_counted_again(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """bm25 gives such a word an idf of 1e-6: the all-words pass ranks by the other words, and
    its notes are counted once, not at each query."""
    rng = random.Random(7)
    words = ["cache", "purge", "queue", "worker", "shard", "index"]
    for n in range(60):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(3, 30)))
        the = " the" * rng.randint(0, 5) if n % 3 else ""  # in 40 of the 60 notes
        write(f"n{n:02}.md", f"# Note {n}\n\n{body}{the}\n")
    db = open_db(vault)
    sync_vault(db)
    query = parse_query("the cache purge")
    counted = db.term_counts.current(db.conn)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    hits = lexical_list(db.conn, query, 50, counted=counted)
    db.conn.set_trace_callback(None)
    all_words = [h for h in hits if PASSES[h.tier] == "all words"]
    assert all_words
    plain = dict(reference(db, query.fts_all() or "", 50))
    for hit in all_words:
        assert abs(hit.score + plain[hit.note_id]) < 1e-5
    scored = [s for s in statements if "bm25" in s and '"cache" AND "purge"' in s]
    assert scored and all('"the"' not in s.split("+notes_fts.rowid")[0] for s in scored)
    statements.clear()
    db.conn.set_trace_callback(statements.append)
    assert lexical_list(db.conn, query, 50, counted=db.term_counts.current(db.conn)) == hits
    assert not [s for s in statements if "count(*)" in s]
    db.conn.set_trace_callback(None)
    # A filtered search (its own statement) leaves them unscored too: the same scores.
    filtered = lexical_list(db.conn, parse_query("the cache purge path:n1"), 50)
    in_n1 = [h for h in hits if h.path.startswith("n1") and PASSES[h.tier] == "all words"]
    assert in_n1
    assert [(h.path, h.score) for h in filtered if PASSES[h.tier] == "all words"] == [
        (h.path, h.score) for h in in_n1
    ]
