"""The command line, run as a user runs it: exit codes, messages, JSON, table."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.entry import main
from tests.commands.helpers import beyond_the_client, modules_after, run_program
from tests.privileges import unprivileged

Write = Callable[[str, str | bytes], Path]


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
@pytest.mark.slow
def test_bad_input_exits_2_with_one_clear_line(notes: Path, args: list[str], message: str) -> None:
    proc = run_program(*[a.replace("{vault}", str(notes)) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_parsing_a_command_line_loads_no_model_search_or_evaluation() -> None:
    """Every command registers its options without importing what it runs: the parser of a
    command that a running watch answers stays light (numpy, the model, the search and the
    evaluation load in the handler that uses them)."""
    code = "from explorer.commands import program\nprogram.parse(sys.argv[1:])\n"
    proc, modules = modules_after(code, "search", "notes", "deploy")
    assert proc.returncode == 0, proc.stderr
    assert "explorer.commands.bench" in modules and "argparse" in modules
    assert not [m for m in modules if m.startswith(("numpy", "torch", "explorer.evaluate"))]
    assert beyond_the_client(modules) == []


def test_python_dash_m_and_version() -> None:
    proc = run_program("--version")
    assert proc.returncode == 0 and "vault-explorer" in proc.stdout


# ----------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
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
    proc = run_program(*[a.replace("{vault}", str(notes)) for a in args])
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("vault-explorer") and "error:" in lines[0] and message in lines[0]
    assert "--help" in lines[0] and "usage:" not in proc.stderr


def test_a_search_without_a_query_or_a_saved_search_is_one_line(notes: Path) -> None:
    proc = run_program("search", str(notes))
    assert proc.returncode == 2
    assert proc.stderr.strip() == "vault-explorer: search needs a QUERY, or --saved NAME"


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
    args = ["search", str(notes), "cache", "--fusion", "rrf", "--json", "--w-fts", "1000"]
    assert main(args) == 0

    def reject(constant: str) -> None:
        raise AssertionError(f"not JSON: {constant}")

    data = json.loads(capsys.readouterr().out, parse_constant=reject)
    assert data["fusion"]["weights"]["fts"] == 1000


# ----------------------------------------------------------------------------- environment


def _run_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*unprivileged(), sys.executable, "-m", "explorer", *args],
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
@pytest.mark.slow
def test_data_dir_that_is_a_file_is_bad_input(notes: Path, tmp_path: Path, how: str) -> None:
    plain = tmp_path / "a-file"
    plain.write_text("not a folder\n")
    for target in (plain, plain / "below"):
        if how == "option":
            proc = run_program("index", str(notes), "--no-embed", "--data-dir", str(target))
        else:
            proc = run_program(
                "index", str(notes), "--no-embed", env={"VAULT_EXPLORER_DATA": str(target)}
            )
        line = _one_clear_line(proc, 2, str(plain), "not a folder")
        assert ("--data-dir" if how == "option" else "VAULT_EXPLORER_DATA") in line
    assert plain.read_text() == "not a folder\n"


@pytest.mark.slow
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


@pytest.mark.slow
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
@pytest.mark.slow
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
    proc = run_program("search", str(notes), "cache", "--mode", "fts", "--json", "--no-sync")
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


@pytest.mark.slow
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


def test_a_folder_alone_opens_the_window_on_it_and_a_mistyped_command_stays_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from explorer.commands import program

    opened: list[tuple[str | None, str | None]] = []

    def window(args: argparse.Namespace) -> int:
        opened.append((args.vault, args.query))
        return 0

    vault = tmp_path / "notes"
    vault.mkdir()
    data = ["--data-dir", str(tmp_path / "data")]
    assert program.main([str(vault), "--query", "deploy", *data], gui=window) == 0
    assert program.main([*data, "--query", "search", str(vault)], gui=window) == 0
    monkeypatch.chdir(tmp_path)
    assert program.main(["notes", *data], gui=window) == 0  # a folder that exists here
    assert opened == [(str(vault), "deploy"), (str(vault), "search"), ("notes", "")]
    with pytest.raises(SystemExit) as exited:  # no such folder, no path: a command mistyped
        program.main(["serach", *data], gui=window)
    assert exited.value.code == 2
    assert "invalid choice: 'serach'" in capsys.readouterr().err


def test_the_windows_options_alone_open_the_window_as_the_program_alone_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``vault-explorer --screenshot x.png`` is ``vault-explorer gui --screenshot x.png``: the
    window on the vault ``vault-explorer`` alone opens (the last one, or the sample vault)."""
    from explorer.commands import program

    opened: list[tuple[str | None, str | None]] = []

    def window(args: argparse.Namespace) -> int:
        opened.append((args.vault, args.screenshot))
        return 0

    shot = str(tmp_path / "x.png")
    data = ["--data-dir", str(tmp_path / "data")]
    assert program.main(["--screenshot", shot, *data], gui=window) == 0
    assert program.main([f"--screenshot={shot}", "-v"], gui=window) == 0
    assert program.main([*data, "--query", "deploy", "--screenshot", shot], gui=window) == 0
    assert program.main([], gui=window) == 0
    assert opened == [(None, shot), (None, shot), (None, shot), (None, None)]
    # The program's own options stay its own: the help is the program's, not the window's.
    with pytest.raises(SystemExit) as exited:
        program.main(["--help"], gui=window)
    assert exited.value.code == 0
    assert "COMMAND" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("query", "paths"),
    [
        ("-[tags:ops]", {"dev/err.md"}),  # the README's exclusion, without -- before it
        ("-staging", {"ops/cdn.md", "dev/err.md"}),
        ('-"never purged"', {"dev/err.md"}),
    ],
)
def test_a_query_that_starts_with_a_dash_is_the_query(
    notes: Path, capsys: pytest.CaptureFixture[str], query: str, paths: set[str]
) -> None:
    assert main(["index", str(notes), "--no-embed"]) == 0
    capsys.readouterr()
    args = ["search", str(notes), query, "--mode", "fts", "--no-sync", "--json", "--limit", "5"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["query"] == query and {h["noteId"] for h in data["hits"]} == paths
    assert main(["explain", str(notes), query, "dev/err.md", "--mode", "fts"]) == 0
    assert f"query: {query}" in capsys.readouterr().out


def test_options_stay_options_beside_a_dash_query(notes: Path) -> None:
    proc = run_program("search", str(notes), "-[x]", "-vv", "--mode", "fts", "--limt", "3")
    assert proc.returncode == 2 and "unrecognized arguments: --limt 3" in proc.stderr
    assert main(["index", str(notes), "--no-embed"]) == 0
    proc = run_program("search", str(notes), "-[x]", "-vv", "--mode", "fts", "--no-sync")
    assert proc.returncode == 0 and "working alone" in proc.stderr  # -vv read: it says more
