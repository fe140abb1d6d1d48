"""The command line, run as a user runs it: exit codes, messages, JSON, table."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.cli import explain
from explorer.embed import provider as provider_module
from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import IndexDB
from explorer.search.answer import EMBED_BEFORE_SEARCH
from explorer.search.options import SearchOptions

Write = Callable[[str, str | bytes], Path]


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


@pytest.fixture
def notes(vault: Path, write: Write) -> Path:
    write(
        "ops/cdn.md",
        "---\ntags: [ops]\n---\n# CDN purge\n\nThe cache was never purged on deploy.\n",
    )
    write("dev/err.md", "# Parsing\n\nValueError: invalid literal for int() with base 10: '5XX'\n")
    write("bad.md", b"\x00\x00binary")
    return vault


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
    default = SearchOptions()
    # the best of the all-words pass: evidence 0.9, weighed by w_fts (calibrated), five decimals
    first = f"{default.w_fts * 0.9:.5f}"
    assert first in row and "0.00000" in row and "—" in row and "CDN purge" in row


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "{vault}", "x", "--limit", "0"], "limit must be between 1 and 100"),
        (["search", "{vault}", "x", "--limit", "101"], "limit must be between 1 and 100"),
        (["search", "{vault}", "x", "--k", "0"], "k must be positive"),
        (["search", "{vault}", "y" * 1001], "limit is 1,000"),
        (["search", "/no/such/vault", "x"], "vault folder not found"),
        (["index", "/no/such/vault"], "vault folder not found"),
        (
            ["search", "{vault}", "x", "--mode", "semantic", "--model", "/no/such/model"],
            "semantic search is unavailable",
        ),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(notes: Path, args: list[str], message: str) -> None:
    proc = _run(*[a.replace("{vault}", str(notes)) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_no_sync_without_an_index_is_a_clear_error(notes: Path) -> None:
    proc = _run("search", str(notes), "x", "--no-sync")
    assert proc.returncode == 2 and "no index" in proc.stderr


def test_hybrid_without_a_model_says_so_and_returns_lexical(notes: Path) -> None:
    proc = _run("search", str(notes), "cache purged", "--json", "--model", "/no/such/model")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["semantic"]["available"] is False
    assert "/no/such/model" in data["semantic"]["reason"] or "model" in data["semantic"]["reason"]
    assert [h["source"] for h in data["hits"]] == ["fts"]


def test_status_json_and_text(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", str(notes), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["indexed"] is False
    assert main(["index", str(notes), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["status", str(notes), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["notes"] == 2 and data["chunks"] == 2 and data["pendingEmbeddings"] == 2
    assert data["skipped"] == [{"path": "bad.md", "reason": "binary file (contains NUL bytes)"}]
    assert data["ftsIntegrity"] == "ok" and data["model"] == "all-MiniLM-L6-v2"
    assert main(["status", str(notes)]) == 0
    text = capsys.readouterr().out
    assert "notes       2" in text and "bad.md: binary" in text


def test_status_and_search_say_the_languages_the_model_does_not_read(
    write: Write, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(3):
        write(
            f"de-{i}.md",
            f"# Notiz {i}\n\nDas ist eine Notiz, die ich über den Dunkelmodus schrieb.\n",
        )
    write("en.md", "# Note\n\nThis is a note about the dark mode of the app.\n")
    assert main(["index", str(vault), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["status", str(vault)]) == 0
    line = "75 % German, 25 % English; all-MiniLM-L6-v2 reads English: meaning search is weak here"
    assert f"languages   {line}" in capsys.readouterr().out
    assert main(["status", str(vault), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["languages"] == {"de": 3, "en": 1} and data["languageLine"] == line
    query = "Wie kann ich den Dunkelmodus einschalten?"
    assert main(["search", str(vault), query, "--mode", "fts", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["semantic"]["queryLanguage"] == "de"
    assert data["semantic"]["modelReadsQuery"] is False
    assert [h["path"] for h in data["hits"]] == ["de-0.md", "de-1.md", "de-2.md"]


def test_data_dir_option_moves_the_index(notes: Path, tmp_path: Path) -> None:
    target = tmp_path / "custom-data"
    assert main(["index", str(notes), "--no-embed", "--data-dir", str(target)]) == 0
    assert list((target / "indexes").glob("*.sqlite"))


def test_corrupt_index_is_rebuilt_and_user_told(notes: Path, data_dir: Path) -> None:
    assert _run("index", str(notes), "--no-embed").returncode == 0
    (db,) = (data_dir / "indexes").glob("*.sqlite")
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    proc = _run("search", str(notes), "cache", "--mode", "fts", "--json")
    assert proc.returncode == 0
    assert "rebuilding" in proc.stderr
    assert json.loads(proc.stdout)["hits"][0]["noteId"] == "ops/cdn.md"


def test_python_dash_m_and_version() -> None:
    proc = _run("--version")
    assert proc.returncode == 0 and "vault-explorer" in proc.stdout


# ----------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "{vault}"], "the following arguments are required: query"),
        (["search", "{vault}", "x", "--mode", "bogus"], "invalid choice: 'bogus'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["search", "{vault}", "x", "--limit", "many"], "limit must be a whole number, got 'many'"),
        (
            ["search", "{vault}", "x", "--depth", "1" + "0" * 400],
            "depth must be between 1 and 1000",
        ),
    ],
)
def test_argparse_errors_are_one_line(notes: Path, args: list[str], message: str) -> None:
    proc = _run(*[a.replace("{vault}", str(notes)) for a in args])
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("vault-explorer") and "error:" in lines[0] and message in lines[0]
    assert "--help" in lines[0] and "usage:" not in proc.stderr


def _status(argv: list[str]) -> int:
    """The exit status of ``vault-explorer ARGV`` run in this process."""
    try:
        return main(argv)
    except SystemExit as exc:  # argparse: --help, --version and usage errors
        assert isinstance(exc.code, int)
        return exc.code


def test_help_and_version_still_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert _status(["--version"]) == 0
    assert "vault-explorer" in capsys.readouterr().out
    assert _status(["search", "--help"]) == 0
    assert "--w-fts" in capsys.readouterr().out


# ----------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    "args",
    [
        ["search", "{vault}", "x", "--w-fts", "nan"],
        ["search", "{vault}", "x", "--w-vec", "inf"],
        ["search", "{vault}", "x", "--k", "inf"],
        ["search", "{vault}", "x", "--k=-inf"],
        ["search", "{vault}", "x", "--min-sim", "nan"],
        ["search", "{vault}", "x", "--w-fts", "1e999"],
        ["eval", "{vault}", "--k", "inf"],
        ["eval", "{vault}", "--w-vec", "NaN"],
        ["eval", "{vault}", "--min-sim", "inf"],
        ["bench", "--budget-p95-ms", "nan"],
        ["watch", "{vault}", "--reconcile-interval", "inf"],
    ],
)
def test_values_that_are_not_finite_numbers_are_rejected(
    notes: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _status([a.replace("{vault}", str(notes)) for a in args]) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "finite number" in lines[0], out.err
    assert out.out == ""


def test_json_output_is_strict_json(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The largest weight allowed (1e308 was allowed once, and its sums overflowed to inf).
    assert main(["search", str(notes), "cache", "--mode", "fts", "--json", "--w-fts", "1000"]) == 0

    def reject(constant: str) -> None:
        raise AssertionError(f"not JSON: {constant}")

    data = json.loads(capsys.readouterr().out, parse_constant=reject)
    assert data["fusion"]["weights"]["fts"] == 1000


# ----------------------------------------------------------------------------- environment

#: How to run a command without root's power to ignore file permissions (the tests run as root
#: in CI containers, where ``chmod 000`` denies nothing): ``setpriv`` drops every capability, so
#: the process is the files' owner and nothing more.
_UNPRIVILEGED: list[str] | None = None


def unprivileged_prefix() -> list[str]:
    global _UNPRIVILEGED
    if _UNPRIVILEGED is None:
        if os.geteuid() != 0:
            _UNPRIVILEGED = []
        else:
            prefix = ["setpriv", "--inh-caps=-all", "--bounding-set=-all", "--"]
            try:
                ok = subprocess.run([*prefix, "true"], capture_output=True).returncode == 0
            except FileNotFoundError:
                ok = False
            if not ok:
                pytest.skip("running as root and cannot drop capabilities (no setpriv)")
            _UNPRIVILEGED = prefix
    return _UNPRIVILEGED


def _run_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*unprivileged_prefix(), sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _one_clear_line(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("how", ["option", "environment"])
def test_data_dir_that_is_a_file_is_bad_input(notes: Path, tmp_path: Path, how: str) -> None:
    plain = tmp_path / "a-file"
    plain.write_text("not a folder\n")
    for target in (plain, plain / "below"):
        if how == "option":
            proc = _run("index", str(notes), "--no-embed", "--data-dir", str(target))
        else:
            proc = _run("index", str(notes), "--no-embed", env={"VAULT_EXPLORER_DATA": str(target)})
        line = _one_clear_line(proc, 2, str(plain), "not a folder")
        assert ("--data-dir" if how == "option" else "VAULT_EXPLORER_DATA") in line
    assert plain.read_text() == "not a folder\n"


def test_read_only_data_dir_is_one_line_and_the_index_untouched(
    notes: Path, tmp_path: Path
) -> None:
    data = tmp_path / "ro-data"
    assert main(["index", str(notes), "--no-embed", "--data-dir", str(data)]) == 0
    indexes = data / "indexes"
    before = _snapshot(indexes)
    (notes / "new.md").write_text("# New\n\nfresh words\n")
    for path in (*indexes.iterdir(), indexes, data):
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        proc = _run_unprivileged("index", str(notes), "--no-embed", "--data-dir", str(data))
        line = _one_clear_line(proc, 1)
        assert "read-only" in line or "permission denied" in line.lower()
        assert str(data) in line
        assert _snapshot(indexes) == before  # nothing renamed, nothing written, no .broken
    finally:
        for path in (data, indexes, *indexes.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)


def test_a_data_dir_that_cannot_be_created_is_one_line(notes: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    try:
        proc = _run_unprivileged("index", str(notes), "--data-dir", str(locked / "data"))
        line = _one_clear_line(proc, 1, str(locked / "data"))
        assert "permission denied" in line.lower() and "--data-dir" in line
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize("mode", [0o000, 0o111, 0o444])
def test_an_unreadable_vault_is_one_line_and_the_index_untouched(
    notes: Path, data_dir: Path, mode: int
) -> None:
    assert main(["index", str(notes), "--no-embed"]) == 0
    (db,) = (data_dir / "indexes").glob("*.sqlite")
    notes.chmod(mode)
    try:
        for command in (["index", str(notes)], ["search", str(notes), "cache"]):
            proc = _run_unprivileged(*command, "--data-dir", str(data_dir))
            line = _one_clear_line(proc, 1, str(notes), "cannot read the vault folder")
            assert "permission" in line
    finally:
        notes.chmod(0o755)
    proc = _run("search", str(notes), "cache", "--mode", "fts", "--json", "--no-sync")
    assert [h["noteId"] for h in json.loads(proc.stdout)["hits"]] == ["ops/cdn.md"]
    assert not list(db.parent.glob("*.broken"))


def _can_mount_tmpfs(tmp_path: Path) -> bool:
    if os.geteuid() != 0:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs '{probe}'"],
        capture_output=True,
    )
    probe.rmdir()
    return proc.returncode == 0


def test_a_full_disk_is_one_line_and_the_index_keeps_working(notes: Path, tmp_path: Path) -> None:
    """A real full disk: a 600 KB tmpfs, mounted in a private mount namespace, holds the data
    folder; a second sync that needs more room than is left must fail with one line."""
    if not _can_mount_tmpfs(tmp_path):
        pytest.skip("needs root and mount namespaces (unshare -m) for a small tmpfs")
    data = tmp_path / "small-disk"
    data.mkdir()
    big = tmp_path / "big"
    for i in range(60):  # ~2 MB of text that does not compress into 600 KB of index
        words = " ".join(f"w{i}x{j}y{(i * 7919 + j * 104729) % 99991}" for j in range(2500))
        (big / f"n{i:02}.md").parent.mkdir(exist_ok=True)
        (big / f"n{i:02}.md").write_text(f"# Big {i}\n\n{words}\n")
    python = sys.executable
    script = tmp_path / "full.sh"
    results = tmp_path / "results"
    results.mkdir()
    script.write_text(
        f"""set -u
