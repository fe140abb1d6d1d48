"""Facets of a result set: tags, folders, property values, with counts and their filters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.facets import Facet, facets

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
