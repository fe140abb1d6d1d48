"""The preview pane on its own: nothing remote is fetched, links open only when clicked, the
best chunk is scrolled into view."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import (
    QDesktopServices,
    QFontMetrics,
    QImage,
    QPixmap,
    QTextCursor,
    QTextDocument,
    QTextFrame,
)
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.gui.preview.preview import NoteBrowser, PreviewPane
from explorer.preview.budget import CALLOUT_DEPTH, EMBED_CHARS, LONG_WORD
from explorer.search.explain.scoring import ExplainContext
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import parse_query
from tests.gui.conftest import SAFETY_MS
from tests.gui.helpers import shown_images


class UrlRecorder(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def handle(self, url: QUrl) -> None:
        self.urls.append(url.toString())


def make_hit(path: str, chunk: tuple[int, int] | None = None) -> Hit:
    return Hit(path, "T", "", 0.01, {"fts": 0.01, "vector": 0.0}, 1, None, 1.0, None, "fts", chunk)


def show(qtbot: QtBot, pane: PreviewPane, hit: Hit, query: str = "") -> None:
    ctx = ExplainContext(SearchOptions(), 1, 1, 1, 0, False, "off")
    pane.show_hit(hit, parse_query(query), ctx)
    qtbot.waitUntil(lambda: _assert(pane.shown_path == hit.path))


def test_remote_resources_are_refused_and_local_ones_stay_in_the_vault(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    (vault / "img").mkdir(parents=True)
    image = QImage(4, 4, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.red)
    image.save(str(vault / "img" / "dot.png"))
    (tmp_path / "outside.png").write_bytes((vault / "img" / "dot.png").read_bytes())
    browser = NoteBrowser()
    qtbot.addWidget(browser)
    browser.vault = vault
    browser.document().setBaseUrl(QUrl.fromLocalFile(str(vault) + "/"))
    kind = int(QTextDocument.ResourceType.ImageResource)
    # An empty image, not "nothing": given nothing, Qt's document would load the file itself.
    for refused in (
        QUrl("https://example.com/pixel.png"),
        QUrl("http://example.com/a.png"),
        QUrl("http:a.png"),
        QUrl.fromLocalFile(str(tmp_path / "outside.png")),
        QUrl("../outside.png"),
        QUrl("img/dot.png"),  # inside, but not among the note's images the worker loaded
    ):
        assert _is_empty_image(browser.loadResource(kind, refused)), refused
    assert "https://example.com/pixel.png" in browser.blocked
    # Even HTML that slips an <img> through asks this method, and gets nothing.
    browser.blocked.clear()
    browser.show()
    browser.setHtml('<p>x</p><img src="https://example.com/track.png">')
    qtbot.waitUntil(lambda: _assert("https://example.com/track.png" in browser.blocked))
    assert [_is_empty_image(v) for v in shown_images(browser).values()] == [True]


def test_links_open_in_the_system_browser_only_when_clicked(qtbot: QtBot, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "n.md").write_text(
        "# Note\n\nSee [the site](https://example.com/page) for more.\n", encoding="utf-8"
    )
    recorder = UrlRecorder()
    QDesktopServices.setUrlHandler("https", recorder, "handle")
    try:
        pane = PreviewPane()
        qtbot.addWidget(pane)
        pane.resize(600, 500)
        pane.show()
        pane.set_vault(vault)
        show(qtbot, pane, make_hit("n.md"))
        assert recorder.urls == []  # rendering opened nothing
        found = pane.note.document().find("the site")
        cursor = QTextCursor(pane.note.document())
        cursor.setPosition(found.selectionStart() + 2)
        point = pane.note.cursorRect(cursor).center()
        qtbot.mouseClick(pane.note.viewport(), Qt.MouseButton.LeftButton, pos=point)
        assert recorder.urls == ["https://example.com/page"]
    finally:
        QDesktopServices.unsetUrlHandler("https")


def test_best_chunk_is_scrolled_into_view(qtbot: QtBot, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    paragraphs = [f"Paragraph {i} about nothing in particular." for i in range(200)]
    paragraphs[150] = "The needle paragraph, the one that matched."
    text = "# Long\n\n" + "\n\n".join(paragraphs) + "\n"
    (vault / "long.md").write_text(text, encoding="utf-8")
    start = text.index("The needle")
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(600, 500)
    pane.show()
    pane.set_vault(vault)
    show(qtbot, pane, make_hit("long.md", (start, start + 44)), "needle")
    bar = pane.note.verticalScrollBar()
    assert bar.value() > bar.maximum() // 2  # far down the note, where the passage is
    html = pane.note.toHtml()
    assert "best-matching passage" in pane.note.toPlainText()
    assert "needle" in html


def _in_view(pane: PreviewPane, words: str) -> bool:
    """Whether ``words`` of the shown note are within the note's viewport."""
    found = pane.note.document().find(words)
    if found.isNull():
        return False
    rect = pane.note.cursorRect(found)
    return pane.note.viewport().rect().contains(rect.center())


