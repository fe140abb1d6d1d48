"""``vault-explorer search``: the JSON and the table, the sync before a search, the vectors
embedded first or not."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed import provider as provider_module
from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import IndexDB
from explorer.search.answers.answer import EMBED_BEFORE_SEARCH
from explorer.search.answers.saved import searches_file
from explorer.search.query.query import MAX_QUERY_CHARS
from tests.commands.helpers import modules_after, run_program

Write = Callable[[str, str | bytes], Path]


def test_index_then_search_json_in_spec_shape(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(notes), "--no-embed"]) == 0
    out = capsys.readouterr()
    assert "2 added" in out.out
    assert "bad.md" in out.err and "binary" in out.err
    assert (
        main(["search", str(notes), "purged deploy", "--mode", "fts", "--json", "--no-sync"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "fts"
    (hit,) = data["hits"]
    assert hit["noteId"] == "ops/cdn.md" and hit["ftsRank"] == 1 and hit["vectorRank"] is None
    assert "<mark>purged</mark>" in hit["snippet"]
    assert sum(hit["contributions"].values()) == pytest.approx(hit["fusedScore"])


def test_table_shows_five_decimals_and_dashes(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(notes), "cache", "--mode", "fts"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "ops/cdn.md" in line)
    # the best of the all-words pass: evidence 0.9, at full weight (one list fuses nothing)
    first = f"{0.9:.5f}"
    assert first in row and "0.00000" in row and "—" in row and "CDN purge" in row


def test_no_sync_without_an_index_is_a_clear_error(notes: Path) -> None:
    proc = run_program("search", str(notes), "x", "--no-sync")
    assert proc.returncode == 2 and "no index" in proc.stderr


def test_hybrid_without_a_model_says_so_and_returns_lexical(notes: Path) -> None:
    proc = run_program("search", str(notes), "cache purged", "--json", "--model", "/no/such/model")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["semantic"]["available"] is False
    assert "/no/such/model" in data["semantic"]["reason"] or "model" in data["semantic"]["reason"]
    assert [h["source"] for h in data["hits"]] == ["fts"]


def _fake_model(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    fake = FakeEmbedder(name="fakemodel")
    monkeypatch.setitem(provider_module._SHARED, "fakemodel", EmbedderProvider.of(fake))
    return fake


def _many_notes(vault: Path, count: int, prefix: str = "n") -> None:
    for i in range(count):
        (vault / f"{prefix}{i:03}.md").write_text(
            f"# Topic {prefix} {i}\n\nA note about deploys, number {i} ({i * 7919 % 1000}).\n"
        )


def _vectors(vault: Path, data_dir: Path, model: str) -> int:
    db = IndexDB.open_existing(vault, data_dir)
    try:
        return int(
            db.conn.execute("SELECT count(*) FROM vectors WHERE model = ?", (model,)).fetchone()[0]
        )
    finally:
        db.close()


def test_search_embeds_a_small_backlog_before_answering(
    vault: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_model(monkeypatch)
    _many_notes(vault, EMBED_BEFORE_SEARCH)
    assert main(["index", str(vault), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["search", str(vault), "deploys", "--json", "--model", "fakemodel"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["semantic"]["available"] is True and data["semantic"]["pending"] == 0
    assert _vectors(vault, data_dir, "fakemodel") == EMBED_BEFORE_SEARCH
    assert "waiting for embeddings" not in out.err


def test_search_answers_lexically_over_a_large_backlog_and_says_so(
    vault: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = _fake_model(monkeypatch)
    backlog = EMBED_BEFORE_SEARCH + 1
    _many_notes(vault, backlog)
    assert main(["index", str(vault), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["search", str(vault), "deploys", "--json", "--model", "fakemodel"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    semantic = data["semantic"]
    assert semantic["available"] is False and semantic["pending"] == backlog
    assert f"{backlog} chunks are waiting for embeddings" in semantic["reason"]
    assert semantic["model"] == "fakemodel"
    assert {h["source"] for h in data["hits"]} == {"fts"} and len(data["hits"]) == 20
    assert _vectors(vault, data_dir, "fakemodel") == 0
    (line,) = out.err.strip().splitlines()
    assert f"{backlog} chunks are waiting for embeddings" in line
    assert f"vault-explorer index {vault}" in line
    assert fake.calls == 0  # no vector at all: the model is not even asked for the query

    # The text form says it too, and a search once some vectors exist uses them.
    assert main(["index", str(vault), "--model", "fakemodel"]) == 0
    _many_notes(vault, backlog, prefix="m")
    capsys.readouterr()
    search = ["search", str(vault), "deploys", "--json", "--model", "fakemodel", "--limit", "100"]
    assert main(search) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["semantic"]["available"] is True and data["semantic"]["pending"] == backlog
    assert any(h["vectorRank"] is not None for h in data["hits"])
    assert _vectors(vault, data_dir, "fakemodel") == backlog
    assert "results use the vectors that exist" in out.err
    assert main(["search", str(vault), "deploys", "--model", "fakemodel", "--no-sync"]) == 0
    assert f"{backlog} chunks are waiting for embeddings" in capsys.readouterr().err


@pytest.mark.model
def test_first_hybrid_search_after_index_no_embed_answers_lexically_with_the_real_model(
    vault: Path, data_dir: Path
) -> None:
    _many_notes(vault, 200)
    assert run_program("index", str(vault), "--no-embed").returncode == 0
    proc = run_program("search", str(vault), "deploys number 7", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["semantic"]["available"] is False and data["semantic"]["pending"] == 200
    assert data["semantic"]["model"] == "all-MiniLM-L6-v2"
    assert data["hits"] and {h["source"] for h in data["hits"]} == {"fts"}
    assert "200 chunks are waiting for embeddings" in proc.stderr
    assert _vectors(vault, data_dir, "all-MiniLM-L6-v2") == 0
    # A small edit afterwards is embedded before answering, with the real model.
    (vault / "n000.md").write_text("# Changed\n\nA paragraph about harbour cranes.\n")
    assert run_program("index", str(vault)).returncode == 0
    (vault / "n001.md").write_text("# Edited\n\nSomething about loading ships at the port.\n")
    proc = run_program("search", str(vault), "container shipping", "--json")
    data = json.loads(proc.stdout)
    assert data["semantic"]["available"] is True and data["semantic"]["pending"] == 0
    assert "waiting for embeddings" not in proc.stderr
    assert _vectors(vault, data_dir, "all-MiniLM-L6-v2") == 200
    assert any(h["noteId"] == "n001.md" and h["vectorRank"] for h in data["hits"])


@pytest.mark.model
def test_a_search_alone_runs_the_bundled_model_without_sentence_transformers(
    sample_copy: Path,
) -> None:
    """With none running to ask, a search (or an explain) loads the bundled model itself, by
    the light loader: importing sentence-transformers and transformers was most of a first
    search's 6 s."""
    assert run_program("index", str(sample_copy)).returncode == 0
    code = "from explorer.entry import main\nsys.exit(main(sys.argv[1:]))\n"
    question = "why were the styles stale after deploy"
    for argv in (
        ["search", str(sample_copy), question, "--json"],
        ["explain", str(sample_copy), question, "ops/cdn-purge.md", "--json"],
    ):
        proc, modules = modules_after(code, *argv, env={"VAULT_EXPLORER_WARM": "0"})
        assert proc.returncode == 0, proc.stderr
        assert "torch" in modules and "explorer.embed.bert" in modules  # the model ran...
        heavy = [m for m in modules if m.split(".")[0] in ("sentence_transformers", "transformers")]
        assert heavy == [], argv  # ...without them
        if argv[0] == "search":
            assert any(hit["vectorRank"] for hit in json.loads(proc.stdout)["hits"])


