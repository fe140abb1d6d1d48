"""The preview on an Obsidian vault: links lead to notes and back, embeds and callouts show."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextCursor, QTextDocument
from pytestqt.qtbot import QtBot

from explorer.embed.provider import EmbedderProvider
from explorer.gui.preview.preview import PreviewPane
from explorer.gui.window.main_window import MainWindow
from explorer.search.explain.scoring import ExplainContext
from explorer.search.fusion.results import Hit
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import parse_query
from tests.gui.conftest import SAFETY_MS, WindowFactory, wait_for_results, wait_indexed
from tests.gui.driver import drive
from tests.gui.helpers import shown_images
from tests.obsidian_vault import build_obsidian_vault


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return build_obsidian_vault(tmp_path)


@pytest.fixture
def pane(qtbot: QtBot, vault: Path) -> PreviewPane:
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(700, 600)
    pane.show()
    pane.set_vault(vault)
    return pane


def hit_for(path: str, title: str = "T") -> Hit:
    return Hit(path, title, "", 0.01, {"fts": 0.01}, 1, None, 1.0, None, "fts", None)


def show_hit(qtbot: QtBot, pane: PreviewPane, path: str, query: str = "") -> None:
    ctx = ExplainContext(SearchOptions(), 1, 1, 1, 0, False, "off")
    pane.show_hit(hit_for(path), parse_query(query), ctx)
    wait_shown(qtbot, pane, path)


def open_note(qtbot: QtBot, pane: PreviewPane, path: str) -> None:
    pane.open_note(path)
    wait_shown(qtbot, pane, path)


def wait_shown(qtbot: QtBot, pane: PreviewPane, path: str) -> None:
    def shown() -> None:
        assert pane.shown_path == path
        assert pane.history[1] == path

    qtbot.waitUntil(shown)


def links(pane: PreviewPane) -> list[tuple[str, str, int, str]]:
    """Every link of the shown note: (href, text, position in the document, tooltip)."""
    found = []
    block = pane.note.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if fmt.isAnchor() and fmt.anchorHref():
                found.append(
                    (fmt.anchorHref(), fragment.text(), fragment.position(), fmt.toolTip())
                )
            it += 1
        block = block.next()
    return found


def link_to(pane: PreviewPane, href_start: str, text: str | None = None) -> tuple[str, int]:
    for href, shown, position, _tip in links(pane):
        if href.startswith(href_start) and (text is None or shown == text):
            return href, position
    raise AssertionError(f"no link {href_start!r} {text!r} in {links(pane)}")


def click_at(qtbot: QtBot, pane: PreviewPane, position: int) -> None:
    cursor = QTextCursor(pane.note.document())
    cursor.setPosition(position + 1)
    pane.note.ensureCursorVisible()
    pane.note.setTextCursor(cursor)
    pane.note.ensureCursorVisible()
    point = pane.note.cursorRect(cursor).center()
    qtbot.mouseClick(pane.note.viewport(), Qt.MouseButton.LeftButton, pos=point)


def follow(qtbot: QtBot, pane: PreviewPane, href_start: str, text: str | None = None) -> None:
    _href, position = link_to(pane, href_start, text)
    click_at(qtbot, pane, position)


# ----------------------------------------------------------------------------- links


def test_each_link_form_leads_to_its_note(qtbot: QtBot, pane: PreviewPane) -> None:
    show_hit(qtbot, pane, "Home.md")
    hrefs = {href for href, *_ in links(pane)}
    # Same-name notes in two folders: the shortest path wins; an alias finds its note.
    assert "vault-note:Properties.md" in hrefs
    assert not any("Archive/Old" in h for h in hrefs)
    assert "vault-note:Properties.md#Types" in hrefs
    assert "vault-note:Properties.md#%5Eblk1" in hrefs
    assert "vault-note:Guides/Setup.md" in hrefs
    assert any(h.startswith("vault-note:Accepted%20file%20formats.md") for h in hrefs)
    assert any(h.startswith("vault-note:Home.md#") for h in hrefs)  # [[#Local heading]]
    shown = {text for _h, text, *_ in links(pane)}
    assert {"Note properties", "file types"} <= shown  # the |text is what the reader sees
    assert "[[" not in prose(pane.note.document())


def test_a_link_opens_its_note_and_back_and_forward_walk_the_history(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    show_hit(qtbot, pane, "Home.md")
    opened: list[str] = []
    pane.note_opened.connect(opened.append)
    follow(qtbot, pane, "vault-note:Guides/Setup.md")
    wait_shown(qtbot, pane, "Guides/Setup.md")
    assert opened == ["Guides/Setup.md"]
    assert "Opened from a link" in pane.explain.toPlainText()  # no ranking for a linked note
    assert pane.history == (["Home.md"], "Guides/Setup.md", [])
    qtbot.keyClick(pane.note, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    wait_shown(qtbot, pane, "Home.md")
    assert "Fused rank" in pane.explain.toPlainText()  # the hit again, explained
    assert pane.history == ([], "Home.md", ["Guides/Setup.md"])
    qtbot.keyClick(pane.note, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    wait_shown(qtbot, pane, "Guides/Setup.md")
    assert opened == ["Guides/Setup.md", "Home.md", "Guides/Setup.md"]
    pane.back_action.trigger()  # the button does the same
    wait_shown(qtbot, pane, "Home.md")


def test_back_returns_to_the_scroll_position_the_reader_left(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    pane.resize(500, 300)
    show_hit(qtbot, pane, "Home.md")
    bar = pane.note.verticalScrollBar()
    qtbot.waitUntil(lambda: _assert(bar.maximum() > 0))
    _href, position = link_to(pane, "vault-note:Guides/Setup.md")
    click_at(qtbot, pane, position)  # scrolls the link into view, then clicks it
    left_at = bar.value()
    wait_shown(qtbot, pane, "Guides/Setup.md")
    pane.back()
    wait_shown(qtbot, pane, "Home.md")
    assert bar.value() == left_at


def heading_in_view(pane: PreviewPane, text: str) -> bool:
    """Whether the heading ``text`` (not a link that reads the same) is in the viewport."""
    doc = pane.note.document()
    found = doc.find(text)
    while not found.isNull() and found.block().blockFormat().headingLevel() == 0:
        found = doc.find(text, found)
    assert not found.isNull(), f"no heading {text!r}"
    return pane.note.viewport().rect().contains(pane.note.cursorRect(found).center())


def test_a_heading_link_scrolls_to_the_heading(qtbot: QtBot, pane: PreviewPane) -> None:
    pane.resize(500, 300)
    pane.splitter.moveSplitter(200, 1)  # the reader drags: a note area a few lines high
    show_hit(qtbot, pane, "Home.md")
    follow(qtbot, pane, "vault-note:Properties.md#Types")
    wait_shown(qtbot, pane, "Properties.md")
    bar = pane.note.verticalScrollBar()
    assert bar.value() > 0
    assert heading_in_view(pane, "Types")
    bar.setValue(0)
    assert not heading_in_view(pane, "Types")  # it was the scroll that brought it into view


def test_a_block_link_scrolls_to_the_block_whose_id_is_not_shown(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    pane.resize(500, 250)
    show_hit(qtbot, pane, "Home.md")
    follow(qtbot, pane, "vault-note:Properties.md#%5Eblk1")
    wait_shown(qtbot, pane, "Properties.md")
    assert 'name="block-blk1"' in pane._shown_html
    assert "^blk1" not in pane.note.toPlainText()


def test_an_unresolved_link_says_so_and_goes_nowhere(qtbot: QtBot, pane: PreviewPane) -> None:
    show_hit(qtbot, pane, "Home.md")
    missing = [(h, t, tip) for h, t, _p, tip in links(pane) if h.startswith("vault-missing:")]
    assert any("Nowhere" in text and "no note named" in tip for _h, text, tip in missing)
    messages: list[str] = []
    pane.message.connect(messages.append)
    follow(qtbot, pane, "vault-missing:Nowhere")
    qtbot.waitUntil(lambda: _assert(bool(messages)))
    assert "Nowhere" in messages[0]
    assert pane.history == ([], "Home.md", [])


class UrlRecorder(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def handle(self, url: QUrl) -> None:
        self.urls.append(url.toString())


def test_an_external_link_opens_in_the_system_browser_and_the_preview_stays(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    recorder = UrlRecorder()
    QDesktopServices.setUrlHandler("https", recorder, "handle")
    try:
        show_hit(qtbot, pane, "Home.md")
        assert recorder.urls == []
        follow(qtbot, pane, "https:")
        assert len(recorder.urls) == 1
        assert pane.history == ([], "Home.md", [])
    finally:
        QDesktopServices.unsetUrlHandler("https")


def test_reselecting_the_hit_after_a_research_keeps_the_reader_on_the_linked_note(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    show_hit(qtbot, pane, "Home.md")
    follow(qtbot, pane, "vault-note:Guides/Setup.md")
    wait_shown(qtbot, pane, "Guides/Setup.md")
    ctx = ExplainContext(SearchOptions(), 2, 3, 3, 0, False, "off")
    pane.show_hit(hit_for("Home.md"), parse_query("x"), ctx)  # the same hit, re-searched
    assert pane.history == (["Home.md"], "Guides/Setup.md", [])
    show_hit(qtbot, pane, "Guides/Setup.md")  # another hit: a new trail
    assert pane.history == ([], "Guides/Setup.md", [])


def prose(doc: QTextDocument) -> str:
    """The document's text outside code (fixed-pitch text keeps what its author wrote)."""
    out = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if "monospace" not in (fragment.charFormat().fontFamilies() or []):
                out.append(fragment.text())
            it += 1
        out.append("\n")
        block = block.next()
    return "".join(out)


