"""Starting the window: ``vault-explorer gui`` and the ``vault-explorer-gui`` launcher
(:func:`explorer.entry.window_main`).

The window is shown before anything slow happens; the index opens on the search thread and the
model loads on its own thread.  ``--screenshot PNG`` waits until the results for ``--query`` are
on screen with vectors ready (or semantic search has failed, with its banner), saves the window
and exits 0: the README's picture is made this way, headless with ``QT_QPA_PLATFORM=offscreen``.
The picture is 1440×880 unless ``$VAULT_EXPLORER_SCREENSHOT_SIZE`` says ``WIDTHxHEIGHT`` (a
laptop's 1366x768, say).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QMessageLogContext,
    QSettings,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from explorer.console import env_number
from explorer.embed.provider import EmbedderProvider, shared_provider
from explorer.gui.core.garbage import GuiThreadCollector
from explorer.gui.core.resources import APP_ID, icon_path, sample_vault, stylesheet
from explorer.gui.core.theme import apply_theme, chosen_theme
from explorer.gui.window import settings as opt
from explorer.gui.window.main_window import MainWindow
from explorer.gui.window.screenshot import ScreenshotDriver
from explorer.gui.window.settings import APPLICATION, ORGANIZATION, Settings
from explorer.home import expand_home
from explorer.index.model_choice import model_given
from explorer.search.fusion.results import SearchResponse

ENV_SCREENSHOT_TIMEOUT = "VAULT_EXPLORER_SCREENSHOT_TIMEOUT"
ENV_SCREENSHOT_SIZE = "VAULT_EXPLORER_SCREENSHOT_SIZE"
ENV_STALL_REPORT = "VAULT_EXPLORER_STALL_REPORT"
SCREENSHOT_SIZE = (1440, 880)
#: How long ``--screenshot`` waits for the results, unless the environment says.
SCREENSHOT_TIMEOUT_S = 900.0


def screenshot_size(env: Mapping[str, str] | None = None) -> tuple[int, int]:
    """The window size of ``--screenshot``: ``$VAULT_EXPLORER_SCREENSHOT_SIZE`` (``1366x768``),
    else :data:`SCREENSHOT_SIZE`; a value that is not two sizes from 320 to 10000 is refused."""
    text = (os.environ if env is None else env).get(ENV_SCREENSHOT_SIZE, "").strip()
    if not text:
        return SCREENSHOT_SIZE
    width, sep, height = text.lower().partition("x")
    if sep and width.isdigit() and height.isdigit():
        size = (int(width), int(height))
        if all(320 <= n <= 10_000 for n in size):
            return size
    raise ValueError(f"{ENV_SCREENSHOT_SIZE} must be WIDTHxHEIGHT, e.g. 1366x768 (not {text!r})")


def screenshot_timeout(env: Mapping[str, str] | None = None) -> float:
    """How long ``--screenshot`` waits for its picture, in seconds:
    ``$VAULT_EXPLORER_SCREENSHOT_TIMEOUT``, else :data:`SCREENSHOT_TIMEOUT_S` (also for a value
    that is no number of seconds from 1 to a day, which is said on stderr)."""
    return env_number(
        ENV_SCREENSHOT_TIMEOUT, SCREENSHOT_TIMEOUT_S, 1, 86_400, "a number of seconds", env
    )


def application() -> QApplication:
    """The one ``QApplication`` (created on first call) with names, icon and stylesheet."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QApplication.setOrganizationName(ORGANIZATION)
    QApplication.setApplicationName(APPLICATION)
    QApplication.setDesktopFileName(APP_ID)
    qInstallMessageHandler(_quiet_qt_messages)
    app = QApplication(sys.argv[:1])
    if icon_path().exists():
        app.setWindowIcon(QIcon(str(icon_path())))
    GuiThreadCollector(app).start()  # a QObject in a cycle dies on this thread, not a worker's
    return app


def prepare(app: QApplication, settings: Settings) -> None:
    """Theme (``$VAULT_EXPLORER_THEME`` or the saved one) and the stylesheet."""
    apply_theme(app, chosen_theme(settings.get(opt.THEME)))
    app.setStyleSheet(stylesheet())


def choose_vault(arg: str | None, settings: Settings) -> Path:
    """The vault argument, else the last vault, else the bundled sample vault."""
    if arg:
        return expand_home(arg).resolve()
    last = settings.get(opt.LAST_VAULT)
    if last and Path(last).is_dir():
        return Path(last)
    return sample_vault()


