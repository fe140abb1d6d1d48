"""``~user`` that names nobody, wherever a path is taken (the vault, ``--data-dir``,
``$VAULT_EXPLORER_DATA``, ``--model``, ``$VAULT_EXPLORER_MODEL``, ``mcp``): one line and exit
status 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.entry import main
from explorer.home import HomeUnknown, expand_home

NOBODY = "~nosuchuser-vault-explorer"


def test_a_home_that_exists_is_expanded() -> None:
    assert expand_home("~/notes") == Path.home() / "notes"
    assert expand_home("notes/~x") == Path("notes/~x")


def test_a_user_that_does_not_exist_is_one_line() -> None:
    with pytest.raises(HomeUnknown, match=f"^cannot expand {NOBODY}: no such user$"):
        expand_home(f"{NOBODY}/notes")


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["search", f"{NOBODY}/notes", "x"], {}),
        (["status", f"{NOBODY}/notes"], {}),
        (["mcp", f"{NOBODY}/notes"], {}),
        (["mcp", "--print-config", f"{NOBODY}/notes"], {}),
        (["search", "{vault}", "x", "--data-dir", f"{NOBODY}/data"], {}),
        (["status", "{vault}"], {"VAULT_EXPLORER_DATA": f"{NOBODY}/data"}),
        (["mcp", "{vault}"], {"VAULT_EXPLORER_DATA": f"{NOBODY}/data"}),
        (["search", "{vault}", "x", "--model", f"{NOBODY}/model"], {}),
        (["search", "{vault}", "x"], {"VAULT_EXPLORER_MODEL": f"{NOBODY}/model"}),
    ],
)
def test_an_unknown_home_is_a_usage_error(
    vault: Path,
    args: list[str],
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    assert main([a.replace("{vault}", str(vault)) for a in args]) == 2
    err = capsys.readouterr().err
    assert err == f"vault-explorer: cannot expand {NOBODY}: no such user\n"
