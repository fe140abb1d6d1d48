"""Fixtures for driving the real window offscreen: settings in a temporary INI file, windows
over a copy of the sample vault with their index in ``tmp_path``, and a sample index built once
per session with the real model (copied into each test's data dir, so no test waits for the
whole vault to be embedded again: vectors are keyed by chunk text, a copy finds them all)."""

from __future__ import annotations

import os

# Offscreen unless told otherwise, set before any Qt application exists.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.garbage import GuiThreadCollector
from explorer.gui.results.results_model import Column, Role
from explorer.gui.window.main_window import MainWindow
from explorer.gui.window.settings import Settings
from explorer.index.db import IndexDB, index_path
from explorer.index.embedding import embed_pending
from explorer.index.sync import sync_vault
from explorer.search.answers.shown import Shown
from explorer.search.query.options import SearchOptions
from tests.gui.driver import drive
from tests.sample_vault_facts import VAULT as SAMPLE_VAULT

WindowFactory = Callable[..., MainWindow]

#: The timeout of waits for a condition that holds at once when things work: a safety net only.
SAFETY_MS = 60_000

_ENDLESS_NOTES = """
CREATE TEMP VIEW notes AS
SELECT m.* FROM main.notes AS m
WHERE (WITH RECURSIVE spin(x) AS (SELECT entered() UNION ALL SELECT x + 1 FROM spin
                                  WHERE spinning())
       SELECT count(*) FROM spin) > 0
"""


