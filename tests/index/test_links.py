"""Links in the index (explorer/index/links.py): stored by sync and the live writer, kept
resolved as notes come, move and go, searchable by their shown text, filtered by linkto: and
linkedfrom: in both lists.  Real SQLite, real sync, real watchdog; the fake embedder."""

from __future__ import annotations

import itertools
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index import links
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.migrations import LATEST_VERSION, m001_create_tables, sqlite3_split
from explorer.index.store import chunk_hash
from explorer.index.sync import sync_vault
from explorer.live import LiveIndex
from explorer.search.explain.explain import explain
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from explorer.vault.chunk import chunk_text
from explorer.vault.parse import parse_note
from tests.hostile_parsing import Counted, link_lines
from tests.obsidian_vault import BACKLINKS, HOME_TARGETS, NOTES, build_obsidian_vault
from tests.waiting import wait_until

OpenDb = Callable[[Path], IndexDB]
#: The syntax of the fixture's links (its code block keeps ``[[Not a link]]`` literally, as code).
_LINK_SYNTAX = (
    "[[Properties",
    "[[Nowhere",
    "[[#",
    "|",
    "#^",
    "]](",
    "](Guides",
    "[[Accepted",
    "![[",
)


@pytest.fixture
def obsidian(tmp_path: Path) -> Path:
    return build_obsidian_vault(tmp_path)


@pytest.fixture
def indexed(obsidian: Path, open_db: OpenDb) -> Iterator[Searcher]:
    db = open_db(obsidian)
    sync_vault(db)
    embed_pending(db, FakeEmbedder())
    yield Searcher(db, EmbedderProvider.of(FakeEmbedder()))


def _out(db: IndexDB, path: str) -> dict[str, str | None]:
    return {
        o.target: o.path for o in links.outlinks(db.conn, path) if not o.target.endswith(".png")
    }


def test_every_link_of_the_fixture_is_stored_and_resolved(indexed: Searcher) -> None:
    db = indexed.db
    notes_only = {t: p for t, p in HOME_TARGETS.items() if not t.endswith(".png")}
    assert _out(db, "Home.md") == notes_only
    shown = [o.shown for o in links.outlinks(db.conn, "Home.md")]
    assert shown[:7] == [
        "Properties",
        "Note properties",
        "Properties",
        "Local heading",
        "Properties",
        "file types",
        "Formats",
    ]
    assert "Not a link" not in {o.target for o in links.outlinks(db.conn, "Home.md")}
    for path, sources in BACKLINKS.items():
        assert {b.path for b in links.backlinks(db.conn, path)} == sources, path
    back = {b.path: b for b in links.backlinks(db.conn, "Home.md")}
    assert back["Guides/Setup.md"].line == 3
    assert (
        back["Guides/Setup.md"].text == "Install the app, then open a folder as a vault. Back home."
    )
    assert links.linked_paths(db.conn, "Cycle A.md") == {"Cycle B.md"}
    assert links.linked_paths(db.conn, "Home.md") == {
        "Properties.md",
        "Archive/Old/Properties.md",
        "Accepted file formats.md",
        "Guides/Setup.md",
        "Embedded note.md",
    }


def test_links_resolved_in_the_index_agree_with_the_resolver(
    vault: Path, write: Callable[[str, str], Path], open_db: OpenDb
) -> None:
    write("Note.md", "---\naliases: [Other name, Shared]\n---\n# Note\n")
    write("a/Note.md", "# Deeper note\n")
    write("b/Shared.md", "# A real name beats an alias\n")
    write("Release v1.2.md", "# Dotted\n")
    write(
        "a/src.md",
        "[[note]] [[NOTE.md]] [[a/Note]] [[other name]] [[Shared]] [[Release v1.2]] [[Gone]] "
        "[x](Note.md) [y](../Note.md) [z](Note) [[#Here]] [[Note#^b|blk]] ![[pic.png]]\n",
    )
    db = open_db(vault)
    sync_vault(db)
    resolver = links.resolver(db.conn)
    found = links.outlinks(db.conn, "a/src.md")
    assert len(found) == 13
    for o in found:
        assert o.path == resolver.resolve(o.target, "a/src.md", markdown=o.markdown), o
    assert [o.path for o in found] == [
        "Note.md",
        "Note.md",
        "a/Note.md",
        "Note.md",
        "b/Shared.md",
        "Release v1.2.md",
        None,
        "a/Note.md",
        "Note.md",
        "a/Note.md",
        "a/src.md",
        "Note.md",
        None,
    ]