def test_no_literal_wikilink_syntax_in_any_note_of_the_vault(
    qtbot: QtBot, pane: PreviewPane, vault: Path
) -> None:
    for note in sorted(vault.rglob("*.md")):
        rel = note.relative_to(vault).as_posix()
        open_note(qtbot, pane, rel)
        text = prose(pane.note.document())
        assert "[[" not in text and "]]" not in text, rel
        assert "[!" not in text and "^blk" not in text, rel
    assert "[[Not a link]]" in pane.note.toPlainText() or rel != "Home.md"


# ----------------------------------------------------------------------------- embeds


def test_image_embeds_from_the_vault_show_and_others_do_not(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    show_hit(qtbot, pane, "Home.md")
    qtbot.waitUntil(lambda: _assert(bool(shown_images(pane.note))))
    images = shown_images(pane.note)
    diagram = {name: value for name, value in images.items() if "diagram.png" in name}
    assert diagram and all(_is_picture(value) for value in diagram.values()), images
    others = [value for name, value in images.items() if "diagram.png" not in name]
    assert all(_is_empty(value) for value in others), images
    assert any(fmt_width == 200 for fmt_width in _image_widths(pane.note.document(), "diagram.png"))
    text = pane.note.toPlainText()
    assert "remote image not loaded" in text
    assert "image not shown, outside the vault" in text or "not found" in text


def test_a_note_embed_shows_the_note_and_a_section_embed_only_its_section(
    qtbot: QtBot, pane: PreviewPane, vault: Path
) -> None:
    show_hit(qtbot, pane, "Home.md")
    text = pane.note.toPlainText()
    assert "embedded from" in text
    embedded = (vault / "Embedded note.md").read_text(encoding="utf-8")
    part_two = embedded[embedded.index("Part two") :].split("\n")[2].strip()
    assert part_two and text.count(part_two) >= 2  # the whole note, and its section


def test_an_embed_cycle_is_cut(qtbot: QtBot, pane: PreviewPane) -> None:
    open_note(qtbot, pane, "Cycle A.md")
    text = pane.note.toPlainText()
    assert "B embeds A" in text  # Cycle B, embedded
    assert text.count("embedded from") == 1
    assert text.count("A embeds B") == 1  # A is not shown again inside B
    assert "shown as a link" in text
    follow(qtbot, pane, "vault-note:Cycle%20A.md")  # the cut embed is a link to A
    wait_shown(qtbot, pane, "Cycle A.md")
    assert pane.history[0] == ["Cycle A.md"]


# ----------------------------------------------------------------------------- callouts


def test_callouts_are_boxes_and_a_folded_one_unfolds_on_click(
    qtbot: QtBot, pane: PreviewPane, vault: Path
) -> None:
    show_hit(qtbot, pane, "Callouts.md")
    doc = pane.note.document()
    text = pane.note.toPlainText()
    assert "[!" not in text
    assert "▸" in text  # the folded one shows its title only
    assert _table_count(doc) >= 3
    source = (vault / "Callouts.md").read_text(encoding="utf-8")
    folded_line = next(line for line in source.splitlines() if "[!warning]-" in line)
    body_line = source.splitlines()[source.splitlines().index(folded_line) + 1]
    hidden = body_line.lstrip("> ").strip()
    assert hidden and hidden not in text
    follow(qtbot, pane, "vault-callout:")
    qtbot.waitUntil(lambda: _assert(hidden in pane.note.toPlainText()))
    assert "▾" in pane.note.toPlainText()
    assert pane.history == ([], "Callouts.md", [])  # unfolding is not a step of the history


def _table_count(doc: QTextDocument) -> int:
    frames = [doc.rootFrame()]
    count = 0
    while frames:
        frame = frames.pop()
        for child in frame.childFrames():
            count += child.__class__.__name__ == "QTextTable"
            frames.append(child)
    return count


def _image_widths(doc: QTextDocument, name: str) -> list[int]:
    widths = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat() and name in fmt.toImageFormat().name():
                widths.append(round(fmt.toImageFormat().width()))
            it += 1
        block = block.next()
    return widths


def _is_picture(value: object) -> bool:
    from PySide6.QtGui import QImage, QPixmap

    return isinstance(value, QImage | QPixmap) and not value.isNull()


def _is_empty(value: object) -> bool:
    from PySide6.QtGui import QImage

    return isinstance(value, QImage) and value.isNull()


def _assert(condition: bool) -> None:
    assert condition


def test_a_note_created_later_turns_an_unresolved_link_into_a_link(
    qtbot: QtBot, pane: PreviewPane, vault: Path
) -> None:
    show_hit(qtbot, pane, "Home.md")
    assert link_to(pane, "vault-missing:Nowhere")
    bar = pane.note.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    where = bar.value()
    (vault / "Later" / "Nowhere.md").parent.mkdir()
    (vault / "Later" / "Nowhere.md").write_text("# Nowhere\n\nNow here.\n", encoding="utf-8")
    pane.notes_changed(["Later/Nowhere.md"])  # what the live index reports
    qtbot.waitUntil(
        lambda: _assert(any(h == "vault-note:Later/Nowhere.md" for h, *_ in links(pane)))
    )
    assert bar.value() == where  # rendered again where the reader was


def test_a_link_to_a_heading_of_the_same_note_scrolls_and_back_returns(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    pane.resize(500, 300)
    pane.splitter.moveSplitter(200, 1)  # the reader drags: a note area a few lines high
    show_hit(qtbot, pane, "Home.md")
    bar = pane.note.verticalScrollBar()
    bar.setValue(0)
    opened: list[str] = []
    pane.note_opened.connect(opened.append)
    follow(qtbot, pane, "vault-note:Home.md#Local%20heading")
    qtbot.waitUntil(lambda: _assert(pane.history[0] == ["Home.md"]))
    left_at = pane._back[-1].scroll
    assert heading_in_view(pane, "Local heading") and bar.value() > 0
    assert opened == []  # the same note: nothing new to tell the panels
    pane.back()
    qtbot.waitUntil(lambda: _assert(bar.value() == left_at))
    assert pane.history == ([], "Home.md", ["Home.md"])


def test_alt_left_works_from_anywhere_in_the_window_and_the_menu_has_back(
    qtbot: QtBot, pane: PreviewPane
) -> None:
    show_hit(qtbot, pane, "Home.md")
    follow(qtbot, pane, "vault-note:Guides/Setup.md")
    wait_shown(qtbot, pane, "Guides/Setup.md")
    pane.activateWindow()
    qtbot.waitUntil(lambda: _assert(pane.isActiveWindow()))
    pane.explain.setFocus()  # not the note: the window's shortcut, not the browser's key
    qtbot.keyClick(pane.explain, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    wait_shown(qtbot, pane, "Home.md")
    assert pane.forward_action.isEnabled() and not pane.back_action.isEnabled()
    menu = pane.note.context_menu(pane.note.viewport().rect().center())
    texts = [action.text() for action in menu.actions()]
    assert texts[:2] == ["Back", "Forward"]
    menu.actions()[1].trigger()
    wait_shown(qtbot, pane, "Guides/Setup.md")


def test_a_note_link_out_of_the_vault_shows_nothing_of_it(
    qtbot: QtBot, pane: PreviewPane, vault: Path
) -> None:
    (vault.parent / "secret.md").write_text("# Secret\n\nTOP SECRET\n", encoding="utf-8")
    (vault / "Sly.md").write_text(
        "# Sly\n\n[[../secret]] [out](../secret.md) [forged](vault-note:../secret.md)\n",
        encoding="utf-8",
    )
    pane.notes_changed(["Sly.md"])
    open_note(qtbot, pane, "Sly.md")
    hrefs = [href for href, *_ in links(pane)]
    assert hrefs[:2] == ["vault-missing:..%2Fsecret", "vault-missing:..%2Fsecret.md"]
    messages: list[str] = []
    pane.message.connect(messages.append)
    follow(qtbot, pane, "vault-note:../secret.md")  # a link the note wrote in our scheme
    qtbot.waitUntil(lambda: _assert(bool(messages)))
    assert "Not a note of this vault" in messages[0]
    assert pane.history == ([], "Sly.md", [])
    assert "TOP SECRET" not in pane.note.toPlainText()


# ----------------------------------------------------------------------------- in the window


def home_window(qtbot: QtBot, window: MainWindow) -> MainWindow:
    """``window`` once indexed, its lexical hit Home.md selected and shown in the preview."""
    wait_indexed(qtbot, window)
    drive(window).set_mode("fts")
    drive(window).set_query("welcome")
    wait_for_results(qtbot, window, "welcome", lambda w: _assert(drive(w).rows()[0] == "Home.md"))
    wait_shown(qtbot, window.preview, "Home.md")
    return window


@pytest.fixture
def linked_window(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, vault: Path
) -> MainWindow:
    """A window on the fixture vault whose hit Home.md is selected and whose preview has
    followed Home's link to Guides/Setup.md."""
    window = home_window(qtbot, make_window(fake_provider, vault))
    preview = window.preview
    follow(qtbot, preview, "vault-note:Guides/Setup.md")
    wait_shown(qtbot, preview, "Guides/Setup.md")
    return window


def test_in_the_window_a_link_moves_the_preview_and_alt_left_from_the_results_returns(
    qtbot: QtBot, linked_window: MainWindow, vault: Path
) -> None:
    window = linked_window
    preview = window.preview
    assert drive(window).current_hit() is not None
    assert drive(window).current_hit().path == "Home.md"  # the results stay as they were
    window.activateWindow()
    drive(window).focus_results()
    qtbot.waitUntil(lambda: _assert(drive(window).table_has_focus()))
    drive(window).press_in_results(Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    wait_shown(qtbot, preview, "Home.md")
    assert "Fused rank 1" in preview.explain.toPlainText()
    # A note created now (the live index sees it) turns the unresolved link into a link.
    assert link_to(preview, "vault-missing:Nowhere")
    (vault / "Nowhere.md").write_text("# Nowhere\n\nFound after all.\n", encoding="utf-8")
    qtbot.waitUntil(
        lambda: _assert(any(h == "vault-note:Nowhere.md" for h, *_ in links(preview))),
        timeout=SAFETY_MS,
    )


def test_in_the_window_clicking_the_selected_hit_after_a_link_shows_it_again(
    qtbot: QtBot, linked_window: MainWindow
) -> None:
    window = linked_window
    preview = window.preview
    table = window.table
    row = table.visualRect(table.currentIndex()).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=row)  # selection unchanged
    wait_shown(qtbot, preview, "Home.md")
    assert "Fused rank 1" in preview.explain.toPlainText()
    assert preview.history == (["Home.md", "Guides/Setup.md"], "Home.md", [])
    preview.back()  # Back returns to where the links had led
    wait_shown(qtbot, preview, "Guides/Setup.md")


def test_in_the_window_links_lead_to_the_notes_of_the_index(
    qtbot: QtBot, make_window: WindowFactory, fake_provider: EmbedderProvider, vault: Path
) -> None:
    """The window's preview resolves links from the index (through its session), not from the
    folder: a note written while nothing watches stays unresolved until the index has it."""
    window = home_window(qtbot, make_window(fake_provider, vault, watch=False))
    preview = window.preview
    assert link_to(preview, "vault-missing:Nowhere")
    (vault / "Nowhere.md").write_text("# Nowhere\n\nFound after all.\n", encoding="utf-8")
    home = vault / "Home.md"
    home.write_text(home.read_text(encoding="utf-8") + "\nEdited since.\n", encoding="utf-8")
    preview.notes_changed(["Home.md", "Nowhere.md"])  # rendered again; the index is as it was
    qtbot.waitUntil(lambda: _assert("Edited since." in preview.note.toPlainText()))
    assert link_to(preview, "vault-missing:Nowhere")
    drive(window).reconcile()  # the index takes the new note: its sync event resolves the link
    qtbot.waitUntil(
        lambda: _assert(any(h == "vault-note:Nowhere.md" for h, *_ in links(preview))),
        timeout=SAFETY_MS,
    )