def test_limit_above_the_default_depth_shows_that_many_hits(
    vault: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--limit 100`` in fts mode returned 50 hits: the default depth capped the list."""
    for i in range(70):
        (vault / f"n{i:02}.md").write_text(f"# Note {i}\n\nshared word\n")
    common = ["--data-dir", str(data_dir), "--mode", "fts", "--json"]
    assert main(["search", str(vault), "shared", "--limit", "100", *common]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 70
    assert main(["search", str(vault), "shared", "--limit", "100", "--depth", "30", *common]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)["hits"]) == 30 and "--depth 30 is below --limit 100" in err


@pytest.mark.model
def test_the_empty_query_lists_as_many_notes_as_the_limit(
    vault: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The listing was held to 20 whatever the limit (issue 43: --limit 100 listed 20 of 23,
    silently); it lists as many as the limit, 20 by default, and says how many there are."""
    for i in range(30):
        (vault / f"n{i:02}.md").write_text(f"# Note {i}\n\nbody\n")
    common = ["--data-dir", str(data_dir), "--json"]
    assert main(["search", str(vault), "", *common]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (len(data["hits"]), data["matched"]) == (20, 30)
    assert main(["search", str(vault), "", "--limit", "100", *common]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 30
    assert main(["search", str(vault), "", "--limit", "5", *common]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 5


def test_saturating_weights_are_refused_under_the_calibrated_fusion(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--w-fts 1000 --w-vec 1000 made every hit score 1.0 (w·e held to 1), so the note both
    lists found ranked second; a weight above 1 is now refused in one line, exit 2."""
    code = main(["search", str(notes), "cache", "--w-fts", "1000", "--w-vec", "1000"])
    err = capsys.readouterr().err
    assert code == 2
    assert "w-fts must be between 0 and 1 under the calibrated fusion" in err
    assert "Traceback" not in err
    assert main(["search", str(notes), "cache", "--fusion", "rrf", "--w-fts", "1000"]) == 0


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["--fusion", "rrf", "--k", "1e6"],
        ["--fusion", "convex"],
        ["--w-fts", "0"],
        ["--w-fts", "0.5", "--w-vec", "7"],
    ],
)
def test_a_one_list_mode_scores_the_same_whatever_the_ignored_flags(
    notes: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    """--mode fts --fusion rrf --k 1e6 was said to ignore --fusion and --k, yet the scores
    followed them (0.45 -> 0.045 -> 5e-7); the flags said to be ignored now are."""
    assert main(["search", str(notes), "cache", "--mode", "fts", "--json", *flags]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [(h["path"], h["fusedScore"]) for h in data["hits"]] == [
        ("ops/cdn.md", 0.9),
        *[(h["path"], h["fusedScore"]) for h in data["hits"][1:]],
    ]
    assert data["closeMatch"] is True
    baseline = ["search", str(notes), "cache", "--mode", "fts", "--json"]
    assert main(baseline) == 0
    assert json.loads(capsys.readouterr().out)["hits"] == data["hits"]
    for flag in flags[::2]:
        assert f"{flag} is ignored" in captured.err


@pytest.mark.parametrize(
    ("flags", "close"),
    [
        (["--w-fts", "0", "--w-vec", "0"], False),  # nothing is listed: no close match
        (["--w-fts", "0.5"], True),  # a weight orders the hits; the note is as close as before
        (["--mode", "fts", "--w-fts", "0"], True),  # ignored in a one-list mode
    ],
)
def test_close_match_is_judged_on_what_is_listed(
    notes: Path, capsys: pytest.CaptureFixture[str], flags: list[str], close: bool
) -> None:
    """closeMatch was true with no hits at all (both weights 0)."""
    assert main(["search", str(notes), "cdn cache purge", "--json", *flags]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["closeMatch"] is close
    assert bool(data["hits"]) or not close


def test_the_readme_s_json_example_has_the_shape_search_prints(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's example said weights 0.6 where the program uses 0.8, and lacked
    ``semantic.pending``: its keys, weights and fusion are now checked against a real search."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```json\n", 1)[1].split("```", 1)[0].replace(", …", "")
    example = json.loads(block)
    assert main(["search", str(notes), "cdn purge", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(example) == set(printed)
    assert set(example["semantic"]) == set(printed["semantic"])
    assert set(example["hits"][0]) == set(printed["hits"][0])
    assert example["fusion"] == printed["fusion"]


def test_a_property_filter_on_the_command_line_and_a_malformed_one_noted(
    notes: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("ops/open.md", "---\nstatus: open\n---\n# Cache plan\n\nthe cache again\n")
    assert main(["search", str(notes), "cache [status:open]", "--mode", "fts", "--json"]) == 0
    captured = capsys.readouterr()
    assert [h["path"] for h in json.loads(captured.out)["hits"]] == ["ops/open.md"]
    assert main(["search", str(notes), "cache [rating:>x]", "--mode", "fts"]) == 0
    err = capsys.readouterr().err
    assert "note: [rating:>x] is not a property filter" in err and "searched as text" in err


def test_sort_on_the_command_line(
    notes: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a/cache.md", "# Cache notes\n\nthe cache\n")
    args = ["search", str(notes), "cache", "--mode", "fts", "--json", "--sort", "path"]
    assert main(args) == 0
    paths = [h["path"] for h in json.loads(capsys.readouterr().out)["hits"]]
    assert paths == sorted(paths) and len(paths) == 2


@pytest.mark.parametrize("sort", ("path", "title", "modified", "created"))
def test_sorted_json_keeps_each_hits_fused_rank(
    notes: Path, write: Write, capsys: pytest.CaptureFixture[str], sort: str
) -> None:
    write("a/cache.md", "# Cache notes\n\nthe cache\n")
    write("z/cache.md", "# Cache\n\ncache cache cache, the cache of caches\n")
    args = ["search", str(notes), "cache", "--mode", "fts", "--json"]
    assert main(args) == 0
    relevance = [h["path"] for h in json.loads(capsys.readouterr().out)["hits"]]
    assert main([*args, "--sort", sort]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    # Each hit still says where it stood in the relevance order.
    assert {h["path"]: h["fusedRank"] for h in hits} == {
        path: rank for rank, path in enumerate(relevance, start=1)
    }
    if sort == "path":
        assert [h["path"] for h in hits] != relevance  # the test sees a reordering


def test_sorted_text_keeps_each_hits_fused_rank_in_the_number_column(
    notes: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``--sort`` the CLI renumbered # from 1 where the window keeps the fused rank
    (issue 46)."""
    write("a/cache.md", "# Cache notes\n\nthe cache\n")
    write("z/cache.md", "# Cache\n\ncache cache cache, the cache of caches\n")
    args = ["search", str(notes), "cache", "--mode", "fts"]
    assert main([*args, "--json"]) == 0
    relevance = [h["path"] for h in json.loads(capsys.readouterr().out)["hits"]]
    assert main([*args, "--sort", "path"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    numbered = {
        next(word for word in row if word.endswith(".md")): int(row[0])
        for row in rows
        if row and row[0].isdigit()
    }
    assert numbered == {path: rank for rank, path in enumerate(relevance, start=1)}
    assert list(numbered) != relevance  # the test sees a reordering


def test_save_run_list_and_delete_a_saved_search(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p: p.read_bytes() for p in notes.rglob("*") if p.is_file()}
    args = ["search", str(notes), "cache tag:ops", "--mode", "fts", "--json"]
    assert main([*args, "--save", "ops cache"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["search", str(notes), "--saved", "ops cache", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["mode"] == "fts" and [h["path"] for h in again["hits"]] == [
        h["path"] for h in first["hits"]
    ]
    assert main(["search", str(notes), "--list-saved"]) == 0
    assert capsys.readouterr().out.splitlines() == ["ops cache: cache tag:ops  (mode=fts)"]
    assert main(["search", str(notes), "--delete-saved", "ops cache"]) == 0
    capsys.readouterr()
    assert main(["search", str(notes), "--saved", "ops cache"]) == 2
    assert "no saved search named 'ops cache'" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in notes.rglob("*") if p.is_file()} == before


#: Date filters beyond the times the index holds (each was a traceback).
BEYOND = ["modified:<400y", "modified:<999999d", "modified:>2300", "created:<1500",
          "created:>9999", "modified:0001"]  # fmt: skip


@pytest.mark.parametrize("query", [*BEYOND, *(f"cache {q}" for q in BEYOND)])
def test_a_date_filter_beyond_the_index_is_answered(
    notes: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    assert main(["index", str(notes), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["search", str(notes), query, "--mode", "fts", "--json", "--no-sync"]) == 0
    hits = {h["noteId"] for h in json.loads(capsys.readouterr().out)["hits"]}
    every = "<400y" in query or "<999999d" in query
    assert hits == ({"ops/cdn.md"} if every else set()) | (
        {"dev/err.md"} if every and "cache" not in query else set()
    )


def test_a_filter_only_query_honours_the_limit_and_says_how_many_pass(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(30):
        write(f"n{i:02}.md", f"---\nrating: {3 + i % 3 if i < 23 else 1}\n---\n# N{i}\n")
    assert main(["index", str(vault), "--no-embed"]) == 0
    capsys.readouterr()
    query = ["search", str(vault), "[rating:>=3]", "--no-sync", "--mode", "fts"]
    assert main([*query, "--limit", "100", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["hits"]) == 23 and data["matched"] == 23 and data["listing"] == "recent"
    assert main([*query, "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("5 of 23 notes that pass the filters, the most recently modified\n")
    assert main(["search", str(vault), "", "--no-sync", "--limit", "50"]) == 0
    assert capsys.readouterr().out.startswith("30 most recently modified notes\n")


@pytest.mark.parametrize(
    ("query", "note"),
    [
        ("deploy [status:open", "[status:open is not a property filter (no ] closes it)"),
        (
            '[status:"open]',
            '[status:"open] is not a property filter (a quoted value is not closed)',
        ),
        ("[rating:>1e400]", "[rating:>1e400] is not a property filter (> compares a number"),
    ],
)
def test_a_malformed_filter_gets_its_note_on_stderr_and_in_the_json(
    notes: Path, capsys: pytest.CaptureFixture[str], query: str, note: str
) -> None:
    assert main(["index", str(notes), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["search", str(notes), query, "--no-sync", "--mode", "fts", "--json"]) == 0
    out = capsys.readouterr()
    assert f"vault-explorer: note: {note}" in out.err
    (line,) = json.loads(out.out)["notes"]
    assert line.startswith(note) and line.endswith(": searched as text")


@pytest.mark.parametrize(
    "recent", ["5", "true", "[" * 100_000 + "]" * 100_000], ids=["int", "bool", "deep"]
)
def test_a_damaged_saved_search_store_is_said_once_and_every_search_still_runs(
    notes: Path, capsys: pytest.CaptureFixture[str], recent: str
) -> None:
    store = searches_file(notes)
    store.parent.mkdir(parents=True)
    store.write_text('{"version": 1, "recent": ' + recent + ', "saved": {}}')
    args = ["search", str(notes), "cache", "--mode", "fts", "--json"]
    assert main(args) == 0
    first = capsys.readouterr()
    assert json.loads(first.out)["hits"]
    (note,) = [line for line in first.err.splitlines() if str(store) in line]
    assert note.startswith("vault-explorer: note: the saved searches at")
    assert main([*args, "--save", "kept"]) == 0
    assert str(store) not in capsys.readouterr().err  # said once: the file was repaired
    assert main(["search", str(notes), "--list-saved"]) == 0
    assert capsys.readouterr().out.startswith("kept: cache")


def test_a_query_refused_as_too_long_is_not_saved(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "word " * (MAX_QUERY_CHARS // 5 + 1)
    assert main(["search", str(notes), long, "--save", "toolong", "--no-sync"]) == 2
    assert "the limit is" in capsys.readouterr().err
    assert main(["search", str(notes), "--list-saved"]) == 0
    assert capsys.readouterr().out == ""