def test_resolver_of_the_index_knows_paths_and_aliases(indexed: Searcher) -> None:
    resolver = links.resolver(indexed.db.conn)
    assert resolver.resolve("Formats") == "Accepted file formats.md"
    assert resolver.resolve("props") == "Properties.md"
    assert resolver.resolve("Old/Properties") == "Archive/Old/Properties.md"
    assert resolver.resolve("diagram.png") is None  # attachments are found on disk by the GUI


def _age(path: Path, seconds: float = 10) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def test_a_renamed_target_turns_its_links_resolved_and_keeps_its_vectors(
    vault: Path, write: Callable[[str, str], Path], open_db: OpenDb
) -> None:
    write("a.md", "# A\n\nSee [[Target]] and [[Target#Part|the part]].\n")
    _age(write("drafts/Other.md", "# Other\n\nThe target text, long enough to embed.\n"))
    db = open_db(vault)
    sync_vault(db)
    embed_pending(db, FakeEmbedder())
    assert set(_out(db, "a.md").values()) == {None}
    assert links.backlinks(db.conn, "drafts/Other.md") == []

    (vault / "drafts/Other.md").rename(vault / "drafts/Target.md")
    report = sync_vault(db, paths=["drafts/Other.md", "drafts/Target.md"])
    assert report.renamed == [("drafts/Other.md", "drafts/Target.md")]
    assert set(_out(db, "a.md").values()) == {"drafts/Target.md"}
    assert [(b.path, b.text) for b in links.backlinks(db.conn, "drafts/Target.md")] == [
        ("a.md", "See Target and the part.")
    ]
    assert pending_count(db, FakeEmbedder().name) == 0  # the rename re-embedded nothing

    # A nearer note of the same name takes the links over; removing it gives them back.
    write("Target.md", "# Target at the top\n")
    sync_vault(db, paths=["Target.md"])
    assert set(_out(db, "a.md").values()) == {"Target.md"}
    (vault / "Target.md").unlink()
    sync_vault(db, paths=["Target.md"])
    assert set(_out(db, "a.md").values()) == {"drafts/Target.md"}


def test_an_alias_added_later_resolves_links_to_it(
    vault: Path, write: Callable[[str, str], Path], open_db: OpenDb
) -> None:
    write("a.md", "Read [[Formats]].\n")
    write("Accepted.md", "# Accepted\n")
    db = open_db(vault)
    sync_vault(db)
    assert _out(db, "a.md") == {"Formats": None}
    write("Accepted.md", "---\naliases: [Formats]\n---\n# Accepted\n")
    sync_vault(db, paths=["Accepted.md"])
    assert _out(db, "a.md") == {"Formats": "Accepted.md"}
    write("Accepted.md", "# Accepted, alias dropped\n")
    sync_vault(db, paths=["Accepted.md"])
    assert _out(db, "a.md") == {"Formats": None}