class Hold:
    """Holds every search on ``conn`` inside SQLite until :meth:`release`, deterministically.

    A temporary view shadows the ``notes`` table on that connection only (the live index has
    its own), and reading it runs a recursive query that counts for as long as ``spinning()``
    says: until the statement is interrupted or the hold released.  ``entered`` counts the
    statements that got there.  After ``SAFETY_MS`` it lets go by itself: a safety net, so that
    a search nobody interrupts fails its test instead of hanging the run (a passing test never
    gets near it)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.entered = 0
        self._released = threading.Event()
        self._deadline = time.monotonic() + SAFETY_MS / 1000
        conn.create_function("entered", 0, self._entered)
        conn.create_function("spinning", 0, self._spinning)
        conn.execute(_ENDLESS_NOTES)

    def _spinning(self) -> int:
        return 0 if self._released.is_set() or time.monotonic() > self._deadline else 1

    def _entered(self) -> int:
        self.entered += 1
        return 1

    def release(self) -> None:
        self._released.set()


#: The program's QObjects destroyed on another thread than the GUI's: "Class on thread".
DESTROYED_ELSEWHERE: list[str] = []


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _watch_where_destroyed(cls: type[QObject]) -> None:
    """Wrap ``cls.__init__``: each object made is watched for the thread it is destroyed on."""
    made = cls.__dict__["__init__"]
    name = f"{cls.__module__}.{cls.__qualname__}"

    def init(self: QObject, *args: object, **kwargs: object) -> None:
        made(self, *args, **kwargs)
        if type(self).__init__ is init:  # the outermost class's wrapper watches, once

            def destroyed(*_: object) -> None:
                if threading.current_thread() is not threading.main_thread():
                    DESTROYED_ELSEWHERE.append(f"{name} on {threading.current_thread().name}")

            self.destroyed.connect(destroyed, Qt.ConnectionType.DirectConnection)

    cls.__init__ = init  # type: ignore[method-assign]


@pytest.fixture(scope="package", autouse=True)
def _watch_qobjects(qapp: QApplication) -> Iterator[None]:
    """Every QObject of the program, watched for where it is destroyed (all modules are
    imported once the tests are collected); Python's garbage collected on the GUI thread, as
    the application does, until the last window test (the other tests collect as usual)."""
    for cls in set(_subclasses(QObject)):
        if cls.__module__.startswith("explorer.") and "__init__" in cls.__dict__:
            _watch_where_destroyed(cls)
    collector = GuiThreadCollector()  # as the application does (explorer.gui.window.app)
    collector.start()
    yield
    collector.stop()


@pytest.fixture(autouse=True)
def _qobjects_die_on_the_gui_thread() -> Iterator[None]:
    """No QObject of the program is destroyed off the GUI thread (Qt's state would be
    corrupted: a CI run once hung in ``QObject::connectImpl``).  An object a test leaves may
    die during the next one, which then fails: the message names its class and thread."""
    yield
    elsewhere, DESTROYED_ELSEWHERE[:] = list(DESTROYED_ELSEWHERE), []
    assert not elsewhere, f"QObjects destroyed off the GUI thread: {elsewhere}"


@pytest.fixture
def gui_settings(tmp_path: Path) -> Settings:
    """Settings in a private INI file (never the user's configuration)."""
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def fake_provider() -> EmbedderProvider:
    return EmbedderProvider.of(FakeEmbedder())


@pytest.fixture
def make_window(qtbot: QtBot, gui_settings: Settings, data_dir: Path) -> Iterator[WindowFactory]:
    """``make_window(provider, vault)``: a shown window with ``vault`` opened (on ``query``,
    as ``--query`` opens it); closed (and its live index stopped) at the end of the test."""
    windows: list[MainWindow] = []

    def make(
        provider: EmbedderProvider,
        vault: Path,
        *,
        settings: Settings | None = None,
        watch: bool = True,
        query: str | None = None,
    ) -> MainWindow:
        window = MainWindow(
            provider, data_dir=str(data_dir), settings=settings or gui_settings, watch=watch
        )
        window.resize(1400, 860)
        window.show()
        qtbot.waitExposed(window)
        drive(window, qtbot).open_vault(vault, query=query)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()


def index_with_fake_vectors(vault: Path, data_dir: Path) -> Path:
    """Index ``vault`` into ``data_dir`` and give every chunk a FakeEmbedder vector; ``vault``."""
    db = IndexDB.open(vault, data_dir)
    try:
        sync_vault(db)
        embed_pending(db, FakeEmbedder())
    finally:
        db.close()
    return vault


def wait_for_results(
    qtbot: QtBot,
    window: MainWindow,
    query: str,
    check: Callable[[MainWindow], None] | None = None,
    timeout: int = 15_000,
) -> None:
    """Wait until the window shows the results of ``query`` (and ``check`` passes)."""
    drive(window, qtbot).wait_for_results(query, check, timeout)


def wait_indexed(qtbot: QtBot, window: MainWindow, timeout: int = 20_000) -> None:
    """Wait until the live index is idle (start-up reconcile done, nothing left to embed)."""
    drive(window, qtbot).wait_indexed(timeout)


def record_searches(window: MainWindow) -> list[str]:
    """The queries the window asks its search thread for, from now on."""
    session = window.session
    assert session is not None
    requested: list[str] = []
    search = session.search

    def recording(raw: str, options: SearchOptions, shown: Shown | None = None) -> int:
        requested.append(raw)
        return search(raw, options, shown)

    session.search = recording  # type: ignore[method-assign]
    return requested


def cell(window: MainWindow, row: int, column: Column) -> str:
    """The text shown at a view row (after sorting) and column."""
    return drive(window).cell(row, column)


def row_of(window: MainWindow, path: str) -> int:
    return drive(window).row_of(path)


def row_pixel(window: MainWindow, row: int) -> QColor:
    """The colour the table painted at the left edge of view row ``row`` (the rank column's
    padding: its number is right-aligned, so no text is there)."""
    table = window.table
    image: QImage = table.viewport().grab().toImage()
    x = table.columnViewportPosition(Column.RANK) + 2
    y = table.rowViewportPosition(row) + table.rowHeight(row) // 2
    ratio = image.devicePixelRatio()
    return image.pixelColor(int(x * ratio), int(y * ratio))


def unselected_row_with(window: MainWindow, source: str) -> int:
    current = window.table.currentIndex().row()
    for row in range(drive(window).row_count()):
        if row != current and window.proxy.index(row, 0).data(Role.SOURCE) == source:
            window.table.scrollTo(window.proxy.index(row, 0))
            return row
    raise AssertionError(f"no {source}-only row among {drive(window).rows()}")


@pytest.fixture(scope="session")
def sample_index_seed(
    tmp_path_factory: pytest.TempPathFactory, real_provider: EmbedderProvider
) -> Path:
    """The sample vault indexed and embedded once with the real model; the database file."""
    root = tmp_path_factory.mktemp("seed")
    vault = root / "sample-vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    db = IndexDB.open(vault, root / "data")
    sync_vault(db)
    embed_pending(db, real_provider.get())
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = db.path
    db.close()
    return path


@pytest.fixture
def seeded_sample(sample_copy: Path, data_dir: Path, sample_index_seed: Path) -> Path:
    """A private copy of the sample vault whose index (in ``data_dir``) already has every
    vector of the real model."""
    target = index_path(sample_copy, data_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sample_index_seed, target)
    conn = sqlite3.connect(target)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'vault'", (str(sample_copy.resolve()),))
    conn.commit()
    conn.close()
    return sample_copy


#: A small vault with frontmatter properties (status, rating, due, created, tags) and known
#: modification times (days ago), for the sort, facets, history and saved-search tests.
PROPERTY_NOTES: dict[str, tuple[str, int]] = {
    "projects/alpha.md": (
        "---\nstatus: open\nrating: 4\ndue: 2025-03-01\ncreated: 2024-01-10\n"
        "tags: [project, ops]\n---\n# Alpha plan\n\nThe alpha deploy plan.\n",
        3,
    ),
    "projects/beta.md": (
        "---\nstatus: done\nrating: 2\ncreated: 2024-05-01\ntags: [project]\n---\n"
        "# Beta plan\n\nThe beta deploy plan, finished.\n",
        10,
    ),
    "projects/gamma.md": (
        "---\nstatus: open\nrating: 5\ndue: 2024-12-24\ncreated: 2023-11-20\n"
        "tags: [project]\n---\n# Gamma plan\n\nThe gamma deploy plan, under way.\n",
        1,
    ),
    "reading/zeta.md": (
        '---\nstatus: "in progress"\nrating: 3\ntags: [reading]\n---\n'
        "# Zeta book\n\nA book about deploy pipelines and their plan.\n",
        30,
    ),
    "meeting.md": ("# Meeting\n\nWe talked about the deploy plan.\n", 5),
}


def write_property_vault(vault: Path) -> Path:
    """Write :data:`PROPERTY_NOTES` into ``vault``, each modified its days ago."""
    now = time.time()
    for rel, (text, days) in PROPERTY_NOTES.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (now - days * 86400, now - days * 86400))
    return vault


@pytest.fixture
def property_vault(vault: Path, data_dir: Path) -> Path:
    """:data:`PROPERTY_NOTES` in ``vault``, indexed with FakeEmbedder vectors in ``data_dir``."""
    return index_with_fake_vectors(write_property_vault(vault), data_dir)
