"""The preview pane on its own: nothing remote is fetched, links open only when clicked, the
best chunk is scrolled into view."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QImage, QTextCursor, QTextDocument
from pytestqt.qtbot import QtBot

from explorer.gui.preview import NoteBrowser, PreviewPane
from explorer.gui.render import ExplainContext
from explorer.search.hybrid import Hit, SearchOptions
from explorer.search.query import parse_query


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
    assert browser.loadResource(kind, QUrl("https://example.com/pixel.png")) is None
    assert browser.loadResource(kind, QUrl("http://example.com/a.png")) is None
    assert browser.loadResource(kind, QUrl.fromLocalFile(str(tmp_path / "outside.png"))) is None
    assert browser.loadResource(kind, QUrl("../outside.png")) is None
    assert browser.loadResource(kind, QUrl("img/dot.png")) is not None
    assert "https://example.com/pixel.png" in browser.blocked
    # Even HTML that slips an <img> through asks this method, and gets nothing.
    browser.blocked.clear()
    browser.show()
    browser.setHtml('<p>x</p><img src="https://example.com/track.png">')
    qtbot.waitUntil(lambda: _assert("https://example.com/track.png" in browser.blocked))


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


def _assert(condition: bool) -> None:
    assert condition
