"""The query language, and the table of hostile queries that must never raise."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.counts import Counted
from explorer.index.db import IndexDB
from explorer.search.fusion.hybrid import Searcher
from explorer.search.lists.lexical import lexical_list
from explorer.search.query.compounds import COMPOUND_MAX, split_compounds
from explorer.search.query.options import SearchOptions
from explorer.search.query.query import Query, QueryError, Term, parse_query
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]


def test_bare_words_phrase_exclusion_or_prefix_filters() -> None:
    q = parse_query('deploy "cache purge" -staging cdn OR edge roll* tag:Ops path:ops/')
    assert [[t.text for t in g] for g in q.groups] == [
        ["deploy"],
        ["cache purge"],
        ["cdn", "edge"],
        ["roll"],
    ]
    assert q.groups[1][0].phrase
    assert q.groups[3][0].prefix
    assert [t.text for t in q.excluded] == ["staging"]
    assert q.tags == ["ops"]
    assert q.paths == ["ops/"]
    assert (
        q.fts_all()
        == '("deploy" AND "cache purge" AND ("cdn" OR "edge") AND "roll"*) NOT ("staging")'
    )
    assert q.free_text == "deploy cache purge cdn edge roll"


def test_what_snippets_mark_leaves_out_the_exclusions() -> None:
    q = parse_query("deploy cdn OR edge -staging")
    assert q.fts_terms() == '"deploy" OR "cdn" OR "edge"'
    assert parse_query("cache purge -old").fts_phrase(exclusions=False) == '"cache purge"'
    assert parse_query("cache purge -old").fts_phrase() == '("cache purge") NOT ("old")'
    assert parse_query("-only").fts_terms() is None


def test_quotes_inside_terms_are_escaped() -> None:
    assert Term('say"hi').fts() == '"say""hi"'
    assert Term("***").fts() is None


def test_cjk_terms_become_character_phrases() -> None:
    assert Term("東京").fts() == '"東 京"'


def test_link_filters_take_paths_names_and_quoted_names() -> None:
    q = parse_query('deploy linkto:"Accepted file formats" LinkedFrom:Guides/Setup.md linkto:Home')
    assert q.links_to == ["Accepted file formats", "Home"]
    assert q.linked_from == ["Guides/Setup.md"]
    assert [t.text for t in q.terms] == ["deploy"]
    assert q.has_filters and not parse_query("deploy").has_filters
    assert parse_query("linkto:Home").is_listing
    unclosed = parse_query('linkto:"Open ended')
    assert unclosed.links_to == ["Open ended"] and unclosed.terms == []
    # An empty value, or an exclusion, is text, as an empty ``tag:`` is.
    assert parse_query("linkto:").links_to == []
    assert parse_query('linkto:""').links_to == []
    assert parse_query("-linkto:Home").links_to == []


def test_only_filters_or_exclusions_is_a_listing() -> None:
    assert parse_query("tag:ops").is_listing
    assert parse_query("-draft").is_listing
    assert parse_query("").is_listing
    assert not parse_query("word").is_listing


@pytest.mark.parametrize(
    ("raw", "texts"),
    [
        ("git rebase --onto", ["git", "rebase", "--onto"]),
        ("tail -9", ["tail", "-9"]),
        ("ls -d", ["ls", "-d"]),
        ("journalctl -u nginx", ["journalctl", "-u", "nginx"]),
        ("docker compose up -d", ["docker", "compose", "up", "-d"]),
        ("sort --reverse -n", ["sort", "--reverse", "-n"]),
    ],
)
def test_command_line_flags_are_text_not_exclusions(raw: str, texts: list[str]) -> None:
    query = parse_query(raw)
    assert query.excluded == []
    assert [t.text for t in query.terms] == texts


def test_a_dash_before_a_word_still_excludes() -> None:
    query = parse_query('deploy -staging -"old runbook" -école -東京 -rf')
    assert [t.text for t in query.excluded] == ["staging", "old runbook", "école", "東京", "rf"]
    assert [t.text for t in query.terms] == ["deploy"]


#: tldr-like pages: each flag query's page holds the flag, and a decoy holds the other words.
FLAG_PAGES = {
    "common/git-rebase.md": "# git rebase\n\n- Move a branch onto another base:\n\n"
    "`git rebase --onto new_base old_base`\n",
    "common/git-merge.md": "# git merge\n\n- Merge a branch into the current one:\n\n"
    "`git merge branch_name`, then rebase later\n",
    "common/kill.md": "# kill\n\n- Kill a process at once (signal 9):\n\n`kill -9 process_id`\n",
    "common/pkill.md": "# pkill\n\n- Kill processes by name:\n\n`pkill process_name`\n",
    "linux/journalctl.md": "# journalctl\n\n- Show the log of a unit (u for unit):\n\n"
    "`journalctl -u unit`\n",
    "common/ls.md": "# ls\n\n- List directories, not their contents:\n\n`ls -d */`\n",
    "common/ls-color.md": "# ls colours\n\n- List files in colour:\n\n`ls --color`\n",
}
FLAG_QUERIES = [
    ("git rebase --onto", "common/git-rebase.md"),
    ("kill -9", "common/kill.md"),
    ("journalctl -u nginx", "linux/journalctl.md"),
    ("ls -d", "common/ls.md"),
]


@pytest.fixture
def flag_vault(write: Callable[[str, str], Path], vault: Path) -> Path:
    for path, text in FLAG_PAGES.items():
        write(path, text)
    return vault


def test_pasted_commands_with_flags_rank_their_page_first_in_fts(
    flag_vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    searcher = build_index(open_db(flag_vault), None)
    for raw, target in FLAG_QUERIES:
        hits = searcher.search(raw, SearchOptions(mode="fts")).hits
        assert hits and hits[0].path == target, raw


@pytest.mark.model
def test_pasted_commands_with_flags_rank_their_page_first_in_hybrid(
    flag_vault: Path, open_db: Callable[[Path], IndexDB], real_provider: EmbedderProvider
) -> None:
    searcher = build_index(open_db(flag_vault), real_provider)
    for raw, target in FLAG_QUERIES:
        hits = searcher.search(raw, SearchOptions(mode="hybrid")).hits
        assert hits[0].path == target, raw


def test_too_long_query_is_rejected_with_a_clear_message() -> None:
    with pytest.raises(QueryError, match="1,000"):
        parse_query("x" * 1001)
    parse_query("x" * 1000)


HOSTILE = [
    '"',
    '""',
    '"""',
    "'",
    "''",
    "(",
    ")",
    "()",
    "((",
    "))",
    "(a",
    "a)",
    "a (b",
    "NEAR(",
    "NEAR(a b)",
    "NEAR(a, b, 3)",
    "near/3",
    "col:",
    "title:",
    "title:foo",
    "body:bar baz",
    "{title body}: x",
    "-",
    "--",
    "-a",
    "- a",
    "a -",
    "--a",
    '-"a b"',
    "^",
    "^a",
    "a^",
    "*",
    "**",
    "a*",
    "*a",
    "a**",
    "AND",
    "OR",
    "NOT",
    "AND OR NOT",
    "a AND",
    "OR a",
    "a OR",
    "a OR OR b",
    "NOT a",
    "a NOT",
    "a NOT b",
    "and or not",
    "+",
    "+a",
    "a + b",
    "&&",
    "||",
    "!",
    "a!",
    "?",
    "a?b",
    ":",
    "::",
    "a:b:c",
    "tag:",
    "path:",
    "tag:#",
    "tag:ops tag:",
    "path:../..",
    "path:/etc",
    "path:'",
    "linkto:",
    'linkto:"',
    'linkto:""',
    "linkto:Home linkedfrom:",
    "linkedfrom:../..",
    'linkto:"a b" "c',
    "linkto:%_%",
    "linkedfrom:[[x]]",
    "'tag:x'",
    "\\",
    "\\\\",
    "a\\b",
    '"a\\"b"',
    "%",
    "_",
    "%_%",
    "'; DROP TABLE notes; --",
    "\x00",
    "\x00a",
    "a\x00b",
    "\x07\x08\x1b[31m",
    "\t",
    "\n",
    "\r\n",
    " ",
    "   ",
    "\u200b",
    "\ufeff",
    "a\u0301",
    "é",
    "ß",
    "İstanbul",
    "Ελληνικά",
    "Привет мир",
    "مرحبا",
    "שלום",
    "東京",
    "東京タワー",
    "中文 搜索",
    "한국어",
    "ｆｕｌｌｗｉｄｔｈ",
    "emoji 🙂",
    "🙂",
    "🙂🙂🙂",
    "a\U0001f600b",
    "\ud7ff",
    "x" * 1000,
    "word " * 199,
    '"' * 999,
    "(" * 500,
    "a OR " * 150,
    "-a " * 300,
    "tag:a " * 150,
    "ValueError: invalid literal for int() with base 10: '5XX'",
    "jsonable_encoder",
    "tar czf",
    "C++",
    "C#",
    ".NET",
    "node.js",
    "a.b.c",
    "foo_bar_baz",
    "x=1",
    "a<b>c",
    "<script>alert(1)</script>",
    "<mark>",
    "&amp;",
    "SELECT * FROM notes",
    "rank:1",
    "bm25(notes_fts)",
    "notes_fts",
    "rowid",
    "https://example.com/a?b=c#d",
    "~/notes/*.md",
    "$HOME",
    "`code`",
    "```",
    "# heading",
    "[[link]]",
    "![img](x.png)",
    "1e309",
    "-1",
    "0",
    "NaN",
    "None",
    "null",
    "true",
]