def test_a_deleted_note_takes_its_links_and_leaves_incoming_ones_unresolved(
    obsidian: Path, open_db: OpenDb
) -> None:
    db = open_db(obsidian)
    sync_vault(db)
    (obsidian / "Properties.md").unlink()
    (obsidian / "Accepted file formats.md").unlink()
    sync_vault(db)
    # [[Properties]] falls to the other note of that name; [[Formats]] to nothing.
    out = _out(db, "Home.md")
    assert out["Properties"] == "Archive/Old/Properties.md"
    assert out["Accepted file formats"] is None
    assert out["Formats"] is None
    assert {b.path for b in links.backlinks(db.conn, "Home.md")} == {
        "Archive/Old/Properties.md",
        "Guides/Setup.md",
    }
    orphans = db.conn.execute(
        "SELECT count(*) FROM links WHERE note_id NOT IN (SELECT id FROM notes) "
        "OR (to_id IS NOT NULL AND to_id NOT IN (SELECT id FROM notes))"
    ).fetchone()[0]
    assert orphans == 0
    aliases = db.conn.execute("SELECT count(*) FROM note_aliases WHERE key = 'formats'")
    assert aliases.fetchone()[0] == 0


def test_the_live_index_keeps_links_current(
    vault: Path, write: Callable[[str, str], Path], data_dir: Path
) -> None:
    write("Home.md", "# Home\n\nThis one leads [[Nowhere]] yet.\n")
    write("Elsewhere.md", "# Elsewhere\n\nA page of its own.\n")
    live = LiveIndex(
        vault, str(data_dir), EmbedderProvider.of(FakeEmbedder()), quiet=0.1, max_wait=1.0
    )
    live.start()
    try:
        assert live.wait_idle(30), live.health()
        reader = IndexDB.open_existing(vault, data_dir)
        searcher = Searcher(reader, EmbedderProvider.of(FakeEmbedder()))

        def linking(target: str) -> list[str]:
            return [
                h.path
                for h in searcher.search(f"leads linkto:{target}", SearchOptions(mode="fts")).hits
            ]

        assert linking("Nowhere") == []
        (vault / "Elsewhere.md").rename(vault / "Nowhere.md")
        wait_until(lambda: linking("Nowhere") == ["Home.md"])
        assert links.backlinks(reader.conn, "Nowhere.md")[0].text == "This one leads Nowhere yet."
        (vault / "Nowhere.md").unlink()
        wait_until(lambda: linking("Nowhere") == [])
        assert _out(reader, "Home.md") == {"Nowhere": None}
        reader.close()
    finally:
        live.stop()


def test_linkto_and_linkedfrom_filter_the_lexical_and_the_vector_list(indexed: Searcher) -> None:
    hybrid = SearchOptions(mode="hybrid", min_rel=0.0)  # every note with a vector may come
    unfiltered = indexed.candidates("properties home", hybrid)
    assert {v.path for v in unfiltered.vector} - BACKLINKS["Home.md"]  # the filter has work to do
    for raw, allowed in [
        ("properties home linkto:Home", BACKLINKS["Home.md"]),
        ("properties home linkto:Home.md", BACKLINKS["Home.md"]),
        ('text linkto:"Accepted file formats"', {"Home.md"}),
        ("text linkto:Formats", {"Home.md"}),
        ("properties linkedfrom:Home", set(_linked_from_home())),
        ("note linkedfrom:Guides/Setup", {"Home.md"}),
        ("note linkto:Props", {"Home.md"}),
    ]:
        found = indexed.candidates(raw, hybrid)
        assert found.query.has_filters
        lexical = {p for p, _, _ in found.lexical}
        vector = {v.path for v in found.vector}
        assert vector, raw
        assert vector <= allowed, raw
        assert lexical <= allowed, raw
    assert {p for p, _, _ in indexed.candidates("properties linkto:Home", hybrid).lexical} == {
        "Properties.md",
        "Archive/Old/Properties.md",
    }
    none = indexed.candidates("properties linkto:Nowhere", hybrid)
    assert none.lexical == [] and none.vector == []


def _linked_from_home() -> list[str]:
    return [
        p for p in HOME_TARGETS.values() if p is not None and p.endswith(".md") and p != "Home.md"
    ]


def test_why_not_reports_the_link_filters(indexed: Searcher) -> None:
    options = SearchOptions(mode="fts")
    checks = explain(
        indexed, "properties linkto:Home linkedfrom:Home", "Callouts.md", options
    ).filters
    assert [(c.kind, c.value, c.passes) for c in checks] == [
        ("linkto", "Home", False),
        ("linkedfrom", "Home", False),
    ]
    checks = explain(
        indexed, "properties linkto:Home linkedfrom:Home", "Properties.md", options
    ).filters
    assert [c.passes for c in checks] == [True, True]