mount -t tmpfs -o size=600k tmpfs '{data}' || exit 99
run() {{ name=$1; shift; "{python}" -m explorer "$@" --data-dir '{data}' \\
    >'{results}'/$name.out 2>'{results}'/$name.err; echo $? >'{results}'/$name.rc; }}
run first index '{notes}' --no-embed
cp -r '{big}'/. '{notes}'/
run full index '{notes}' --no-embed
rm -f '{notes}'/n*.md
run after search '{notes}' cache --mode fts --json
run status status '{notes}' --json
ls -a '{data}/indexes' >'{results}'/files
"""
    )
    proc = subprocess.run(["unshare", "-m", "sh", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr

    def result(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(
            [name],
            int((results / f"{name}.rc").read_text()),
            (results / f"{name}.out").read_text(),
            (results / f"{name}.err").read_text(),
        )

    assert result("first").returncode == 0, result("first").stderr
    line = _one_clear_line(result("full"), 1, "full")
    assert "free" in line and "space" in line
    after = result("after")
    assert after.returncode == 0, after.stderr
    assert [h["noteId"] for h in json.loads(after.stdout)["hits"]] == ["ops/cdn.md"]
    assert ".broken" not in (results / "files").read_text()


# ----------------------------------------------------------------------------- hostile names

EVIL = "\x1b]0;pwned\x07\x1b[41m"


def _assert_no_raw_controls(text: str) -> None:
    from explorer.display import is_unsafe

    raw = sorted({repr(c) for c in text if is_unsafe(c) and c != "\n"})
    assert not raw, f"raw control characters reach the terminal: {raw}"


@pytest.fixture
def hostile(vault: Path, write: Write) -> Path:
    write(f"evil{EVIL}\nsplit\u202egpj.md", f"# Title {EVIL} \u202eevil\n\nharmless cache words\n")
    write(f"bin{EVIL}\u202e.md", b"\x00\x00binary")
    return vault


def test_hostile_names_and_titles_are_escaped_in_text_output(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(hostile), "--no-embed"]) == 0
    out = capsys.readouterr()
    _assert_no_raw_controls(out.out + out.err)
    assert "bin\\x1b]0;pwned\\x07" in out.err

    assert main(["search", str(hostile), "cache", "--mode", "fts", "--no-sync"]) == 0
    table = capsys.readouterr().out
    _assert_no_raw_controls(table)
    (row,) = [line for line in table.splitlines() if "harmless" in line or "evil" in line]
    assert "evil\\x1b]0;pwned\\x07\\x1b[41m\\x0asplit\\u202egpj.md" in row
    assert "Title \\x1b]0;pwned" in row

    assert main(["status", str(hostile)]) == 0
    status = capsys.readouterr().out
    _assert_no_raw_controls(status)
    assert "bin\\x1b]0;pwned\\x07\\x1b[41m\\u202e.md: binary" in status


def test_hostile_titles_survive_json_exactly_without_raw_controls(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(hostile), "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["search", str(hostile), "cache", "--mode", "fts", "--json", "--no-sync"]) == 0
    text = capsys.readouterr().out
    _assert_no_raw_controls(text)
    (hit,) = json.loads(text)["hits"]
    assert hit["path"] == f"evil{EVIL}\nsplit\u202egpj.md"
    assert hit["title"] == f"Title {EVIL} \u202eevil"
    assert main(["status", str(hostile), "--json"]) == 0
    text = capsys.readouterr().out
    _assert_no_raw_controls(text)
    assert json.loads(text)["skipped"][0]["path"] == f"bin{EVIL}\u202e.md"


def test_a_hostile_vault_name_in_errors_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(tmp_path / f"missing{EVIL}")]) == 2
    err = capsys.readouterr().err
    _assert_no_raw_controls(err)
    assert "missing\\x1b]0;pwned" in err


# ----------------------------------------------------------------------------- pending vectors


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
    assert _run("index", str(vault), "--no-embed").returncode == 0
    proc = _run("search", str(vault), "deploys number 7", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["semantic"]["available"] is False and data["semantic"]["pending"] == 200
    assert data["semantic"]["model"] == "all-MiniLM-L6-v2"
    assert data["hits"] and {h["source"] for h in data["hits"]} == {"fts"}
    assert "200 chunks are waiting for embeddings" in proc.stderr
    assert _vectors(vault, data_dir, "all-MiniLM-L6-v2") == 0
    # A small edit afterwards is embedded before answering, with the real model.
    (vault / "n000.md").write_text("# Changed\n\nA paragraph about harbour cranes.\n")
    assert _run("index", str(vault)).returncode == 0
    (vault / "n001.md").write_text("# Edited\n\nSomething about loading ships at the port.\n")
    proc = _run("search", str(vault), "container shipping", "--json")
    data = json.loads(proc.stdout)
    assert data["semantic"]["available"] is True and data["semantic"]["pending"] == 0
    assert "waiting for embeddings" not in proc.stderr
    assert _vectors(vault, data_dir, "all-MiniLM-L6-v2") == 200
    assert any(h["noteId"] == "n001.md" and h["vectorRank"] for h in data["hits"])


# ----------------------------------------------------------------------------- explain


def _real_sqlite_full(path: Path) -> sqlite3.OperationalError:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("CREATE TABLE t(x)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 1}")
        conn.execute("BEGIN")
        for _ in range(100):
            conn.execute("INSERT INTO t VALUES (randomblob(1000))")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("max_page_count did not fill the database")


def _failed_rollback_after(cause: BaseException, path: Path) -> sqlite3.OperationalError:
    """SQLite's own "cannot rollback" raised while ``cause`` is being handled."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        try:
            raise cause
        except sqlite3.Error:
            conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("ROLLBACK without a transaction did not fail")


