"""Facets of a result set: tags, folders, property values, with counts and their filters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.answers.facets import (
    Facet,
    Facets,
    facets,
    holds_filter,
    toggled_query,
    with_active,
)

Write = Callable[[str, str | bytes], Path]


def test_facets_count_the_result_sets_tags_folders_and_property_values(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    write("ops/a.md", "---\ntags: [ops]\nstatus: open\n---\n# A\n")
    write("ops/b.md", "---\ntags: [ops, db]\nstatus: In progress\n---\n# B\n")
    write("dev/c.md", "---\nstatus: Open\n---\n# C #db\n")
    write("d.md", "---\nstatus: done\n---\n# D\n")  # not in the result set
    db = open_db(vault)
    sync_vault(db)
    found = facets(db.conn, ["ops/a.md", "ops/b.md", "dev/c.md"])
    assert found.tags == [Facet("db", 2, "tag:db"), Facet("ops", 2, "tag:ops")]
    assert found.folders == [Facet("ops/", 2, "path:ops/"), Facet("dev/", 1, "path:dev/")]
    assert found.properties["status"] == [
        Facet("open", 2, "[status:open]"),
        Facet("in progress", 1, '[status:"in progress"]'),
    ]
    assert "tags" in found.properties  # a list property counts each value


def test_a_folder_counts_the_notes_its_filter_finds_and_one_off_values_are_left_out(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    """ "Plugins/ 5" led to 16 hits (path: takes the subfolders too), and `description`,
    `permalink` and `aliases` listed values that occur once each (issue 46)."""
    notes = {
        "plugins/index.md": "open",
        "plugins/core/backlinks.md": "open",
        "plugins/core/canvas.md": "done",
        "plugins/community/dataview.md": "open",
        "start.md": "done",
    }
    for n, (path, status) in enumerate(notes.items()):
        write(
            path,
            f"---\nstatus: {status}\ndescription: Note number {n}\npermalink: p{n}\n"
            f"aliases: [alias {n}]\n---\n# N{n}\n",
        )
    db = open_db(vault)
    sync_vault(db)
    found = facets(db.conn, list(notes))
    assert found.folders == [
        Facet("plugins/", 4, "path:plugins/"),
        Facet("plugins/core/", 2, "path:plugins/core/"),
        Facet("plugins/community/", 1, "path:plugins/community/"),
    ]
    assert set(found.properties) == {"status"}
    assert found.properties["status"] == [
        Facet("open", 3, "[status:open]"),
        Facet("done", 2, "[status:done]"),
    ]


def test_toggled_query_adds_then_removes_a_filter() -> None:
    assert toggled_query("deploy plan", "[status:open]") == "deploy plan [status:open]"
    assert toggled_query("deploy  [status:open] plan", "[status:open]") == "deploy plan"
    assert toggled_query("", "tag:ops") == "tag:ops"
    assert toggled_query('a [status:"in progress"]', '[status:"in progress"]') == "a"
    assert holds_filter("deploy TAG:Ops", "tag:ops")
    assert not holds_filter("deploy tag:opsx", "tag:ops")


def test_a_filter_is_found_however_the_query_spells_it() -> None:
    """The parser's reading decides, not the spelling: quotes, case, ``""`` for a quote."""
    assert holds_filter('x [Kind:"A]B"] y', '[kind:"a]b"]')
    assert holds_filter("[status:open]", '[status:"open"]')
    assert holds_filter('path:"my notes/"', 'path:"my notes/"')
    assert not holds_filter('"path:my notes/"', 'path:"my notes/"')  # a phrase, no filter
    assert not holds_filter("-[status:open]", "[status:open]")
    # Spaces inside a quoted value are the value's: only those around the cut go.
    assert toggled_query('a  path:"x  y/"  [k:v]  b', "[k:v]") == 'a  path:"x  y/" b'
    assert toggled_query('say [k:"a ""b"""]', '[k:"a ""b"""]') == "say"


def test_an_active_filter_no_note_shown_has_is_still_listed() -> None:
    found = Facets([Facet("ops", 2, "tag:ops")], [], {})
    shown = with_active(found, 'plan tag:ops path:"my notes/" [kind:"a]b"] [due:>2024]')
    assert shown.tags == [Facet("ops", 2, "tag:ops")]
    assert shown.folders == [Facet("my notes/", 0, 'path:"my notes/"')]
    assert shown.properties == {"kind": [Facet("a]b", 0, '[kind:"a]b"]')]}