def test_shown_text_is_searchable_and_link_syntax_never_reaches_snippets(indexed: Searcher) -> None:
    fts = SearchOptions(mode="fts")
    for words in ("note properties", "file types", "nowhere", "types", "see installation"):
        hits = indexed.search(words, fts).hits
        assert "Home.md" in [h.path for h in hits], words
        for hit in hits:
            for syntax in _LINK_SYNTAX:
                assert syntax not in hit.snippet, (words, hit.snippet)
    # The vector list shows chunk text: shown text there too, the note's offsets kept.
    for v in indexed.candidates("embedded note part two", SearchOptions(mode="semantic")).vector:
        if v.path in ("Home.md",):
            continue  # Home also shows code, which keeps its brackets by design
        assert not any(s in v.chunk_text for s in ("[[", "]]", "](")), v
    text = (indexed.db.vault / "Home.md").read_text(encoding="utf-8")
    rows = indexed.db.conn.execute(
        "SELECT start, end, text FROM chunks c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = 'Home.md' ORDER BY seq"
    ).fetchall()
    assert rows[0][0] == text.index("# Home") and rows[-1][1] == len(text)
    for (_, end, _), (start, _, _) in itertools.pairwise(rows):
        assert end == start  # contiguous over the note's own text
    assert "Note properties" in rows[0][2] and "[[Properties|" not in rows[0][2]


def test_a_chunk_is_never_cut_inside_a_link() -> None:
    # One paragraph past the chunk budget, whose links hold sentence ends (cut points).
    long_link = "[[" + "A very long note name. " * 3 + "|shown]]"
    body = ("word " * 170 + long_link + " ") * 3
    note = parse_note("n.md", body.encode())
    assert len(note.chunks) > 1
    for chunk in note.chunks:
        span = note.text[chunk.start : chunk.end]
        assert span.count("[[") == span.count("]]"), span
        assert "[[" not in chunk.text
    assert sum(chunk.text.count("shown") for chunk in note.chunks) == 3


