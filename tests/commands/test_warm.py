"""The warm command line through a real ``watch``: ``search``, ``explain`` and ``related``
print the same text and JSON, with the same exit status, whether the running watch answers them
over its socket or they work alone."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from explorer.commands import warm
from explorer.index.db import index_path
from explorer.live import serve
from tests.commands.helpers import beyond_the_client, modules_after
from tests.mcp_lines import LineClient
from tests.waiting import wait_until

#: The real command line with the fake embedder registered as the model ``fakewarm``, so the
#: watch and the commands load no real model.
FAKE_MAIN = textwrap.dedent(
    """
    import sys
    from explorer.entry import main
    from explorer.embed import provider
    from explorer.embed.base import FakeEmbedder

    for name in ("fakewarm", "fakeother"):
        provider._SHARED[name] = provider.EmbedderProvider.of(FakeEmbedder(name=name))
    sys.exit(main(sys.argv[1:]))
    """
)


def _run(data: Path, *args: str, alone: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "VAULT_EXPLORER_WARM": "0" if alone else "1"}
    return subprocess.run(
        [sys.executable, "-c", FAKE_MAIN, *args, "--data-dir", str(data), "--model", "fakewarm"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture
def watching(
    notes: Path, data_dir: Path, tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> Path:
    """A running ``watch`` of ``notes`` with every chunk embedded, answering on its socket."""
    log = tmp_path / "watch.log"
    argv = ["watch", str(notes), "--data-dir", str(data_dir), "--model", "fakewarm"]
    with log.open("a") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", FAKE_MAIN, *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    procs.append(proc)
    wait_until(lambda: "answering search" in log.read_text(errors="replace"), timeout=120)
    # Every chunk embedded: a search alone then says nothing about waiting chunks.
    wait_until(
        lambda: "waiting" not in _run(data_dir, "search", str(notes), "x", alone=True).stderr
    )
    return log


COMMANDS = [
    ("search", "cache purge"),
    ("search", "cache purge", "--json"),
    ("search", "cache purge", "--mode", "fts", "--json"),
    ("explain", "cache purge", "ops/cdn.md"),
    ("explain", "cache purge", "ops/cdn.md", "--json"),
    ("related", "ops/cdn.md"),
    ("related", "ops/cdn.md", "--json"),
    ("related", "no/such.md"),  # bad input: the same line, the same exit status 2
    ("search", "cache purge", "--mode", "nosuch"),  # a usage error: the parser's line, status 2
    ("search", "-[path:home]", "--mode", "fts", "--json"),  # a query that starts with -
]


def test_output_is_the_same_through_the_watch_and_alone(
    notes: Path, data_dir: Path, watching: Path
) -> None:
    for command, *rest in COMMANDS:
        argv = (command, str(notes), *rest)
        alone = _run(data_dir, *argv, alone=True)
        warm = _run(data_dir, *argv)
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            alone.returncode,
            alone.stdout,
            alone.stderr,
        ), argv
        assert alone.stdout or alone.returncode == 2
    # … and the warm one was indeed answered by the watch, the other not.
    said = _run(data_dir, "search", str(notes), "cache purge", "-v").stderr
    assert "answered by vault-explorer watch" in said
    said = _run(data_dir, "search", str(notes), "cache purge", "-v", alone=True).stderr
    assert "answered by" not in said
    said = _run(data_dir, "search", str(notes), '-"the phrase"', "-v").stderr  # an h: no -h
    assert "answered by vault-explorer watch" in said
    # A usage error is the command's own to say: its words are parsed once, where typed, and
    # only a request they make goes to the watch.
    said = _run(data_dir, "-v", "search", str(notes), "x", "--mode", "nosuch").stderr
    assert "answered by" not in said and "invalid choice" in said


def test_a_command_the_watch_answers_loads_neither_the_model_nor_the_search(
    notes: Path, data_dir: Path, watching: Path
) -> None:
    """The second search is fast because the asking process is light: it parses, asks and
    prints; numpy, the model, the search and the index's reader are the watch's to load."""
    code = "from explorer.entry import main\nsys.exit(main(sys.argv[1:]))\n"
    for command, *rest in [
        ("search", "cache purge"),
        ("search", "cache purge", "--json"),
        ("explain", "cache purge", "ops/cdn.md"),
        ("related", "ops/cdn.md"),
    ]:
        argv = [command, str(notes), *rest, "--data-dir", str(data_dir), "--model", "fakewarm"]
        proc, modules = modules_after(code, *argv, "-v", env={"VAULT_EXPLORER_WARM": "1"})
        assert proc.returncode == 0, proc.stderr
        assert "answered by vault-explorer watch" in proc.stderr
        assert "numpy" not in modules and "explorer.commands.program" in modules
        assert beyond_the_client(modules) == [], argv


def test_a_request_for_another_model_is_refused_and_works_alone(
    notes: Path, data_dir: Path, watching: Path
) -> None:
    argv = ["search", str(notes), "cache purge", "--data-dir", str(data_dir), "-v"]
    result = subprocess.run(
        [sys.executable, "-c", FAKE_MAIN, *argv, "--model", "fakeother"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "this server has the model fakewarm" in result.stderr
    assert "answered by" not in result.stderr
    assert result.returncode == 0, result.stderr


def _mcp_calls(notes: Path, data_dir: Path, log: Path, *, alone: bool) -> list[dict[str, object]]:
    """The results of the MCP server's search, explain and related tools, through a watch or
    alone."""
    argv = ["mcp", str(notes), "--data-dir", str(data_dir), "--model", "fakewarm", "-v"]
    env = {**os.environ, "VAULT_EXPLORER_WARM": "0" if alone else "1"}
    client = LineClient([sys.executable, "-c", FAKE_MAIN, *argv], env, log)
    calls = [
        ("search", {"query": "cache purge"}),
        ("search", {"query": "cache purge", "mode": "fts", "limit": 3}),
        ("explain", {"query": "cache purge", "path": "ops/cdn.md"}),
        ("related", {"path": "ops/cdn.md"}),
        ("related", {"path": "no/such.md"}),  # a refusal: the same line
    ]
    try:
        client.initialize()
        results = [client.call(tool, arguments)["result"] for tool, arguments in calls]
        assert client.close() == 0
    finally:
        client.kill()
    return results


def test_the_mcp_server_answers_the_same_through_the_watch_and_alone(
    notes: Path, data_dir: Path, watching: Path, tmp_path: Path
) -> None:
    alone = _mcp_calls(notes, data_dir, tmp_path / "alone.log", alone=True)
    warm = _mcp_calls(notes, data_dir, tmp_path / "warm.log", alone=False)
    assert warm == alone
    assert alone[-1]["isError"] and not alone[0].get("isError")
    assert "search answered by vault-explorer watch" in (tmp_path / "warm.log").read_text()
    assert "answered by" not in (tmp_path / "alone.log").read_text()


def test_the_mcp_server_answers_alone_once_the_watch_is_gone(
    notes: Path,
    data_dir: Path,
    watching: Path,
    tmp_path: Path,
    procs: list[subprocess.Popen[bytes]],
) -> None:
    log = tmp_path / "mcp.log"
    argv = ["mcp", str(notes), "--data-dir", str(data_dir), "--model", "fakewarm", "-v"]
    client = LineClient([sys.executable, "-c", FAKE_MAIN, *argv], dict(os.environ), log)
    try:
        client.initialize()
        first = client.call("search", {"query": "cache purge"})["result"]
        procs[0].kill()  # the watch dies mid-session, its socket left behind
        procs[0].wait()
        second = client.call("search", {"query": "cache purge"})["result"]
        assert client.close() == 0
    finally:
        client.kill()
    assert first == second
    said = log.read_text()
    assert "search answered by vault-explorer watch" in said and "nobody listens" in said


def test_a_dead_watch_leaves_a_socket_the_next_command_ignores_and_removes(
    notes: Path, data_dir: Path, watching: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    socket_path = serve.place(index_path(notes, data_dir)).path
    assert socket_path is not None and socket_path.exists()
    procs[0].kill()  # no clean stop: the socket stays behind
    procs[0].wait()
    assert socket_path.exists()
    result = _run(data_dir, "search", str(notes), "cache purge", "-v")
    assert result.returncode == 0
    assert "nobody listens" in result.stderr
    assert "ops/cdn.md" in result.stdout
    assert not socket_path.exists()


def test_twelve_searches_at_once_are_all_answered_by_the_watch(
    notes: Path, data_dir: Path, watching: Path
) -> None:
    argv = ["search", str(notes), "cache purge", "--json", "-v"]
    argv += ["--data-dir", str(data_dir), "--model", "fakewarm"]
    env = {**os.environ, "VAULT_EXPLORER_WARM": "1"}
    searches = [
        subprocess.Popen(
            [sys.executable, "-c", FAKE_MAIN, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(12)
    ]
    outputs = [search.communicate(timeout=300) for search in searches]
    assert [search.returncode for search in searches] == [0] * 12
    answered = [err for _out, err in outputs if "answered by vault-explorer watch" in err]
    assert len(answered) == 12, [err for _out, err in outputs if err not in answered]
    assert len({out for out, _err in outputs}) == 1  # the same hits for each


def _left_program() -> list[str]:
    """:data:`FAKE_MAIN` as the watch a command leaves runs it: in the data folder, with this
    checkout's package first."""
    root = str(Path(__file__).resolve().parents[2])
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {root!r})\n{FAKE_MAIN}"]


