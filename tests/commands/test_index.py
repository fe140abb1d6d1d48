"""``vault-explorer index``: where the index goes, and a damaged one rebuilt."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.console import TerminalProgress
from explorer.embed import provider as provider_module
from explorer.embed import threads
from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.evaluate.synth import generate_vault
from explorer.index.db import IndexDB
from tests.commands.helpers import (
    assert_nothing_embedded_twice,
    kill_then_resume,
    run_program,
)


@pytest.fixture(autouse=True)
def _threads_as_they_were() -> Iterator[None]:
    """``index`` sets the process's embedding threads: put back torch's and the choice."""
    before, torch_before = threads.chosen_threads(), threads.torch_threads()
    yield
    threads._chosen = before
    if torch_before is not None:
        import torch

        torch.set_num_threads(torch_before)


def test_data_dir_option_moves_the_index(notes: Path, tmp_path: Path) -> None:
    target = tmp_path / "custom-data"
    assert main(["index", str(notes), "--no-embed", "--data-dir", str(target)]) == 0
    assert list((target / "indexes").glob("*.sqlite"))


def test_corrupt_index_is_rebuilt_and_user_told(notes: Path, data_dir: Path) -> None:
    assert run_program("index", str(notes), "--no-embed").returncode == 0
    (db,) = (data_dir / "indexes").glob("*.sqlite")
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    proc = run_program("search", str(notes), "cache", "--mode", "fts", "--json")
    assert proc.returncode == 0
    assert "rebuilding" in proc.stderr
    assert json.loads(proc.stdout)["hits"][0]["noteId"] == "ops/cdn.md"


def test_index_says_how_many_notes_are_searchable_by_meaning(
    notes: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeEmbedder(name="fakemodel")
    monkeypatch.setitem(provider_module._SHARED, "fakemodel", EmbedderProvider.of(fake))
    assert main(["index", str(notes), "--model", "fakemodel", "--embed-threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "embedded 2 chunks in" in out and "; 2 of 2 notes searchable by meaning" in out
    assert main(["index", str(notes), "--model", "fakemodel"]) == 0
    out = capsys.readouterr().out
    assert "vectors up to date (fakemodel); 2 of 2 notes searchable by meaning" in out
    assert threads.chosen_threads() == threads.default_threads()


def test_the_terminal_bar_says_the_rate_and_the_time_left(
    notes: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a terminal the embedding's bar shows the counts, the rate and the estimate of
    explorer.live.progress (here its words are recorded instead of drawn)."""
    fake = FakeEmbedder(name="fakemodel")
    monkeypatch.setitem(provider_module._SHARED, "fakemodel", EmbedderProvider.of(fake))
    shown: list[tuple[str, int, int, str | None]] = []

    def record(
        self: TerminalProgress,
        phase: str,
        done: int,
        total: int,
        note: str = "",
        *,
        status: str | None = None,
    ) -> None:
        shown.append((phase, done, total, status))

    monkeypatch.setattr(TerminalProgress, "__call__", record)
    assert main(["index", str(notes), "--model", "fakemodel"]) == 0
    embed = [s for s in shown if s[0] == "embed"]
    assert embed[0] == ("embed", 0, 2, "0 of 2")
    assert embed[-1][:3] == ("embed", 2, 2) and (embed[-1][3] or "").startswith("2 of 2")


@pytest.mark.parametrize(
    ("given", "env", "expected", "said"),
    [
        ([], None, None, ""),  # the default: all cores but one
        (["--embed-threads", "3"], "5", 3, ""),  # the option over the environment
        ([], "5", 5, ""),
        ([], "2.5", None, "VAULT_EXPLORER_EMBED_THREADS takes a whole number"),
        ([], "0", None, "VAULT_EXPLORER_EMBED_THREADS takes a whole number"),
    ],
)
def test_the_embedding_threads_come_from_the_option_the_environment_or_the_cores(
    notes: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    given: list[str],
    env: str | None,
    expected: int | None,
    said: str,
) -> None:
    if env is None:
        monkeypatch.delenv("VAULT_EXPLORER_EMBED_THREADS", raising=False)
    else:
        monkeypatch.setenv("VAULT_EXPLORER_EMBED_THREADS", env)
    fake = FakeEmbedder(name="fakemodel")
    monkeypatch.setitem(provider_module._SHARED, "fakemodel", EmbedderProvider.of(fake))
    assert main(["index", str(notes), "--model", "fakemodel", *given]) == 0
    assert threads.chosen_threads() == (expected or threads.default_threads())
    err = capsys.readouterr().err
    assert said in err and (not said or f"using {threads.default_threads()}" in err)