def test_explain_finds_the_full_disk_behind_a_failed_rollback(tmp_path: Path) -> None:
    full = _real_sqlite_full(tmp_path / "full.sqlite")
    assert "full" in str(full)
    hidden = _failed_rollback_after(full, tmp_path / "other.sqlite")
    assert "cannot rollback" in str(hidden)
    args = argparse.Namespace(vault=str(tmp_path), data_dir=str(tmp_path / "data"))
    line = explain(hidden, args)
    assert "is full" in line and "free some space" in line and "rollback" not in line


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (OSError(errno.ENOSPC, "No space left on device", "{data}/indexes/x.lock"), ["full"]),
        (PermissionError(errno.EACCES, "Permission denied", "{data}/indexes"), ["--data-dir"]),
        (PermissionError(errno.EACCES, "Permission denied", "{vault}/a.md"), ["in the vault"]),
        (OSError(errno.EROFS, "Read-only file system", "{data}"), ["read-only", "--data-dir"]),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory", "{data}/x"), ["a file is in"]),
        (IsADirectoryError(errno.EISDIR, "Is a directory", "{vault}/a.md"), ["a folder is in"]),
    ],
)
def test_explain_says_what_is_wrong_and_what_to_do(
    tmp_path: Path, error: OSError, words: list[str]
) -> None:
    data, vault = tmp_path / "data", tmp_path / "vault"
    assert isinstance(error.filename, str)
    error.filename = error.filename.format(data=data, vault=vault)
    args = argparse.Namespace(vault=str(vault), data_dir=str(data))
    line = explain(error, args)
    assert error.filename in line and "\n" not in line
    for word in words:
        assert word in line


