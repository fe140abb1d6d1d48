"""The "not indexed yet" hints name the command that indexes into the data folder in use:
``--data-dir`` whenever it is not the default (also when ``$VAULT_EXPLORER_DATA`` chose it: an
MCP client's environment is not the shell's), paths quoted for a shell."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from explorer.embed.provider import EmbedderProvider
from explorer.entry import main
from explorer.index.db import ENV_DATA_DIR, default_data_dir, index_command
from explorer.mcp.reader import VaultReader
from explorer.mcp.server import status_text


def test_the_default_data_folder_is_not_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_DATA_DIR)
    assert index_command(Path("/v")) == "vault-explorer index /v"
    assert index_command(Path("/v"), default_data_dir()) == "vault-explorer index /v"


def test_another_data_folder_is_named_and_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "my data"
    monkeypatch.delenv(ENV_DATA_DIR)
    command = index_command(Path("/my notes"), str(data))
    assert shlex.split(command) == ["vault-explorer", "index", "/my notes", "--data-dir", str(data)]
    monkeypatch.setenv(ENV_DATA_DIR, str(data))  # the environment's folder is named too
    assert shlex.split(index_command(Path("/v")))[-2:] == ["--data-dir", str(data)]


@pytest.mark.parametrize("through", ["option", "environment"])
def test_related_and_the_server_say_the_command_with_the_data_folder(
    tmp_path: Path,
    through: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "my vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    data = tmp_path / "my data"
    option = ["--data-dir", str(data)] if through == "option" else []
    monkeypatch.setenv(ENV_DATA_DIR, str(data if through == "environment" else tmp_path / "x"))
    expected = ["vault-explorer", "index", str(vault), "--data-dir", str(data)]

    capsys.readouterr()
    assert main(["related", str(vault), "a.md", *option]) == 2
    err = capsys.readouterr().err
    hint = err.split("(run: ", 1)[1].split(")", 1)[0]
    assert shlex.split(hint) == expected, err

    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "elsewhere"))  # the client's environment
    reader = VaultReader(vault, str(data), EmbedderProvider.disabled())
    said = status_text(reader.status())
    assert shlex.split(said.split("(run: ", 1)[1].split(")", 1)[0]) == expected, said
