"""The model chosen for a vault, remembered beside its index and used by every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.embed.models import DEFAULT_MODEL, ENV_MODEL
from explorer.entry import main
from explorer.index.model_choice import MULTILINGUAL, choose_model, chosen_model, model_for


def test_a_choice_is_remembered_per_vault_and_forgotten(tmp_path: Path) -> None:
    german, english, data = tmp_path / "german", tmp_path / "english", tmp_path / "data"
    german.mkdir()
    english.mkdir()
    assert chosen_model(german, data) is None
    choose_model(german, MULTILINGUAL, data)
    assert chosen_model(german, data) == MULTILINGUAL
    assert chosen_model(english, data) is None  # another vault keeps the default
    choose_model(german, DEFAULT_MODEL, data)  # the default is no choice at all
    assert chosen_model(german, data) is None
    choose_model(german, None, data)  # forgetting twice is fine
    assert chosen_model(german, data) is None


def test_model_and_the_environment_win_over_the_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, data = tmp_path / "v", tmp_path / "data"
    vault.mkdir()
    choose_model(vault, MULTILINGUAL, data)
    monkeypatch.delenv(ENV_MODEL, raising=False)
    assert model_for(vault, None, data) == MULTILINGUAL
    assert model_for(vault, "some-folder", data) == "some-folder"
    assert model_for(None, None, data) is None
    monkeypatch.setenv(ENV_MODEL, DEFAULT_MODEL)
    assert model_for(vault, None, data) is None  # the embedder reads the environment itself


def test_every_command_uses_the_vault_s_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``status`` names the chosen model (nothing is loaded: the multilingual extra need not be
    installed for this), and ``--model`` still says otherwise for one run."""
    monkeypatch.delenv(ENV_MODEL, raising=False)
    vault, data = tmp_path / "vault", tmp_path / "data"
    vault.mkdir()
    (vault / "a.md").write_text("# Eine Notiz\n\nDas ist eine Notiz über die Dateien.\n")
    common = ["--data-dir", str(data)]
    assert main(["index", str(vault), "--no-embed", *common]) == 0
    choose_model(vault, MULTILINGUAL, data)
    capsys.readouterr()
    assert main(["status", str(vault), "--json", *common]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == MULTILINGUAL
    assert main(["status", str(vault), "--json", "--model", DEFAULT_MODEL, *common]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == DEFAULT_MODEL