def test_a_bad_thread_count_is_refused(capsys: pytest.CaptureFixture[str], notes: Path) -> None:
    for bad in ("0", "many", "100000"):
        with pytest.raises(SystemExit) as exited:
            main(["index", str(notes), "--embed-threads", bad])
        assert exited.value.code == 2
    assert "--embed-threads" in capsys.readouterr().err


def test_the_default_leaves_one_core_free() -> None:
    assert threads.default_threads(8) == 7
    assert threads.default_threads(2) == 1
    assert threads.default_threads(1) == 1


def _modes(data: Path) -> dict[str, int]:
    return {
        str(p.relative_to(data.parent)): stat.S_IMODE(p.lstat().st_mode)
        for p in [data, *data.rglob("*")]
    }


def test_an_index_only_its_owner_can_read_whatever_the_umask(
    notes: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = os.umask(0o022)  # the usual umask: files 0644, folders 0755
    try:
        assert main(["index", str(notes), "--no-embed"]) == 0
        assert main(["search", str(notes), "cache", "--mode", "fts", "--save", "mine"]) == 0
        capsys.readouterr()
        db = IndexDB.open(notes)  # its -wal and -shm exist while it is open
        try:
            db.conn.execute("SELECT count(*) FROM notes").fetchone()
            modes = _modes(data_dir)
        finally:
            db.close()
        names = {Path(name).name for name in modes}
        for wanted in (".sqlite", ".sqlite-wal", ".sqlite-shm", ".sqlite.lock", ".searches.json"):
            assert any(name.endswith(wanted) for name in names), wanted
        assert {
            name: mode
            for name, mode in modes.items()
            if mode != (0o700 if (data_dir.parent / name).is_dir() else 0o600)
        } == {}

        # A data folder made before, open to all: tightened at the next start, said once.
        for path in [data_dir, *data_dir.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        assert main(["index", str(notes), "--no-embed"]) == 0
        said = [line for line in capsys.readouterr().err.splitlines() if "readable by you" in line]
        assert len(said) == 1 and said[0].startswith(
            f"vault-explorer: made the data folder {data_dir} readable by you alone ("
        )
        assert set(_modes(data_dir).values()) <= {0o700, 0o600}
        assert main(["index", str(notes), "--no-embed"]) == 0
        assert "readable by you" not in capsys.readouterr().err
    finally:
        os.umask(old)


@pytest.mark.slow
@pytest.mark.parametrize("during", ["words", "vectors"])
def test_an_index_killed_at_any_moment_is_finished_by_the_next_run(
    tmp_path: Path, procs: list[subprocess.Popen[bytes]], during: str
) -> None:
    # kill -9 while notes are written, or while chunks are embedded: the next ``index``
    # carries on from what was committed (the notes written are unchanged to it, the texts
    # embedded are not embedded again) and leaves the index a clean run makes.
    vault = tmp_path / "vault"
    generate_vault(vault, 600, seed=7)  # headings, lists, links, front matter
    slow = {"note_pause": 0.005} if during == "words" else {"embed_pause": 0.2}
    killed = kill_then_resume(
        vault, tmp_path / "data", tmp_path, "index", procs, during=during, **slow
    )
    assert_nothing_embedded_twice(killed, batch=128)
    if during == "words":
        assert killed.first == []  # the words first, then the vectors
        summary = re.search(r"(\d+) added, .* (\d+) unchanged", killed.output)
        assert summary is not None
        assert (int(summary[1]), int(summary[2])) == (600 - killed.notes, killed.notes)