def test_status_runs_a_real_integrity_check_and_offers_the_rebuild(
    vault: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Random bytes 80 % into the file: ``status`` said "fts ok"; now SQLite's own check runs,
    and a failed check says how to rebuild."""
    import random

    from explorer.index.db import index_path

    for i in range(60):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\n" + f"words of note {i}. " * 400)
    common = ["--data-dir", str(data_dir)]
    assert main(["index", str(vault), "--no-embed", *common]) == 0
    assert main(["status", str(vault), *common]) == 0
    assert "integrity   ok" in capsys.readouterr().out
    db = IndexDB.open_existing(vault, data_dir)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    path = index_path(vault, data_dir)
    data = bytearray(path.read_bytes())
    at = (len(data) * 8 // 10) // 4096 * 4096
    data[at : at + 4096] = random.Random(8).randbytes(4096)
    path.write_bytes(bytes(data))
    code = main(["status", str(vault), *common])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "integrity   ok" not in out
    assert f"vault-explorer status {vault} --rebuild all" in out


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


def test_the_empty_query_lists_twenty_notes_whatever_the_limit(
    vault: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The listing's size expression always equalled the limit (the window showed 100)."""
    for i in range(30):
        (vault / f"n{i:02}.md").write_text(f"# Note {i}\n\nbody\n")
    common = ["--data-dir", str(data_dir), "--json"]
    assert main(["search", str(vault), "", "--limit", "100", *common]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 20
    assert main(["search", str(vault), "", "--limit", "5", *common]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 5
