"""Starting the window: ``vault-explorer gui`` and the ``vault-explorer-gui`` launcher."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.gui.window.app import (
    ENV_SCREENSHOT_SIZE,
    ENV_SCREENSHOT_TIMEOUT,
    SCREENSHOT_SIZE,
    SCREENSHOT_TIMEOUT_S,
    missing_display,
    screenshot_size,
    screenshot_timeout,
)

NO_DISPLAY = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland displays")
@pytest.mark.parametrize(
    "launcher",
    [
        ["-m", "explorer", "gui"],
        [
            "-c",
            "import sys; from explorer.entry import window_main as main; "
            "sys.exit(main(sys.argv[1:]))",
        ],
    ],
    ids=["vault-explorer gui", "vault-explorer-gui"],
)
def test_without_a_display_it_says_so_in_one_line_and_exits_2(
    tmp_path: Path, launcher: list[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in NO_DISPLAY}
    done = subprocess.run(
        [sys.executable, *launcher, str(vault), "--data-dir", str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a safety net: it must end on its own
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "display" in lines[0] and "QT_QPA_PLATFORM=offscreen" in lines[0], lines[0]
    assert not (tmp_path / "data").exists()  # nothing was opened


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, True),
        ({"DISPLAY": ":0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": ""}, True),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":1"}, False),
        ({"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":1"}, False),
        ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, False),
    ],
)
def test_which_environments_lack_a_display(env: dict[str, str], missing: bool) -> None:
    assert (missing_display(env, "linux") is not None) == missing
    assert missing_display({}, "darwin") is None
    assert missing_display({}, "win32") is None


def test_the_screenshot_size_comes_from_the_environment() -> None:
    assert screenshot_size({}) == SCREENSHOT_SIZE
    assert screenshot_size({ENV_SCREENSHOT_SIZE: "1366x768"}) == (1366, 768)
    assert screenshot_size({ENV_SCREENSHOT_SIZE: " 1440X900 "}) == (1440, 900)
    for bad in ("1366", "1366x", "x768", "-5x700", "100x100", "1366x768x2", "wide"):
        with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
            screenshot_size({ENV_SCREENSHOT_SIZE: bad})


@pytest.mark.parametrize("bad", ["abc", "nan", "1e400", "inf", "-5", "0", "9" * 500])
def test_a_screenshot_timeout_that_is_no_number_of_seconds_is_said_and_the_default_used(
    bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert screenshot_timeout({ENV_SCREENSHOT_TIMEOUT: bad}) == SCREENSHOT_TIMEOUT_S
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and len(err[0]) < 200
    assert err[0].startswith(f"vault-explorer: {ENV_SCREENSHOT_TIMEOUT} takes a number of seconds")
    assert err[0].endswith(f"using {SCREENSHOT_TIMEOUT_S:g}")


def test_the_screenshot_timeout_comes_from_the_environment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert screenshot_timeout({}) == SCREENSHOT_TIMEOUT_S
    assert screenshot_timeout({ENV_SCREENSHOT_TIMEOUT: " 30 "}) == 30
    assert screenshot_timeout({ENV_SCREENSHOT_TIMEOUT: "2.5"}) == 2.5
    assert capsys.readouterr().err == ""