def test_the_hostile_table_is_big_enough() -> None:
    assert len(HOSTILE) >= 100
    assert len(set(HOSTILE)) == len(HOSTILE)


@pytest.fixture(scope="module")
def hostile_index(tmp_path_factory: pytest.TempPathFactory) -> IndexDB:
    root = tmp_path_factory.mktemp("hostile-vault")
    (root / "a.md").write_text('# Alpha\n\nNEAR the title: body (with) "quotes" and 東京タワー.\n')
    (root / "b.md").write_text("---\ntags: [ops]\n---\nValueError: invalid literal for int()\n")
    db = IndexDB.open(root, tmp_path_factory.mktemp("hostile-data"))
    build_index(db, EmbedderProvider.of(FakeEmbedder()))
    return db


@pytest.mark.parametrize("mode", ["fts", "hybrid", "semantic"])
def test_hostile_queries_return_a_result_or_a_clear_error(
    hostile_index: IndexDB, mode: str
) -> None:
    searcher = _searcher(hostile_index)
    for raw in HOSTILE:
        try:
            response = searcher.search(raw, SearchOptions(mode=mode))
        except QueryError as exc:
            message = str(exc)
            assert "\n" not in message and message, raw
            continue
        except sqlite3.Error as exc:  # pragma: no cover - the failure this test exists for
            pytest.fail(f"{raw!r} raised {exc!r}")
        assert isinstance(response.hits, list), raw
        assert response.to_json()["mode"] == mode