def _old_index(db_path: Path, vault: Path) -> None:
    """Write the index the code before links made: schema 1, raw link syntax in the text."""
    conn = sqlite3.connect(db_path)
    for statement in sqlite3_split(m001_create_tables()):
        if statement.strip():
            conn.execute(statement)
    fake = FakeEmbedder()
    for rel in NOTES:
        data = (vault / rel).read_bytes()
        st = (vault / rel).stat()
        note = parse_note(rel, data)
        body = note.text[note.body_start :]
        cur = conn.execute(
            "INSERT INTO notes(path, title, tags, body, status, size, mtime_ns, hash, body_start, "
            "warnings, indexed_ns) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, NULL, ?)",
            (
                rel,
                note.title,
                " ".join(note.tags),
                body,
                st.st_size,
                st.st_mtime_ns,
                note.content_hash,
                note.body_start,
                st.st_mtime_ns + 10**10,
            ),
        )
        for seq, chunk in enumerate(chunk_text(body, offset=note.body_start)):
            text = note.embed_text(chunk)
            key = chunk_hash(text)
            conn.execute(
                "INSERT INTO chunks(note_id, seq, start, end, hash, text) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (cur.lastrowid, seq, chunk.start, chunk.end, key, text),
            )
            vec = fake.embed([text])[0]
            conn.execute(
                "INSERT OR IGNORE INTO vectors(hash, model, dim, vec) VALUES (?, ?, ?, ?)",
                (key, fake.name, len(vec), vec.astype("<f4").tobytes()),
            )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def test_an_index_made_before_links_is_brought_up_to_date_by_the_next_sync(
    obsidian: Path, data_dir: Path
) -> None:
    from explorer.index.db import index_path

    path = index_path(obsidian.resolve(), data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    _old_index(path, obsidian)
    old_hashes = {r[0] for r in sqlite3.connect(path).execute("SELECT hash FROM vectors")}
    db = IndexDB.open(obsidian, data_dir)
    try:
        assert db.conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        report = sync_vault(db)
        assert sorted(report.changed) == sorted(NOTES)  # every note read again
        body = db.conn.execute("SELECT body FROM notes WHERE path = 'Home.md'").fetchone()[0]
        assert "Note properties" in body and "[[Properties|" not in body
        assert _out(db, "Home.md")["Formats"] == "Accepted file formats.md"
        # Chunks whose text is the same keep their vectors: only those with links need one.
        new_hashes = {r[0] for r in db.conn.execute("SELECT hash FROM chunks")}
        assert pending_count(db, FakeEmbedder().name) == len(new_hashes - old_hashes)
        unchanged = {
            r[0]
            for r in db.conn.execute(
                "SELECT c.hash FROM chunks c JOIN notes n ON n.id = c.note_id "
                "WHERE n.path IN ('Callouts.md', 'Embedded note.md')"
            )
        }
        assert unchanged and unchanged <= old_hashes
        assert sync_vault(db).changed == []  # and only once
    finally:
        db.close()


def test_link_keys_fold_names() -> None:
    assert links.name_key("Folder/My Note.md") == "my note"
    assert links.name_key("attachments/Diagram.PNG") == "diagram.png"
    assert links.name_key("Cre\u0300me") == links.name_key("CRÈME")
    assert links.path_key("Guides/Setup.md") == "guides/setup"


def test_odd_link_filter_values_never_raise(indexed: Searcher) -> None:
    for value in ('""', '"', "'", "%", "_", "../..", "/", "a/b/c/d.md", "[[Home]]", "\\", "#^x"):
        indexed.candidates(
            f"properties linkto:{value} linkedfrom:{value}", SearchOptions(mode="hybrid")
        )


def test_a_sync_in_several_transactions_resolves_links_once_at_its_end(
    obsidian: Path, open_db: OpenDb
) -> None:
    db = open_db(obsidian)
    sync_vault(db, batch_size=2)  # five transactions of notes: resolution is left to the end
    assert _out(db, "Home.md") == {t: p for t, p in HOME_TARGETS.items() if not t.endswith(".png")}
    assert db.get_meta(links.UNRESOLVED_META) is None
    # A sync stopped before its end leaves the mark: the next one resolves every link.
    with db.transaction() as conn:
        conn.execute("UPDATE links SET to_id = NULL")
        db.set_meta(links.UNRESOLVED_META, "1")
    sync_vault(db)
    assert _out(db, "Home.md")["Formats"] == "Accepted file formats.md"
    assert {b.path for b in links.backlinks(db.conn, "Home.md")} == BACKLINKS["Home.md"]
    assert db.get_meta(links.UNRESOLVED_META) is None


@pytest.mark.slow
def test_the_contexts_of_40k_link_lines_are_made_once_per_line(
    tmp_path: Path, open_db: OpenDb
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    text = link_lines(40_000)
    (vault / "many.md").write_text(text, encoding="utf-8")
    (vault / "T3.md").write_text("# T3\n", encoding="utf-8")
    db = open_db(vault)
    sync_vault(db)
    back = links.backlinks(db.conn, "T3.md")
    assert [b.line for b in back] == list(range(4, 40_001, 10))
    assert all(b.text == f"T3 {b.line - 1}" for b in back)
    # Writing them again reads each link a few times, not once per line of the note.
    found = parse_note("many.md", text.encode()).links
    counted = Counted(found, limit=10 * len(found))
    with db.transaction() as conn:
        note_id = conn.execute("SELECT id FROM notes WHERE path = 'many.md'").fetchone()[0]
        links.write_links(conn, note_id, text, counted, [])
        links.resolve_keys(conn, links.keys_of("many.md", found, []))
    assert counted.reads <= 5 * len(found)
    assert links.backlinks(db.conn, "T3.md") == back
