"""The program's log: one ``explorer`` logger, the terminal at -v's level, the window's file."""

from __future__ import annotations

import io
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.commands.program import main
from explorer.logs import ROOT, configure, level_for, log_file


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    logger = logging.getLogger(ROOT)
    handlers, level = list(logger.handlers), logger.level
    yield
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        if handler not in handlers:
            handler.close()
    for handler in handlers:
        logger.addHandler(handler)
    logger.setLevel(level)


def test_verbosity_sets_what_the_terminal_shows() -> None:
    assert [level_for(n) for n in (0, 1, 2, 5)] == [
        logging.WARNING,
        logging.INFO,
        logging.DEBUG,
        logging.DEBUG,
    ]
    out = io.StringIO()
    configure(1, stream=out)
    module = logging.getLogger("explorer.live.writer")
    module.debug("hidden")
    module.info("indexed 3 notes")
    assert out.getvalue() == "vault-explorer: indexed 3 notes\n"


def test_configuring_again_replaces_the_handlers_instead_of_doubling_lines() -> None:
    out = io.StringIO()
    configure(0, stream=out)
    configure(0, stream=out, prefix="vault-explorer mcp")
    logging.getLogger("explorer.mcp.server").warning("slow answer")
    assert out.getvalue() == "vault-explorer mcp: slow answer\n"


def test_the_file_keeps_information_the_terminal_does_not_show(tmp_path: Path) -> None:
    out = io.StringIO()
    path = log_file(tmp_path)
    configure(0, stream=out, file=path)
    logging.getLogger("explorer.live.embedder").info("embedded 16 chunks")
    for handler in logging.getLogger(ROOT).handlers:
        handler.flush()
    assert out.getvalue() == ""
    assert "INFO explorer.live.embedder: embedded 16 chunks" in path.read_text(encoding="utf-8")


def test_the_log_file_is_its_owners_alone(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = log_file(tmp_path / "data")
        configure(0, stream=io.StringIO(), file=path)
        logging.getLogger("explorer.gui.window.app").warning("said")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_log_file_that_cannot_be_made_is_said_not_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    out = io.StringIO()
    configure(0, stream=out, file=blocker / "logs" / "window.log")
    logging.getLogger("explorer.gui.window.app").warning("still said")
    logging.getLogger("explorer.gui.window.app").warning("and again")
    assert out.getvalue() == "vault-explorer: still said\nvault-explorer: and again\n"
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("vault-explorer: no log file at "), err


def test_the_log_file_is_made_at_its_first_record_only(tmp_path: Path) -> None:
    configure(0, stream=io.StringIO(), file=log_file(tmp_path / "data"))
    logging.getLogger("explorer.gui.window.app").debug("below every handler")
    assert not (tmp_path / "data").exists()


def test_the_window_logs_to_its_data_folder(tmp_path: Path) -> None:
    seen: list[int] = []

    def window(args: object) -> int:
        logging.getLogger("explorer.gui.window.main_window").info("window opened")
        seen.append(1)
        return 0

    vault = tmp_path / "vault"
    vault.mkdir()
    assert main(["gui", str(vault), "--data-dir", str(tmp_path / "data")], gui=window) == 0
    assert seen
    for handler in logging.getLogger(ROOT).handlers:
        handler.flush()
    text = log_file(tmp_path / "data").read_text(encoding="utf-8")
    assert "explorer.gui.window.main_window: window opened" in text