#: The idle time of the watches these tests leave: long enough for a search to reach one on a
#: busy machine, short enough to wait for.
IDLE = 20


@pytest.mark.slow
def test_a_command_alone_leaves_one_watch_that_answers_the_next_and_stops_when_idle(
    notes: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _run(data_dir, "index", str(notes), alone=True).returncode == 0
    monkeypatch.setenv("VAULT_EXPLORER_WARM", "1")
    vault, folder, program = notes.resolve(), str(data_dir), _left_program()
    # Two commands alone at once each leave a watch: one serves, the other stops by itself.
    left = [
        warm.leave_watch(vault, folder, "fakewarm", idle=IDLE, program=program) for _ in range(2)
    ]
    watches = [watch for watch in left if watch is not None]
    try:
        assert watches
        said = capsys.readouterr().err
        assert f"pid {watches[0].pid}" in said and "VAULT_EXPLORER_WARM=0" in said
        socket_path = serve.place(index_path(vault, data_dir)).path
        assert socket_path is not None
        wait_until(lambda: socket_path.exists(), timeout=120)
        # Asked at once: the other may take long to stop on a loaded machine, while the one
        # serving counts its idle time.
        said = _run(data_dir, "search", str(notes), "cache purge", "-v").stderr
        assert "answered by vault-explorer watch" in said
        # While one keeps the index, no other is left behind: never two.
        assert warm.leave_watch(vault, folder, "fakewarm", idle=IDLE, program=program) is None
        wait_until(lambda: sum(watch.poll() is None for watch in watches) <= 1, timeout=120)
        # Gone when idle: the process ends, its socket removed, the index consistent.
        wait_until(lambda: all(watch.poll() is not None for watch in watches), timeout=120)
        assert not socket_path.exists()
        logs = "".join(p.read_text() for p in (data_dir / "logs").glob("watch-*.log"))
        assert f"stopping: no request to answer for {IDLE} s" in logs
        assert "the index is consistent" in logs
    finally:
        for watch in watches:
            if watch.poll() is None:
                watch.kill()
                watch.wait()


@pytest.mark.parametrize(
    ("setting", "value"), [("VAULT_EXPLORER_WARM", "0"), ("VAULT_EXPLORER_WARM_IDLE", "0")]
)
def test_no_watch_is_left_when_told_not_to(
    notes: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, setting: str, value: str
) -> None:
    assert _run(data_dir, "index", str(notes), alone=True).returncode == 0
    monkeypatch.setenv("VAULT_EXPLORER_WARM", "1")
    monkeypatch.delenv("VAULT_EXPLORER_WARM_IDLE")
    monkeypatch.setenv(setting, value)
    program = _left_program()
    assert warm.leave_watch(notes.resolve(), str(data_dir), "fakewarm", program=program) is None
    assert not list(data_dir.glob("logs/watch-*.log"))