def _searcher(db: IndexDB) -> Searcher:
    return Searcher(db, EmbedderProvider.of(FakeEmbedder()))


def test_hostile_queries_from_the_command_line(
    tmp_path: Path, write: Callable[[str, str], Path], vault: Path
) -> None:
    from explorer.entry import main

    write("n.md", "# N\n\nhello world\n")
    assert main(["index", str(vault), "--no-embed"]) == 0
    for raw in ['"', "NEAR(", "col:", "*", "(", "\x01", "AND"]:
        assert main(["search", str(vault), raw, "--mode", "fts", "--no-sync"]) == 0


#: German notes that say in two words what a question says in one (``Bild`` and ``Größe`` for
#: ``Bildgröße``, ``Port`` and ``Weiterleitung``, ``Schlaf`` for ``einschlafen``), beside
#: notes that hold one part only or the other words of the questions.
COMPOUND_NOTES = {
    "de/magick.md": "# magick\n\nSkaliere ein Bild auf die Hälfte seiner Größe.\n",
    "de/ssh.md": "# ssh\n\nLeite einen lokalen Port weiter (Weiterleitung über den Server).\n",
    "de/caffeinate.md": "# caffeinate\n\nHindert den Mac daran, in den Schlaf-Modus zu gehen.\n",
    "de/tabelle.md": "# Tabelle\n\nDie Spalten der Tabelle im Terminal ändern.\n",
    "de/fenster.md": "# Fenster\n\nDie Größe eines Fensters ändern und die Farben ändern.\n",
    "de/galerie.md": "# Galerie\n\nEin Bild in der Galerie zeigen, auch lokal.\n",
    "de/laptop.md": "# Laptop\n\nDen Laptop aufladen, wenn er während der Arbeit leer ist.\n",
}


