"""Recent and saved searches: per vault, beside its index, kept, never in the vault."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.index.db import index_path
from explorer.search.answers.saved import MAX_RECENT, SearchStore, searches_file
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import MAX_QUERY_CHARS, QueryError


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


def _sound_store(path: Path, **fields: object) -> None:
    """A store file of the current version with one saved search, and ``fields`` on top."""
    data = {
        "version": 1,
        "recent": [{"query": "garden", "options": {}}],
        "saved": {"kept": {"query": "[status:open]", "options": {"mode": "fts"}}},
        **fields,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("fields", "dropped"),
    [
        ({"recent": 5}, "'recent' (a int, not a list)"),
        ({"recent": True}, "'recent' (a bool, not a list)"),
        ({"saved": [1, 2]}, "'saved' (a list, not an object)"),
        ({"recent": [{"query": 7}, "x", {"query": "ok", "options": {"k": "many"}}]}, "no query"),
    ],
)
def test_a_wrongly_typed_field_is_dropped_and_said_once_the_rest_kept(
    vault: Path, data_dir: Path, fields: dict[str, object], dropped: str
) -> None:
    path = searches_file(vault, data_dir)
    _sound_store(path, **fields)
    store = SearchStore.of(vault, data_dir)
    problems = store.take_problems()
    assert len(problems) == 1 and dropped in problems[0] and str(path) in problems[0]
    assert store.take_problems() == []  # said once
    if "saved" not in fields:
        assert store.get("kept").options.mode == "fts"  # the rest is kept
    store.repair()  # the command line and the window repair what they read
    again = SearchStore.of(vault, data_dir)
    assert again.take_problems() == []  # the next process has nothing to say
    assert again.saved() == store.saved() and again.recent() == store.recent()


def test_a_bad_setting_drops_the_setting_not_the_search(vault: Path, data_dir: Path) -> None:
    path = searches_file(vault, data_dir)
    options = {"mode": "fts", "k": "many", "limit": 10**100}
    _sound_store(path, saved={"tuned": {"query": "plan", "options": options}})
    store = SearchStore.of(vault, data_dir)
    (problem,) = store.take_problems()
    assert "the setting k" in problem and "the setting limit" in problem
    assert store.get("tuned").options == SearchOptions(mode="fts")


def test_deep_or_huge_files_are_refused_before_parsing_and_moved_aside(
    vault: Path, data_dir: Path
) -> None:
    path = searches_file(vault, data_dir)
    path.parent.mkdir(parents=True)
    deep = 100_000
    path.write_text('{"version": 1, "recent": ' + "[" * deep + "]" * deep + "}")
    store = SearchStore.of(vault, data_dir)  # json.loads alone: RecursionError
    (problem,) = store.take_problems()
    assert "nested deeper than" in problem and store.recent() == []
    store.save("new", "plan", SearchOptions())
    assert path.with_name(path.name + ".broken").stat().st_size > 2 * deep
    assert list(SearchStore.of(vault, data_dir).saved()) == ["new"]


def test_a_window_open_meanwhile_loses_nothing_the_command_line_saved(
    vault: Path, data_dir: Path
) -> None:
    window = SearchStore.of(vault, data_dir)  # opened with the vault, before the save
    window.remember("garden", SearchOptions())
    cli = SearchStore.of(vault, data_dir)
    cli.save("keepme", "[status:open] plan", SearchOptions(mode="fts"))
    window.remember("orchard", SearchOptions())  # Enter in the window
    window.stage_save("mine", "tag:book", SearchOptions())
    window.flush()
    after = SearchStore.of(vault, data_dir)
    assert list(after.saved()) == ["keepme", "mine"]
    assert [r.query for r in after.recent()] == ["orchard", "garden"]
    assert list(window.saved()) == ["keepme", "mine"]  # the window sees the CLI's too


_WRITER = """
import sys
from pathlib import Path
from explorer.search.query.options import SearchOptions
from explorer.search.answers.saved import SearchStore
store, who, count = SearchStore(Path(sys.argv[1])), sys.argv[2], int(sys.argv[3])
for i in range(count):
    store.save(f"{who}-{i}", f"query {who} {i}", SearchOptions())
    store.remember(f"recent {who} {i}", SearchOptions())
    if i == 1:
        store.delete(f"{who}-0")
"""


def test_two_processes_saving_and_remembering_at_once_lose_nothing(
    vault: Path, data_dir: Path
) -> None:
    path = searches_file(vault, data_dir)
    count = 20
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), who, str(count)])
        for who in ("a", "b")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    store = SearchStore.of(vault, data_dir)
    names = {f"{who}-{i}" for who in "ab" for i in range(1, count)}
    assert set(store.saved()) == names
    recent = {r.query for r in store.recent()}
    assert recent == {f"recent {who} {i}" for who in "ab" for i in range(count)}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # owner only, whatever the umask


def test_a_query_refused_as_too_long_is_not_saved(vault: Path, data_dir: Path) -> None:
    store = SearchStore.of(vault, data_dir)
    with pytest.raises(QueryError, match="the limit is"):
        store.save("toolong", "x" * (MAX_QUERY_CHARS + 1), SearchOptions())
    assert SearchStore.of(vault, data_dir).saved() == {}
