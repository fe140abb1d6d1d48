"""What several window tests share: a window set up and searched, a response made by hand, the
images a document shows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QTextBrowser
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.window.main_window import MainWindow
from explorer.index.migrations import LATEST_VERSION
from explorer.index.status import IndexReport
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import SearchOptions
from tests.gui.conftest import WindowFactory, wait_for_results, wait_indexed
from tests.gui.driver import drive
from tests.search.helpers import candidates


def calibrated_window(
    qtbot: QtBot, make_window: WindowFactory, provider: EmbedderProvider, vault: Path
) -> MainWindow:
    window = make_window(provider, vault)
    wait_indexed(qtbot, window)
    drive(window).set_options(replace(drive(window).options(), fusion="calibrated"))
    return window


def search(qtbot: QtBot, window: MainWindow, query: str) -> None:
    def with_vectors(w: MainWindow) -> None:
        assert w.response is not None and w.response.semantic.available

    drive(window).set_query(query)
    wait_for_results(qtbot, window, query, with_vectors)


#: The settings these tests compute by hand (the seed's RRF with the old absolute floor), not
#: the defaults, which measurement may move.
BASE = SearchOptions(fusion="rrf", k=60.0, w_fts=0.7, w_vec=0.3, min_sim=0.3, min_rel=0.0)


def response(**options: float | str) -> SearchResponse:
    return fuse(candidates(), replace(BASE, **options))  # type: ignore[arg-type]


def shown_images(browser: QTextBrowser) -> dict[str, object]:
    """Every image the document lays out, by its source, with the resource Qt draws for it."""
    doc = browser.document()
    images: dict[str, object] = {}
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                name = fmt.toImageFormat().name()
                images[name] = doc.resource(int(QTextDocument.ResourceType.ImageResource), name)
            it += 1
        block = block.next()
    return images


def vault_files(vault: Path) -> set[str]:
    """Every file and folder under ``vault``, relative: what a test checks nothing was added to."""
    return {str(p.relative_to(vault)) for p in vault.rglob("*")}


def index_report(**changes: Any) -> IndexReport:
    """An index's report as the status bar reads it: a vault of 100 notes, every chunk
    embedded with all-MiniLM-L6-v2, with ``changes``."""
    report = IndexReport(
        vault="/v",
        database="/d",
        database_bytes=0,
        schema_version=LATEST_VERSION,
        tokenizer="",
        notes=100,
        chunks=100,
        model="all-MiniLM-L6-v2",
        vectors=100,
        pending_embeddings=0,
    )
    return replace(report, **changes)
