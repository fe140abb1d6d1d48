"""Questions in every language the notes are written in (issue 23, items 1, 2 and 4).

A Chinese or Japanese question is one unspaced run: the any-word pass cuts it into pairs of
characters, so a note that shares a word of it is found, and its snippet marks that word.  The
stop words of the query's language (or of the vault's, when the query's cannot be told) never
put a note in the any-word pass.  Real SQLite; the real model where the vector list's blindness
outside its languages is the point.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.fusion import evidence
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import query_language_json
from explorer.search.lists.lexical import lexical_list
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import parse_query
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


#: Notes that inflect the words a question types otherwise (``komprimiert``, ``Dateien``,
#: ``fichiers compressés``), beside notes that share none of them.
INFLECTED_NOTES = {
    "de/gzip.md": "# gzip\n\n> Komprimiert Dateien und entpackt sie wieder.\n",
    "de/ls.md": "# ls\n\n> Listet den Inhalt eines Verzeichnisses auf.\n",
    "fr/cp.md": "# cp\n\n> Copie des documents.\n",
    "fr/ls.md": "# ls\n\n> Liste le contenu d'un dossier.\n",
    "es/gzip.md": "# gzip\n\n> Comprime ficheros y los descomprime.\n",
    "es/ls.md": "# ls\n\n> Lista el contenido de un directorio.\n",
}


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ("wie kann ich eine Datei komprimieren", "de/gzip.md"),
        ("copier un fichier", "fr/cp.md"),
        ("comprimir archivos", "es/gzip.md"),
    ],
)
def test_a_question_finds_a_note_that_inflects_its_words_otherwise(
    write: Write, vault: Path, open_db: Callable[[Path], IndexDB], question: str, note: str
) -> None:
    """The question's words are searched as typed and as their Snowball stem's prefix in the
    query's (or the vault's) language: ``komprimieren`` finds ``Komprimiert``, and the snippet
    marks the word the note has."""
    for path, text in INFLECTED_NOTES.items():
        write(path, text)
    db = open_db(vault)
    build_index(db, None)
    language = note.split("/")[0]
    hits = lexical_list(db.conn, parse_query(question, vault_languages=(language,)), 10)
    assert hits and hits[0].path == note
    assert "<mark>" in hits[0].snippet
    # Without the stems (an English vault: the question's words as typed), the note is missed.
    typed = lexical_list(db.conn, parse_query(question, vault_languages=("en",)), 10)
    assert note not in [h.path for h in typed]


def test_an_english_query_is_searched_as_typed() -> None:
    """English words are stemmed by the index's porter tokenizer on both sides: no prefix is
    added to them, in an English vault or a mixed one where the question is told English."""
    for vault_languages in ((), ("en",)):
        query = parse_query("how do I compress files", vault_languages=vault_languages)
        assert query.stem_languages == frozenset()
        assert query.fts_any() == '"compress" OR "files"'
    told = parse_query("how do I compress the files in this folder", vault_languages=("en", "de"))
    assert told.language == "en" and told.stem_languages == frozenset()


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


#: A help vault in Japanese: enough notes for a query's cosines to have a bulk to stand out of.
HELP_JA = {
    "refund.md": "# 返金について\n\n購入から14日以内であれば、返金を申請できます。\n",
    "dark.md": "# 外観\n\n設定から外観を選び、テーマを暗くできます。\n",
    "sync.md": "# 同期\n\nデバイス間でノートを同期できます。\n",
    "links.md": "# 内部リンク\n\n二重の角括弧でほかのノートにリンクします。\n",
    "tags.md": "# タグ\n\nハッシュ記号でノートにタグを付けます。\n",
    "search.md": "# 検索\n\n検索バーに言葉を入力してノートを探します。\n",
    "plugins.md": "# プラグイン\n\nコミュニティのプラグインを入れて機能を増やします。\n",
    "backup.md": "# バックアップ\n\n保管庫のフォルダを丸ごとコピーしておきます。\n",
    "hotkeys.md": "# ホットキー\n\nキーボードの組み合わせでコマンドを実行します。\n",
    "graph.md": "# グラフビュー\n\nノートのつながりを図で表示します。\n",
    "canvas.md": "# キャンバス\n\nカードを並べて考えを整理します。\n",
    "math.md": "# 数式\n\nLaTeX で数式を書けます。\n",
    "images.md": "# 画像\n\n画像をドラッグして埋め込みます。\n",
    "pdf.md": "# PDF の書き出し\n\nノートを PDF として書き出します。\n",
    "mobile.md": "# モバイル\n\nスマートフォンのアプリでもノートを開けます。\n",
    "account.md": "# アカウント\n\nメールアドレスとパスワードでログインします。\n",
    "price.md": "# 料金\n\n個人の利用は無料です。商用には有料のライセンスが要ります。\n",
    "daily.md": "# デイリーノート\n\n毎日のノートを日付で作ります。\n",
    "templates.md": "# テンプレート\n\n決まった形のノートをすばやく作ります。\n",
    "publish.md": "# 公開\n\nノートをウェブサイトとして公開できます。\n",
    "themes.md": "# テーマ\n\n見た目を好みの色に変えられます。\n",
}


def test_a_blind_vector_list_does_not_outweigh_the_note_with_the_question_s_word(
    write: Write,
    vault: Path,
    open_db: Callable[[Path], IndexDB],
    real_provider: EmbedderProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """all-MiniLM-L6-v2 reads English: for "make the app dark" in Japanese its best note is
    about publishing, and taken at full worth that note came first over the one that holds 暗
    (dark).  A query in a language the model does not read has its vector evidence discounted."""
    for path, text in HELP_JA.items():
        write(path, text)
    searcher = build_index(open_db(vault), real_provider)
    question = "アプリを暗くしたい"
    response = searcher.search(question, SearchOptions())
    assert response.to_json()["semantic"]["modelReadsQuery"] is False
    assert response.hits[0].path == "dark.md"
    full = evidence.Calibration(unread=1.0)
    monkeypatch.setattr(evidence, "CALIBRATION", full)
    assert searcher.search(question, SearchOptions()).hits[0].path == "publish.md"


def test_the_vector_evidence_of_an_unread_query_is_discounted() -> None:
    scored = [("a.md", 0.7), ("b.md", 0.5)]
    read = dict(evidence.vector_list_evidence(scored, None))
    unread = dict(evidence.vector_list_evidence(scored, None, unread=True))
    share = evidence.CALIBRATION.unread
    assert 0 < share < 1
    assert unread == pytest.approx({doc: share * value for doc, value in read.items()})
