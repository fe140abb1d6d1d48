"""The lexical list's order is bm25 then path, also where FTS5 sorts the matches itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.lexical import PASSES, lexical_list
from explorer.search.query import parse_query

Write = Callable[[str, str | bytes], Path]


def test_ties_are_ordered_by_path_even_across_the_cut_off(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    # Written in reverse order, so rowids run against the paths: FTS5 alone would order the
    # tied notes z..a.  Identical bodies tie exactly in bm25.
    for name in "zyxwvutsrq":
        write(f"{name}.md", "# Same\n\nalpha beta gamma\n")
    write("best.md", "# Alpha beta\n\nalpha beta alpha beta\n")
    db = open_db(vault)
    sync_vault(db)
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
