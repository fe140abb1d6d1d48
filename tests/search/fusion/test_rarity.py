"""Issue 33, with the real model: a note holding only the vault's common words does not push
down the note the vector list ranks first.  The vault is a small manual of a notes app, where
"settings", "stored", "notes", "get", "back", "work", "same" and "vault" are in many pages; the
questions' right notes share none of those words (or only a rare one), and a decoy holds most of
them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.explain.explain import explain
from explorer.search.explain.explain_text import explanation_lines
from explorer.search.fusion import evidence
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index

pytestmark = pytest.mark.model

Write = Callable[[str, str | bytes], Path]

NOTES = {
    "preferences-file.md": (
        "# Where preferences live\n\nInkwell writes your preferences to one JSON file on the "
        "disk of your computer: `~/.inkwell/config.json` on Linux and macOS, "
        "`%APPDATA%\\Inkwell\\config.json` on Windows. Copy that file to another computer to "
        "carry them over.\n"
    ),
    "sync.md": (
        "# Sync settings\n\nSync settings decide which notes are stored offline on each device "
        "and which are stored only in the cloud.\n"
    ),
    "editor.md": (
        "# Editor settings\n\nThe editor settings change the font, the line width and the theme "
        "of your notes.\n"
    ),
    "templates.md": (
        "# Templates\n\nA template is a note whose text is copied into new notes. Templates are "
        "stored in the templates folder.\n"
    ),
    "attachments.md": (
        "# Attachments\n\nImages and PDFs you drop into notes are stored next to the note. You "
        "can get them back from the trash.\n"
    ),
    "hotkeys.md": (
        "# Hotkeys\n\nEvery command can have a hotkey. Open the hotkey settings and press the "
        "keys you want.\n"
    ),
    "plugins.md": (
        "# Plugins\n\nPlugins add commands to Inkwell. Plugin data is stored with your notes.\n"
    ),
    "search.md": (
        "# Searching your notes\n\nType words to find notes that hold them. Search settings "
        "choose whether case matters.\n"
    ),
    "tags.md": (
        "# Tags\n\nTags group notes across folders. You can get every note of a tag from the "
        "tag pane.\n"
    ),
    "backup.md": (
        "# Backups\n\nInkwell makes a backup every hour, so you can get back yesterday's notes: "
        "restore a backup to get an older version back.\n"
    ),
    "install.md": (
        "# Installing Inkwell\n\nThe installer needs 200 MB of free disk space and can run "
        "without administrator rights.\n"
    ),
    "pricing.md": (
        "# Plans and pricing\n\nThe yearly plan saves money compared with paying monthly. "
        "Students get a discount on any plan.\n"
    ),
    "refunds.md": (
        "# Refund policy\n\nNot happy with Inkwell? Within 30 days of purchase we return the "
        "full price, no questions asked: write to support and the payment is reversed to your "
        "card.\n"
    ),
    "themes.md": "# Themes\n\nThemes change how notes look. Install one from the theme gallery.\n",
    "export.md": (
        "# Export\n\nExport notes as PDF or HTML from the file menu. The export settings choose "
        "the page size.\n"
    ),
    "history.md": (
        "# Version history\n\nEvery change to a note is kept. Open the history to get back any "
        "earlier version of it.\n"
    ),
    "links.md": (
        "# Links between notes\n\nLink notes with [[double brackets]]; you can go back to the "
        "note you came from.\n"
    ),
    "daily.md": "# Daily notes\n\nA daily note is created each morning from the daily template.\n",
    "sharing.md": (
        "# Collaborating with others\n\nInvite a coworker to your team space; the two of you edit "
        "the shared pages together and see each other's changes at once.\n"
    ),
    "wordcount.md": (
        "# Word count\n\nThe status bar counts the words of the note you work on; notes in the "
        "same folder are counted together, and the same goes for the vault as a whole.\n"
    ),
    "workspace.md": (
        "# Workspaces\n\nA workspace keeps the panes you had open, so the same layout comes back "
        "when you return to work.\n"
    ),
    "mobile.md": (
        "# Mobile app\n\nThe mobile app opens the same notes; they are stored on the phone too.\n"
    ),
}


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory, real_provider: EmbedderProvider) -> Searcher:
    vault = tmp_path_factory.mktemp("inkwell-vault")
    for name, text in NOTES.items():
        (vault / name).write_text(text, encoding="utf-8")
    db = IndexDB.open(vault, tmp_path_factory.mktemp("inkwell-data"))
    return build_index(db, real_provider)


CASES = [
    # "settings" and "stored" are in a third of the pages, "disk" in two.
    ("where are my settings stored on disk", "preferences-file.md", "sync.md"),
    # "can", "get" and "back" are everywhere, "money" in one page (not the answer).
    ("can I get my money back", "refunds.md", "backup.md"),
]
#: "work", "same" and "notes" are in several pages, "colleague" in none; the decoy holds three of
#: the four words and is near in meaning too (a page about the vault's notes).
COLLEAGUE = ("work on the same notes with a colleague", "sharing.md", "wordcount.md")


def _first(searcher: Searcher, query: str, options: SearchOptions) -> list[str]:
    return [h.path for h in searcher.search(query, options).hits[:3]]


@pytest.mark.parametrize(("query", "target", "decoy"), [*CASES, COLLEAGUE])
def test_the_case_is_what_issue_33_describes(
    manual: Searcher, query: str, target: str, decoy: str
) -> None:
    """The vector list ranks the right note first; the decoy holds more of the words."""
    semantic = manual.search(query, SearchOptions(mode="semantic", min_rel=0.0))
    assert semantic.hits[0].path == target
    plain = manual.candidates(query, SearchOptions()).lexical_coverage
    assert plain.get(decoy, 1.0) > plain.get(target, 0.0)


@pytest.mark.parametrize(("query", "target", "decoy"), CASES)
def test_the_default_keeps_the_vector_lists_first(
    manual: Searcher, query: str, target: str, decoy: str
) -> None:
    hits = manual.search(query, SearchOptions()).hits
    first = [h.path for h in hits[:3]]
    assert first[0] == target, first
    assert decoy in first  # still listed: weak evidence, not none
    held = next(h for h in hits if h.path == decoy)
    assert held.coverage is not None and held.weighted_coverage is not None
    assert held.weighted_coverage < held.coverage  # it holds the common words


@pytest.mark.parametrize(("query", "target", "decoy"), CASES)
def test_weighing_every_word_alike_let_the_decoy_win(
    manual: Searcher, query: str, target: str, decoy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same cases under the previous default (every word alike, lexical weight 0.8, the
    vector ramp from 1 to 4 σ): what the issue reported, so the cases test what they claim."""
    before = replace(evidence.CALIBRATION, rarity=0.0, z_low=1.0, z_high=4.0)
    monkeypatch.setattr(evidence, "CALIBRATION", before)
    assert _first(manual, query, replace(SearchOptions(), w_fts=0.8))[0] != target


def test_the_colleague_case_keeps_the_vector_lists_first(manual: Searcher) -> None:
    """Issue 44: with each word weighed by its whole idf (rarity 1; 0.5 lifted the answer from
    third to second only), the decoy's three common words no longer outweigh the meaning."""
    query, target, _ = COLLEAGUE
    assert _first(manual, query, SearchOptions())[0] == target


def test_explain_says_the_decoys_words_weigh_less_than_their_share(manual: Searcher) -> None:
    """The decoy holds two of the three content words of "can I get my money back" ("get",
    "back"), the common ones: explain gives the share and the smaller weight the evidence read."""
    e = explain(manual, "can I get my money back", "backup.md", SearchOptions())
    assert e.evidence is not None
    assert e.evidence.coverage is not None and e.evidence.weighted is not None
    assert e.evidence.weighted < e.evidence.coverage
    line = next(x for x in explanation_lines(e) if "content words" in x)
    assert f"holds {e.evidence.coverage:.0%} of the content words" in line
    assert f"({e.evidence.weighted:.0%} of their weight: rarer words weigh more)" in line