@pytest.fixture
def german(write: Write, vault: Path, open_db: Callable[[Path], IndexDB]) -> IndexDB:
    for path, text in COMPOUND_NOTES.items():
        write(path, text)
    db = open_db(vault)
    build_index(db, None)
    return db


def split(raw: str, conn: sqlite3.Connection, languages: tuple[str, ...] = ("de",)) -> Query:
    query = parse_query(raw, languages)
    split_compounds(query, Counted(conn))
    return query


@pytest.mark.parametrize(
    ("question", "note", "parts"),
    [
        ("bildgröße im terminal ändern", "de/magick.md", {"bildgröße": ["bild", "größe"]}),
        ("wie ändere ich die bildgröße?", "de/magick.md", {"bildgröße?": ["bild", "größe"]}),
        (
            "lokale portweiterleitung",
            "de/ssh.md",
            {"portweiterleitung": ["port", "weiterleitung"]},
        ),
        # A separable verb: its particle (``ein``) is a stop word, its verb matches alone.
        (
            "er soll nicht einschlafen",
            "de/caffeinate.md",
            {"einschlafen": ["schlafen"]},
        ),
    ],
)
def test_a_german_compound_question_finds_the_note_that_holds_its_parts(
    german: IndexDB, question: str, note: str, parts: dict[str, list[str]]
) -> None:
    query = split(question, german.conn)
    assert {t.text: [p.text for p in ps] for t, ps in query.compounds.items()} == parts
    hits = [h.path for h in lexical_list(german.conn, query, 10)]
    assert hits[0] == note
    # Without the split the note holds none of the question's words, or not as many as others.
    unsplit = [h.path for h in lexical_list(german.conn, parse_query(question, ("de",)), 10)]
    assert unsplit[:1] != [note]


def test_a_word_longer_than_any_compound_is_not_split(german: IndexDB) -> None:
    """A pasted 900-letter word is looked up once, as typed: splitting it cost a stemmed look-up
    of each of its ~1,000 heads and tails (4 s, and the MCP requests behind it waited)."""
    asked: list[str] = []
    counted = Counted(german.conn)

    def holding(expression: str) -> int:
        asked.append(expression)
        return counted(expression)

    for word, splits in (
        ("bildgröße" * 100, False),
        ("rechtsschutzversicherungsgesellschaften", True),
    ):
        asked.clear()
        query = parse_query(f"{word} ändern", ("de",))
        split_compounds(query, holding)
        assert bool(asked) is splits
        assert len(word) > COMPOUND_MAX or len(asked) > 1
    assert [
        h.path for h in lexical_list(german.conn, split("bildgröße" * 100, german.conn), 5)
    ] == []


def test_the_parts_of_a_compound_join_the_any_word_pass_only(german: IndexDB) -> None:
    """The phrase and all-words passes keep the word as typed; the any-word pass takes the
    word or its two parts together (a note with ``Bild`` alone is no match of it)."""
    plain = parse_query("bildgröße ändern", ("de",))
    query = split("bildgröße ändern", german.conn)
    assert (query.fts_phrase(), query.fts_all()) == (plain.fts_phrase(), plain.fts_all())
    assert query.content_parts()[0] == (
        '(("bildgröße" OR "bildgross"*) OR ("bild" AND ("größe" OR "gross"*)))'
    )
    assert len(query.content_parts()) == len(plain.content_parts())


def test_a_compound_is_split_only_where_its_parts_are_more_common_than_it(
    german: IndexDB,
) -> None:
    # No part of it is in the index; ``Fenster`` is held whole more often than split.
    assert split("kaffeemaschine entkalken", german.conn).compounds == {}
    assert split("fenster", german.conn).compounds == {}
    # English questions and vaults in languages that do not compound are left as they are.
    for languages in (("en",), ("fr",), ("es",)):
        assert split("bildgröße ändern", german.conn, languages).compounds == {}


def test_the_window_search_splits_a_compound(german: IndexDB) -> None:
    response = Searcher(german, EmbedderProvider.disabled()).search(
        "bildgröße im terminal ändern", SearchOptions(mode="fts")
    )
    assert [h.path for h in response.hits][:1] == ["de/magick.md"]