def test_the_passage_read_stays_in_view_when_the_preview_is_resized(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """The preview was often not scrolled to the best passage after a resize, while the strip
    still marked it (issue 46): the scroll bar kept its pixels while the text above the
    passage reflowed."""
    vault = tmp_path / "vault"
    vault.mkdir()
    paragraphs = [
        f"Paragraph {i} about nothing in particular, long enough to wrap on a narrow pane "
        "when the pane is made narrower than it was."
        for i in range(120)
    ]
    paragraphs[90] = "The needle paragraph, the one that matched."
    text = "# Long\n\n" + "\n\n".join(paragraphs) + "\n"
    (vault / "long.md").write_text(text, encoding="utf-8")
    start = text.index("The needle")
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(900, 500)
    pane.show()
    pane.set_vault(vault)
    show(qtbot, pane, make_hit("long.md", (start, start + 44)), "needle")
    qtbot.waitUntil(lambda: _in_view(pane, "The needle paragraph"))
    pane.resize(420, 500)  # the text above the passage now takes twice the lines
    qtbot.waitUntil(lambda: pane.note.width() < 450)
    qtbot.waitUntil(lambda: _in_view(pane, "The needle paragraph"))
    pane.resize(1000, 500)
    qtbot.waitUntil(lambda: pane.note.width() > 600)
    qtbot.waitUntil(lambda: _in_view(pane, "The needle paragraph"))


def test_the_best_passage_stays_in_view_when_the_note_is_rendered_again(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """After an edit the note is rendered again where the reader is: the scroll bar kept its
    pixels while the text above the passage grew, and the passage the strip marked was out of
    view (issue 46)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    paragraphs = [f"Paragraph {i} about nothing in particular." for i in range(120)]
    paragraphs[90] = "The needle paragraph, the one that matched."
    text = "# Long\n\n" + "\n\n".join(paragraphs) + "\n"
    (vault / "long.md").write_text(text, encoding="utf-8")
    start = text.index("The needle")
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    pane.show()
    pane.set_vault(vault)
    show(qtbot, pane, make_hit("long.md", (start, start + 44)), "needle")
    qtbot.waitUntil(lambda: _in_view(pane, "The needle paragraph"))
    added = "\n\n".join(f"An added paragraph {i}." for i in range(60))
    edited = text.replace("# Long\n\n", f"# Long\n\n{added}\n\n")
    (vault / "long.md").write_text(edited, encoding="utf-8")
    # The re-search after the edit selects the hit at the passage's new place, and the note
    # is rendered again for the edit before that hit's note was shown.
    start = edited.index("The needle")
    pane.show_hit(
        make_hit("long.md", (start, start + 44)),
        parse_query("needle"),
        ExplainContext(SearchOptions(), 1, 1, 1, 0, False, "off"),
    )
    pane.notes_changed(["long.md"])
    qtbot.waitUntil(lambda: "An added paragraph 59" in pane.note.toPlainText())
    qtbot.waitUntil(lambda: _in_view(pane, "The needle paragraph"))
    # Scrolled away by the reader, a re-render leaves them where they are.
    pane.note.verticalScrollBar().setValue(0)
    pane.refresh()
    qtbot.waitUntil(lambda: _in_view(pane, "An added paragraph 0"))
    assert pane.note.verticalScrollBar().value() == 0


def test_the_explain_block_is_as_tall_as_its_text_until_the_reader_drags(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "n.md").write_text("# N\n\nA short note.\n", encoding="utf-8")
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(380, 600)
    pane.show()
    pane.set_vault(vault)
    explain = pane.explain
    note = Hit("n.md", "N", "", 0.01, {"fts": 0.01}, 1, None, 1.0, None, "fts", None)
    show(qtbot, pane, note)
    short = pane.splitter.sizes()[0]
    qtbot.waitUntil(lambda: _assert(explain.verticalScrollBar().maximum() == 0))
    # A longer explanation (a stale note, extra lines): the block grows with it, whole.
    ctx = ExplainContext(SearchOptions(), 1, 1, 1, 0, False, "off", extra=["more"] * 8)
    pane.show_hit(replace(note, status="stale"), parse_query(""), ctx)
    qtbot.waitUntil(lambda: _assert(pane.splitter.sizes()[0] > short))
    qtbot.waitUntil(lambda: _assert(explain.verticalScrollBar().maximum() == 0))
    # The reader drags the handle: their height stays, whatever is explained next.
    pane.splitter.moveSplitter(60, 1)
    chosen = pane.splitter.sizes()[0]
    show(qtbot, pane, replace(note, path="n.md", title="Again"))
    pane.show_hit(note, parse_query(""), ctx)
    assert pane.splitter.sizes()[0] == chosen


def _assert(condition: bool) -> None:
    assert condition


# ----------------------------------------------------------------------------- images

#: Over the preview's size cap for one image (20 MB).
OVER_CAP = 20 * 1024 * 1024 + 1


#: The rescuer: after ``timeout`` seconds without word from the test (its stdin closing), it
#: opens the FIFO's other end, which lets a reader blocked in ``open`` go, and says so.
_RESCUER = """
import os, select, sys
fifo, timeout = sys.argv[1], float(sys.argv[2])
ready, _, _ = select.select([sys.stdin], [], [], timeout)
if not ready:
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        pass  # nobody is waiting to read it
    else:
        os.close(fd)
        print("fired", flush=True)
"""


class FifoRescue:
    """The test's safety net against a GUI thread blocked in ``open`` of a FIFO: unless the
    test is done within ``timeout`` seconds, another process releases the FIFO (and the test
    fails because it had to).  A process, because the blocked thread holds the interpreter
    lock: no thread of this one could run.  Never a speed threshold: a passing run never waits
    for it."""

    def __init__(self, fifo: Path | None, timeout: float = 60.0) -> None:
        self.fifo = fifo
        self.timeout = timeout
        self.fired = False
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> FifoRescue:
        if self.fifo is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _RESCUER, str(self.fifo), str(self.timeout)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()  # the test is done: the rescuer exits
            assert self._proc.stdout is not None
            self.fired = b"fired" in self._proc.stdout.read()
            self._proc.wait()


def _fifo_has_reader(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        assert exc.errno == errno.ENXIO, exc
        return False
    os.close(fd)
    return True


def _png(path: Path, colour: Qt.GlobalColor = Qt.GlobalColor.red) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = QImage(4, 4, QImage.Format.Format_RGB32)
    image.fill(colour)
    assert image.save(str(path))
    return path


def _is_empty_image(resource: object) -> bool:
    return isinstance(resource, QImage) and resource.isNull()


def _is_picture(resource: object) -> bool:
    return isinstance(resource, QImage | QPixmap) and not resource.isNull()


def _hostile(kind: str, tmp_path: Path, vault: Path) -> tuple[str, Path | None]:
    """The image source a note uses for the case ``kind`` (and the FIFO, if it is one)."""
    outside = _png(tmp_path / "outside" / "pic.png", Qt.GlobalColor.green)
    if kind == "fifo":
        fifo = vault / "pipe.png"
        os.mkfifo(fifo)
        return "pipe.png", fifo
    if kind == "device":
        return "/dev/zero", None
    if kind == "parent":
        return "../outside/pic.png", None
    if kind == "absolute":
        return str(outside), None
    if kind == "symlink":
        (vault / "link.png").symlink_to(outside)
        return "link.png", None
    if kind == "over-cap":
        big = vault / "big.png"
        big.write_bytes(outside.read_bytes())
        os.truncate(big, OVER_CAP)  # sparse: a real file of that size, no disk used
        return "big.png", None
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["fifo", "device", "parent", "absolute", "symlink", "over-cap"])
def test_an_image_the_vault_does_not_own_shows_as_nothing_and_blocks_nothing(
    qtbot: QtBot, tmp_path: Path, kind: str
) -> None:
    vault = tmp_path / "vault"
    (vault / "img").mkdir(parents=True)
    _png(vault / "img" / "dot.png")
    src, fifo = _hostile(kind, tmp_path, vault)
    (vault / "n.md").write_text(
        f"# Images\n\n![bad]({src})\n\n![good](img/dot.png)\n\nThe end.\n", encoding="utf-8"
    )
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(600, 500)
    pane.show()
    pane.set_vault(vault)
    with FifoRescue(fifo) as rescue:
        show(qtbot, pane, make_hit("n.md"))
        qtbot.waitUntil(lambda: _assert("The end." in pane.note.toPlainText()))
        images = shown_images(pane.note)
        if fifo is not None:
            assert not _fifo_has_reader(fifo), "the preview opened the FIFO"
    assert not rescue.fired, "the GUI thread was blocked until the safety net released it"
    good = [value for name, value in images.items() if "dot.png" in name]
    bad = [value for name, value in images.items() if "dot.png" not in name]
    assert len(good) == 1 and _is_picture(good[0]), images  # the vault's own image shows
    assert all(_is_empty_image(value) for value in bad), images
    assert "[image not shown, " in pane.note.toPlainText()  # and the reader is told why


# ----------------------------------------------------------------------------- budgets


def _hostile_note(kind: str, vault: Path) -> str:
    """The issue's hostile notes: callouts nested 1,000 deep; a 217-byte note that embeds a
    1 MB note twenty times; and a word of 2 MB (a pasted blob)."""
    if kind == "callouts":
        return "".join("> " * d + f"[!note] Level {d}\n" for d in range(1, 1001))
    if kind == "word":
        return "x" * 2_000_000 + " the end\n"
    (vault / "big.md").write_text("A line of the big note.\n\n" * 40_000, encoding="utf-8")
    return ("# Twenty embeds of a big note\n\n" + "![[big]]\n\n" * 20).ljust(216) + "\n"


def _frame_depth(frame: QTextFrame) -> int:
    """How deep the frames (tables) of a document nest, the root frame not counted."""
    return max((1 + _frame_depth(child) for child in frame.childFrames()), default=0)


@pytest.mark.parametrize("kind", ["callouts", "embeds", "word"])
@pytest.mark.slow
def test_hostile_notes_are_shown_within_the_budgets(
    qtbot: QtBot, tmp_path: Path, kind: str
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "n.md").write_text(_hostile_note(kind, vault), encoding="utf-8")
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(600, 500)
    pane.show()
    pane.set_vault(vault)
    # Before the budgets the first never finished: Qt's layout held the GUI thread.
    pane.show_hit(make_hit("n.md"), None, ExplainContext(SearchOptions(), 1, 1, 1, 0, False))
    qtbot.waitUntil(lambda: _assert(pane.shown_path == "n.md"), timeout=SAFETY_MS)
    document = pane.note.document()
    assert document.size().height() > 0  # laid out
    assert _frame_depth(document.rootFrame()) <= CALLOUT_DEPTH
    shown = pane.note.toPlainText()
    assert max(len(word) for word in re.split(r"[\s\u200b]+", shown)) <= LONG_WORD
    if kind == "callouts":
        assert "Level 1000" in shown
    elif kind == "word":
        assert "x" * 2_000_000 + " the end" in shown.replace("\u200b", "")
    else:
        assert shown.count("characters the preview embeds: shown as a link") == 20
        assert len(shown) < EMBED_CHARS


def test_the_preview_draws_every_contribution_in_the_share_bar_s_colours(qapp: object) -> None:
    """The explain block's swatches are the share bar's, in a dark palette too (the recency
    prior's green was the light one whatever the palette)."""
    from PySide6.QtGui import QColor, QPalette

    from explorer.gui.core.theme import tints
    from explorer.gui.preview.preview import palette_colours

    for base in ("white", "#1e1e1e"):
        palette = QPalette(QColor(base))
        colours, bar = palette_colours(palette), tints(palette)
        assert (colours.fts, colours.vector, colours.recency) == (
            bar.fts_bar.name(),
            bar.vector_bar.name(),
            bar.recency_bar.name(),
        )
    assert (
        palette_colours(QPalette(QColor("#1e1e1e"))).recency
        != palette_colours(QPalette(QColor("white"))).recency
    )


def test_no_word_of_the_explain_block_is_broken_on_the_narrowest_preview(
    qapp: QApplication,
) -> None:
    """The header "contribution" broke into "contribut" / "ion" at 1366 (issue 46)."""
    from tests.preview.helpers import block, hit

    options = SearchOptions(fusion="rrf", k=60.0, w_fts=0.7, w_vec=0.3)
    ctx = ExplainContext(options, 2, 20, 34, 50, True)
    document = QTextDocument()
    document.setDefaultFont(qapp.font())
    document.setHtml(block(hit(best_chunk=(10, 400)), ctx))
    document.setTextWidth(26 * QFontMetrics(qapp.font()).averageCharWidth())
    size = document.documentLayout().documentSize()
    assert 0 < size.width() <= document.textWidth()  # laid out, no wider than the pane
    lines = []
    block = document.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            lines.append(block.text()[line.textStart() : line.textStart() + line.textLength()])
        block = block.next()
    words = {w for line in lines for w in line.split()}
    assert "contribution" in words, lines
    assert not any(w.startswith("contribut") and w != "contribution" for w in words), lines
