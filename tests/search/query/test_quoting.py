"""One rule writes a filter's value into a query; the parser reads back exactly that value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.index.text import INVISIBLE
from explorer.search.answers.facets import facets
from explorer.search.query.query import parse_query
from explorer.search.query.quoting import filter_text, quoted, unquoted
from explorer.vault.properties import normalize_tag
from tests.search.helpers import filter_clause

Write = Callable[[str, str | bytes], Path]

#: Values a folder, tag or property may hold: any printable text (control characters are
#: spaces in a query, the invisible ones are dropped from it: neither is in a filter).
VALUES = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters=INVISIBLE),
    min_size=1,
    max_size=30,
)
HOSTILE = ["my notes/", "a]b", 'say "hi"', '"', '""', "a:b", "[x]", "-[y]", "Ärger über", "日本語",
           " lead", "trail ", "OR", "x*", "#tag", "./dot", "back\\slash", "tag:ops", "a\tb",
           "line\nbreak", '" OR "', "]", "[", ">3", "=x"]  # fmt: skip


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_read_back_as_written(value: str) -> None:
    _reads_back(value)


@given(VALUES)
@settings(max_examples=300, deadline=None)
def test_any_value_reads_back_as_written(value: str) -> None:
    _reads_back(value)


def _reads_back(value: str) -> None:
    assert unquoted(quoted(value)) == value
    path = parse_query(f"words {filter_text('path', value)} more")
    assert path.paths == [value] and [t.text for t in path.terms] == ["words", "more"]
    tag = parse_query(filter_text("tag", value))
    assert tag.tags == [normalize_tag(value)] and not tag.terms
    if value.strip():
        prop = parse_query(f"{filter_text('property', value, 'kind')} x")
        assert [(p.key, p.op, p.value) for p in prop.properties] == [("kind", "=", value.strip())]
        assert prop.notes == [] and [t.text for t in prop.terms] == ["x"]
        name = parse_query(filter_text("property", "v", value))
        assert [p.key for p in name.properties] == [value.strip().casefold()]
    link = parse_query(filter_text("linkto", value))
    assert link.links_to == ([value.strip()] if value.strip() else [])


def test_a_plain_word_is_written_bare() -> None:
    assert filter_text("tag", "ops") == "tag:ops"
    assert filter_text("path", "dev/notes/") == "path:dev/notes/"
    assert filter_text("path", "my notes/") == 'path:"my notes/"'
    assert filter_text("property", "a]b", "kind") == '[kind:"a]b"]'
    assert filter_text("property", 'say "hi"', "k") == '[k:"say ""hi"""]'


def _kept(db: IndexDB, raw: str) -> set[str]:
    query = parse_query(raw)
    assert query.notes == []
    where, params = filter_clause(query)
    return {str(p) for (p,) in db.conn.execute(f"SELECT n.path FROM notes n WHERE {where}", params)}


def test_every_facet_written_finds_its_notes(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    """The filter of each facet, as the Facets panel writes it, keeps exactly the notes the
    facet counts: a folder with a space, a value holding ``]``, quotes or ``:`` (two notes
    share ``a]b`` and the quoted word: a property whose values each occur once is no facet)."""
    for i in range(3):
        write(f"my notes/n{i}.md", "# N\n")
    for name in ("a", "a2"):
        write(f"plain/{name}.md", "---\nkind: 'a]b'\nsay: 'a \"quoted\" word'\n---\n# A\n")
    write("plain/b.md", "---\nkind: 'x: y'\ntags: [\"two words\"]\n---\n# B\n")
    write("Ärger über/c.md", "---\nkind: Ünïcode\n---\n# C\n")
    db = open_db(vault)
    sync_vault(db)
    paths = [str(p) for (p,) in db.conn.execute("SELECT path FROM notes")]
    found = facets(db.conn, paths)
    every = [*found.tags, *found.folders, *(f for v in found.properties.values() for f in v)]
    assert 'path:"my notes/"' in [f.filter for f in every]
    assert '[kind:"a]b"]' in [f.filter for f in every]
    assert '[say:"a ""quoted"" word"]' in [f.filter for f in every]
    for facet in every:
        assert len(_kept(db, facet.filter)) == facet.count, facet