def missing_display(
    env: Mapping[str, str] | None = None, platform: str | None = None
) -> str | None:
    """Why no window can open here, or ``None``: on Linux, Qt aborts the process (SIGABRT) when
    it finds no display to connect to, so this is checked before any ``QApplication`` exists.

    A platform named in ``QT_QPA_PLATFORM`` is trusted (``offscreen``, ``vnc``, …), except X11
    or Wayland without their display."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None
    chosen = [p.strip().split(":")[0] for p in env.get("QT_QPA_PLATFORM", "").split(";")]
    chosen = [p for p in chosen if p]
    needs = {"xcb": "DISPLAY", "wayland": "WAYLAND_DISPLAY", "wayland-egl": "WAYLAND_DISPLAY"}
    if chosen and any(needs.get(p) is None or env.get(needs[p]) for p in chosen):
        return None
    if not chosen and (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return None
    return (
        "the window needs a display, and none is set (DISPLAY or WAYLAND_DISPLAY); "
        "run it in a desktop session, or headless with QT_QPA_PLATFORM=offscreen"
    )


def run_gui(args: argparse.Namespace) -> int:
    """Open the window for ``args`` (see ``vault-explorer gui --help``); returns the exit code."""
    problem = missing_display()
    if problem:
        print(f"vault-explorer: {problem}", file=sys.stderr)
        return 2
    app = application()
    screenshot = getattr(args, "screenshot", None)
    scratch: tempfile.TemporaryDirectory[str] | None = None
    size = SCREENSHOT_SIZE
    if screenshot:
        try:
            size = screenshot_size()
        except ValueError as exc:
            print(f"vault-explorer: {exc}", file=sys.stderr)
            return 2
        # A picture made with the defaults, whatever the user's saved settings are.
        scratch = tempfile.TemporaryDirectory(prefix="vault-explorer-shot-")
        settings = Settings(
            QSettings(str(Path(scratch.name) / "settings.ini"), QSettings.Format.IniFormat),
            read_only=True,
        )
    else:
        settings = Settings()
    vault = choose_vault(getattr(args, "vault", None), settings)
    if not vault.is_dir():
        print(f"vault-explorer: vault folder not found: {vault}", file=sys.stderr)
        return 2
    prepare(app, settings)
    given = getattr(args, "model", None)
    # The default model, or the one given; a vault that chose another is opened with that one.
    window = MainWindow(
        _provider(given),
        data_dir=getattr(args, "data_dir", None),
        settings=settings,
        fixed_model=model_given(given),
    )
    mode = getattr(args, "mode", None)
    if mode:
        window.set_mode(mode)
    fusion = getattr(args, "fusion", None)  # when the command line offers --fusion
    if fusion:
        window.fusion.set_options(replace(window.options(), fusion=fusion))
    # A query given starts by relevance; else each vault opens on its own last query.
    query = getattr(args, "query", None)
    if screenshot:
        query = query or ""
    if screenshot:
        window.resize(*size)
    window.show()

    def first_turn() -> None:  # the loop's first turn: the window is on screen
        logging.getLogger(__name__).info("window shown")  # bench times start-up by it
        window.open_vault(vault, query=query)

    def first_results(response: SearchResponse) -> None:  # bench times start-up by it too
        if response.hits:
            window.resultsShown.disconnect(first_results)
            lists = "words and meaning" if response.semantic.available else "words"
            logging.getLogger(__name__).info(
                "first results shown: %d hits by %s", len(response.hits), lists
            )

    window.resultsShown.connect(first_results)
    QTimer.singleShot(0, first_turn)
    exit_code: dict[str, int] = {}
    keep: list[ScreenshotDriver] = []
    if screenshot:
        timeout = screenshot_timeout()

        def finish(code: int) -> None:
            exit_code["code"] = code
            window.close()
            app.quit()

        # Referenced until the loop ends (its timers call its methods).
        keep.append(ScreenshotDriver(window, Path(screenshot), query or "", timeout, finish))
    _quit_on_interrupt(app, window)
    rc = app.exec()
    keep.clear()
    _write_stall_report(window)
    if window.isVisible():
        window.close()
    if scratch is not None:
        scratch.cleanup()
    return exit_code.get("code", int(rc))


def _provider(model: str | None) -> EmbedderProvider:
    # Not started here: the model begins to load once the window is on screen (the first
    # search or the live index starts it), so its imports do not delay the first paint.
    return shared_provider(model)


def _quit_on_interrupt(app: QApplication, window: MainWindow) -> None:
    """Ctrl+C in the terminal closes the window cleanly (Qt's loop would not see it: Python
    handles signals only when it runs, so a timer lets it run now and then)."""
    signal.signal(signal.SIGINT, lambda *_: window.close())
    ticker = QTimer(app)
    ticker.timeout.connect(lambda: None)
    ticker.start(250)


def _quiet_qt_messages(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if "propagateSizeHints" in message:  # the offscreen platform's noise on every relayout
        return
    sys.stderr.write(message + "\n")


def _write_stall_report(window: MainWindow) -> None:
    target = os.environ.get(ENV_STALL_REPORT)
    if not target:
        return
    report: dict[str, Any] = window.stall.report()
    Path(target).write_text(json.dumps(report, indent=2), encoding="utf-8")
