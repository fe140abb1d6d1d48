"""Questions in every language the notes are written in (issue 23, items 1 and 2).

A Chinese or Japanese question is one unspaced run: the any-word pass cuts it into pairs of
characters, so a note that shares a word of it is found, and its snippet marks that word.  The
stop words of the query's language (or of the vault's, when the query's cannot be told) never
put a note in the any-word pass.  Real SQLite, the lexical list (no model needed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.index.db import IndexDB
from explorer.search.hybrid import SearchOptions, query_language_json
from explorer.search.lexical import lexical_list
from explorer.search.query import parse_query
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]

CJK_NOTES = {
    "ja/refund.md": "# 返金について\n\n購入から14日以内であれば、返金を申請できます。\n",
    "ja/dark.md": "# 外観\n\n設定から外観を選び、テーマを暗くできます。\n",
    "ja/sync.md": "# 同期\n\nデバイス間でノートを同期したい場合は、同期を有効にしてください。\n",
    "zh/refund.md": "# 退款政策\n\n购买后十四天内可以申请退款，请联系客服。\n",
    "zh/math.md": "# 数学公式\n\n可以使用 LaTeX 写数学公式。\n",
    "zh/sync.md": "# 同步\n\n如果你想在设备之间同步笔记，请打开同步。\n",
}

GERMAN_NOTES = {
    "de/dunkel.md": "# Aussehen\n\nDer Dunkelmodus lässt sich in den Einstellungen wählen.\n",
    **{
        f"de/protokoll-{i}.md": (
            f"# Protokoll {i}\n\nWie kann ich das wissen? Ich kann es nicht, wie ich schon "
            "sagte, und ich kann es auch nicht ändern, wie es ist.\n"
        )
        for i in range(3)
    },
    **{
        f"de/rezept-{i}.md": f"# Rezept {i}\n\nLinsen {i} Minuten kochen, salzen.\n"
        for i in range(6)
    },
}


@pytest.fixture
def cjk(write: Write, vault: Path, open_db: Callable[[Path], IndexDB]) -> IndexDB:
    for path, text in CJK_NOTES.items():
        write(path, text)
    db = open_db(vault)
    build_index(db, None)
    return db


@pytest.mark.parametrize(
    ("question", "note", "word"),
    [
        ("返金してほしいです", "ja/refund.md", "返金"),  # "I would like a refund"
        ("ノートを同期したいです", "ja/sync.md", "同期"),
        ("我想申请退款怎么办", "zh/refund.md", "退款"),  # "I want a refund, what do I do"
        ("数学公式怎么写", "zh/math.md", "数学公式"),
    ],
)
def test_a_cjk_question_finds_the_note_of_a_shared_word(
    cjk: IndexDB, question: str, note: str, word: str
) -> None:
    hits = lexical_list(cjk.conn, parse_query(question), 10)
    assert hits and hits[0].path == note
    assert f"<mark>{word}</mark>" in hits[0].snippet


def test_the_phrase_and_all_words_passes_keep_a_cjk_run_whole() -> None:
    query = parse_query("返金したい")
    assert query.fts_all() == '"返 金 し た い"'
    assert [t.text for t in query.content_terms] == ["返金", "金し"]  # した, たい carry nothing
    assert query.fts_any() == '"返 金" OR "金 し"'
    # Mixed with Latin letters, and a run of one character.
    assert [t.text for t in parse_query("LaTeX数学").content_terms] == ["LaTeX", "数学"]
    assert [t.text for t in parse_query("東 京").content_terms] == ["東", "京"]


def test_a_cjk_question_in_the_window_search(cjk: IndexDB) -> None:
    from explorer.embed.provider import EmbedderProvider
    from explorer.search.hybrid import Searcher

    response = Searcher(cjk, EmbedderProvider.disabled()).search(
        "返金してほしいです", SearchOptions(mode="fts")
    )
    assert [h.path for h in response.hits][:1] == ["ja/refund.md"]


def test_german_stop_words_do_not_fill_the_any_word_pass(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    for path, text in GERMAN_NOTES.items():
        write(path, text)
    db = open_db(vault)
    build_index(db, None)
    question = "Wie kann ich den Dunkelmodus einschalten?"
    query = parse_query(question)
    assert query.language == "de"
    assert [t.text for t in query.content_terms] == ["Dunkelmodus", "einschalten?"]
    assert [h.path for h in lexical_list(db.conn, query, 50)] == ["de/dunkel.md"]


def test_a_query_whose_language_cannot_be_told_drops_the_vault_languages_stop_words() -> None:
    """``die`` is a German stop word and an English verb: which it is, the vault says."""
    assert parse_query("die Datei").language == ""
    german = parse_query("die Datei", vault_languages=("de",))
    assert [t.text for t in german.content_terms] == ["Datei"]
    english = parse_query("die Datei", vault_languages=("en",))
    assert [t.text for t in english.content_terms] == ["die", "Datei"]
    # "man" is a stop word of four lists and a content word of English: no language is told.
    assert [t.text for t in parse_query("man page").content_terms] == ["man", "page"]


@pytest.mark.parametrize(
    ("query", "language", "reads"),
    [
        ("Wie kann ich den Dunkelmodus einschalten?", "de", False),
        ("返金してほしいです", "ja", False),
        ("how do I switch to the dark theme", "en", True),
        ("kubectl", None, None),
    ],
)
def test_search_json_says_whether_the_model_reads_the_query(
    query: str, language: str | None, reads: bool | None
) -> None:
    assert query_language_json(query, "all-MiniLM-L6-v2") == {
        "queryLanguage": language,
        "modelReadsQuery": reads,
    }
    assert query_language_json(query, "some/unknown-model")["modelReadsQuery"] is None
