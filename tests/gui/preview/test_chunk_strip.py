"""The chunk strip beside the preview: one band per chunk, the best one marked, a click scrolls
the note to its chunk, a double-click shows the exact text embedded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.core.theme import tints
from explorer.gui.preview.chunk_strip import ChunkStrip, ChunkTextDialog, chunk_summary
from explorer.gui.window.main_window import MainWindow
from explorer.index.db import IndexDB
from explorer.search.lists.chunk_scores import ChunkView, NoteChunks
from tests.gui.conftest import SAFETY_MS, WindowFactory, wait_for_results, wait_indexed
from tests.gui.driver import drive

Write = Callable[[str, str | bytes], Path]


def _assert(ok: bool) -> None:
    assert ok


def _chunks() -> NoteChunks:
    """A note of 1,000 characters after a 100-character frontmatter, cut in four."""
    views = (
        ChunkView(0, 100, 300, 0.20, 9, "Intro words here"),
        ChunkView(1, 300, 600, 0.55, 1, "Title\nThe best words", title_added="Title"),
        ChunkView(2, 600, 900, 0.40, 3, "Second best words " * 40, pieces=300, limit=256, read=70),
        ChunkView(3, 900, 1100, None, None, "Not embedded yet"),
    )
    return NoteChunks("notes/long.md", views, 100, 1100, 2, 30, 120)


def test_one_band_per_chunk_at_its_place_the_best_full_and_marked(qtbot: QtBot) -> None:
    strip = ChunkStrip()
    qtbot.addWidget(strip)
    strip.resize(22, 500)
    strip.set_chunks(_chunks())
    strip.show()
    bands = strip.band_rects()
    assert [c.seq for c, _ in bands] == [0, 1, 2, 3]
    # Where the note was cut: 200, 300, 300 and 200 of its 1,000 body characters.
    assert [(r.top(), r.height()) for _, r in bands] == [
        (0, 100),
        (100, 150),
        (250, 150),
        (400, 100),
    ]
    amber = tints(strip.palette()).vector_bar
    base = strip.palette().base().color()
    best, second, first, pending = (
        strip.shade(c) for c in (bands[1][0], bands[2][0], bands[0][0], bands[3][0])
    )
    assert best == amber and pending == base
    assert _distance(second, amber) < _distance(first, amber) < _distance(base, amber)
    image = strip.grab().toImage()
    # A filled mark in the gutter points at the best band; none at the others.
    mark = strip.palette().text().color()
    assert _distance(QColor(image.pixel(2, 175)), mark) < 60
    assert _distance(QColor(image.pixel(14, 175)), amber) < 10
    assert _distance(QColor(image.pixel(2, 50)), mark) > 60


def _distance(a: QColor, b: QColor) -> int:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue())


def test_the_tooltip_says_cosine_rank_and_what_the_model_cut() -> None:
    chunks = _chunks()
    best = chunk_summary(chunks, chunks.chunks[1])
    assert "Chunk 2 of 4 · characters 300–600" in best
    assert "cosine 0.550 · rank 1 of the vault's 120 chunks" in best
    assert "the note's best chunk: the vector list ranks the note by it (rank 2)" in best
    second = chunk_summary(chunks, chunks.chunks[2])
    assert "runner-up" in second and "cut by the model: 300 word pieces, it reads 256" in second
    assert "no vector yet" in chunk_summary(chunks, chunks.chunks[3])


def test_a_click_names_the_chunk_and_a_double_click_opens_it(qtbot: QtBot) -> None:
    strip = ChunkStrip()
    qtbot.addWidget(strip)
    strip.resize(22, 500)
    strip.set_chunks(_chunks())
    strip.show()
    with qtbot.waitSignal(strip.chunkClicked) as clicked:
        qtbot.mouseClick(strip, Qt.MouseButton.LeftButton, pos=QPoint(14, 300))
    assert clicked.args == [2]
    with qtbot.waitSignal(strip.chunkOpened) as opened:
        qtbot.mouseDClick(strip, Qt.MouseButton.LeftButton, pos=QPoint(14, 120))
    assert opened.args == [1]


def test_the_dialog_shows_the_text_embedded_and_strikes_what_the_model_did_not_read(
    qtbot: QtBot,
) -> None:
    chunks = _chunks()
    dialog = ChunkTextDialog()
    qtbot.addWidget(dialog)
    dialog.show_chunk(chunks, chunks.chunks[2])
    text = chunks.chunks[2].embedded
    assert dialog.text.toPlainText().strip() == text.strip()
    assert "The model read 256 of its 300 word pieces" in dialog.facts.text()
    cursor = dialog.text.document().find("words", 75)  # past the 70 characters read
    assert cursor.charFormat().fontStrikeOut()
    assert not dialog.text.document().find("Second").charFormat().fontStrikeOut()
    dialog.show_chunk(chunks, chunks.chunks[1])
    assert (
        "Where it stands, “Title” (the note's title and the headings above it), was put in front"
        in dialog.facts.text()
    )
    assert "not known" in dialog.facts.text()


FILLER = "Each line here only takes room, so that every section becomes a chunk of its own. " * 5
SECTIONS = [
    ("Planning", "The roadmap review with the product team."),
    ("Outage", "The deploy pipeline stalled and the release was rolled back."),
    ("Garden", "Tomato vines tied to bamboo stakes on the allotment."),
    ("Budget", "Invoices for compost, seeds and a new hose."),
    ("Travel", "Train tickets to Lisbon for the conference in May."),
]
LONG = "# Journal\n\n" + "".join(
    f"## {title}\n\n{line} {FILLER}\n\n" + (FILLER + "\n\n") * 6 for title, line in SECTIONS
)


def test_the_window_shows_the_strip_of_the_selected_hit_and_goes_to_a_chunk(
    qtbot: QtBot,
    make_window: WindowFactory,
    fake_provider: EmbedderProvider,
    vault: Path,
    write: Write,
    data_dir: Path,
) -> None:
    write("journal.md", LONG)
    write("other.md", "# Other\n\nNothing about gardens.\n")
    window: MainWindow = make_window(fake_provider, vault)
    wait_indexed(qtbot, window)
    drive(window).set_query("tomato vines bamboo stakes")

    def with_vectors(w: MainWindow) -> None:
        assert w.response is not None and w.response.semantic.available

    wait_for_results(qtbot, window, "tomato vines bamboo stakes", with_vectors)
    window.table.selectRow(0)
    pane = window.preview
    strip = pane.chunk_strip
    qtbot.waitUntil(
        lambda: _assert(strip.isVisible() and strip.chunks is not None), timeout=SAFETY_MS
    )
    db = IndexDB.open_reader(vault, str(data_dir))
    try:
        rows = db.conn.execute(
            "SELECT c.seq, c.text FROM chunks c JOIN notes n ON n.id = c.note_id "
            "WHERE n.path = 'journal.md' ORDER BY c.seq"
        ).fetchall()
    finally:
        db.close()
    chunks = strip.chunks
    assert chunks is not None and len(strip.band_rects()) == len(rows) >= 10
    best = chunks.best
    assert best is not None and "Tomato vines" in best.embedded
    # The travel section is far below the best chunk: its band scrolls the note down to it.
    travel = next(c for c in chunks.chunks if "Train tickets" in c.embedded)
    qtbot.waitUntil(lambda: _assert(pane.shown_path == "journal.md"), timeout=SAFETY_MS)
    rect = dict((c.seq, r) for c, r in strip.band_rects())[travel.seq]
    qtbot.mouseClick(strip, Qt.MouseButton.LeftButton, pos=rect.center())
    assert pane.note.verticalScrollBar().value() > 0
    top = pane.note.cursorForPosition(QPoint(10, 12)).block().text()
    assert top == "Travel"
    with qtbot.waitSignal(strip.chunkOpened):
        qtbot.mouseDClick(strip, Qt.MouseButton.LeftButton, pos=rect.center())
    dialog = pane.chunk_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.text.toPlainText().strip() == travel.embedded.strip()
