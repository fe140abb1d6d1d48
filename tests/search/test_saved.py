"""Recent and saved searches: per vault, beside its index, kept, never in the vault."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.index.db import index_path
from explorer.search.options import SearchOptions
from explorer.search.query import QueryError
from explorer.search.saved import MAX_RECENT, SearchStore, searches_file


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_saved_and_recent_searches_survive_a_restart_and_never_touch_the_vault(
    vault: Path, data_dir: Path
) -> None:
    (vault / "a.md").write_text("# A\n")
    before = _snapshot(vault)
    store = SearchStore.of(vault, data_dir)
    tuned = SearchOptions(fusion="rrf", k=30.0, w_fts=0.4, sort="modified")
    store.save("open books", "[status:open] tag:book", tuned)
    store.remember("garden", SearchOptions())
    store.remember("[due:<2025]", SearchOptions(mode="fts"))

    again = SearchStore.of(vault, data_dir)  # a new process reads the same file
    assert again.get("open books").query == "[status:open] tag:book"
    assert again.get("open books").options == tuned
    assert [r.query for r in again.recent()] == ["[due:<2025]", "garden"]
    assert again.recent()[0].options.mode == "fts"
    assert _snapshot(vault) == before  # nothing written in the vault
    path = searches_file(vault, data_dir)
    assert path.parent == index_path(vault, data_dir).parent and path.exists()


def test_recent_queries_are_bounded_and_each_once(vault: Path, data_dir: Path) -> None:
    store = SearchStore.of(vault, data_dir)
    for i in range(MAX_RECENT + 5):
        store.remember(f"q{i}", SearchOptions())
    store.remember("q10", SearchOptions())
    store.remember("  ", SearchOptions())
    recent = [r.query for r in SearchStore.of(vault, data_dir).recent()]
    assert len(recent) == MAX_RECENT and recent[0] == "q10" and recent.count("q10") == 1


def test_delete_names_and_a_damaged_file(vault: Path, data_dir: Path) -> None:
    store = SearchStore.of(vault, data_dir)
    store.save("b", "beta", SearchOptions())
    store.save("A", "alpha", SearchOptions())
    assert list(store.saved()) == ["A", "b"]
    assert store.delete("b") and not store.delete("b")
    with pytest.raises(QueryError, match="no saved search named 'b' \\(saved: A\\)"):
        store.get("b")
    with pytest.raises(QueryError, match="needs a name"):
        store.save(" ", "x", SearchOptions())
    searches_file(vault, data_dir).write_text("{not json")
    damaged = SearchStore.of(vault, data_dir)
    assert damaged.saved() == {} and damaged.recent() == []
    damaged.save("c", "gamma", SearchOptions())
    assert list(SearchStore.of(vault, data_dir).saved()) == ["c"]
