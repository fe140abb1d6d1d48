"""Incremental sync: unchanged files cost nothing, renames keep vectors, deletions leave nothing."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.index import links, store, sync
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.sync import sync_vault
from explorer.vault.parse import ParsedNote
from explorer.vault.scan import NOT_UTF8_NAME, FileStat
from explorer.vault.watch import VaultWatcher
from tests.hostile_parsing import laughs
from tests.index.helpers import mentions, snapshot, table_counts
from tests.waiting import wait_until

Write = Callable[[str, str | bytes], Path]


def _age(path: Path, seconds: float = 10) -> None:
    """Make a file look older than the racy window, as files edited a while ago are."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def test_second_sync_of_unchanged_vault_reads_nothing(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    for i in range(20):
        _age(write(f"n{i}.md", f"# Note {i}\n\nbody {i}\n"))
    db = open_db(vault)
    first = sync_vault(db)
    assert len(first.added) == 20
    second = sync_vault(db)
    assert second.unchanged == 20
    assert not second.changed_anything


def test_edit_is_reflected_and_touch_without_change_is_not_a_change(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    path = write("a.md", "# A\n\noriginal words\n")
    db = open_db(vault)
    sync_vault(db)
    path.write_text("# A\n\nrewritten sentence\n")
    report = sync_vault(db)
    assert report.changed == ["a.md"]
    assert mentions(db, "original") == []
    assert "notes_fts" in mentions(db, "rewritten")
    os.utime(path)  # new mtime, same content
    assert sync_vault(db).changed == []


def test_rename_keeps_vectors_and_embeds_nothing(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    write("old name.md", "# Stable title\n\n" + "a paragraph of words " * 40)
    db = open_db(vault)
    fake = FakeEmbedder()
    sync_vault(db)
    embed_pending(db, fake)
    vectors_before = snapshot(db)["vectors"]
    calls = fake.calls
    (vault / "moved").mkdir()
    os.replace(vault / "old name.md", vault / "moved" / "new name.md")
    report = sync_vault(db)
    assert report.renamed == [("old name.md", "moved/new name.md")]
    assert pending_count(db, fake.name) == 0
    embed_pending(db, fake)
    assert fake.calls == calls
    assert snapshot(db)["vectors"] == vectors_before
    assert [p for (p, *_) in snapshot(db)["notes"]] == ["moved/new name.md"]


def test_delete_leaves_no_trace(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    write("keep.md", "# Keep\n\nkept text\n")
    write("gone.md", "---\ntags: [zebraTag]\n---\n# Zebracorn\n\nzebracorn unique words\n")
    db = open_db(vault)
    sync_vault(db)
    embed_pending(db, FakeEmbedder())
    before = table_counts(db)
    (vault / "gone.md").unlink()
    report = sync_vault(db)
    assert report.deleted == ["gone.md"]
    assert mentions(db, "zebracorn") == []
    assert mentions(db, "gone.md") == []
    after = table_counts(db)
    assert after["notes"] == before["notes"] - 1
    assert after["vectors"] == after["chunks"] == 1


def test_broken_files_are_reported_and_the_rest_indexed(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    write("good.md", "# Good\n\nfine words\n")
    write("front.md", "---\ntitle: [broken\n---\n# Front\n\nstill searchable\n")
    write("latin.md", "# Latin\n\ncaf\xe9 cr\xe8me".encode("latin-1"))
    write("binary.md", b"\x00\x01\x02PK\x03\x04" * 100)
    write("empty.md", "")
    with open(vault / "huge.md", "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    os.symlink(vault / "loop-a.md", vault / "loop-b.md")
    os.symlink(vault / "loop-b.md", vault / "loop-a.md")
    os.symlink(vault, vault / "dir-loop")
    secret = write("unreadable.md", "# Secret\n")
    secret.chmod(0)
    db = open_db(vault)
    report = sync_vault(db)
    notes = {p for (p, *_) in snapshot(db)["notes"]}
    expected = {"good.md", "front.md", "latin.md", "empty.md"}
    skipped = dict(db.conn.execute("SELECT path, reason FROM skipped"))
    if os.geteuid() == 0:  # root reads any file
        expected.add("unreadable.md")
    else:
        assert "cannot read" in skipped["unreadable.md"]
    assert notes == expected
    assert "binary" in skipped["binary.md"]
    assert "too large" in skipped["huge.md"]
    assert {"loop-a.md", "loop-b.md"} <= set(skipped)
    assert "latin.md" in report.warnings and "front.md" in report.warnings
    assert "notes_fts" in mentions(db, "searchable")
    assert "notes_fts" in mentions(db, "café")


#: A sync killed (``os._exit``, no clean-up) as it applies its ``argv[3]``-th note, with
#: ``OPTIMIZE_NOTES`` at ``argv[4]``.
_PARTIAL = """
import sys
from pathlib import Path
from explorer.index.db import IndexDB
from explorer.index import sync
db = IndexDB.open(Path(sys.argv[1]), sys.argv[2])
real = sync._apply
count = 0
def dying(*args, **kwargs):
    global count
    count += 1
    if count == int(sys.argv[3]):
        import os
        os._exit(9)  # killed mid-batch, no cleanup
    return real(*args, **kwargs)
sync._apply = dying
sync.OPTIMIZE_NOTES = int(sys.argv[4])
sync.sync_vault(db, batch_size=50)
"""


def test_killed_sync_then_rerun_equals_a_single_run(
    vault: Path, write: Write, tmp_path: Path
) -> None:
    for i in range(300):
        _age(
            write(f"f{i % 7}/n{i}.md", f"---\ntags: [t{i % 5}]\n---\n# Note {i}\n\nthe note x{i}\n")
        )
    killed_data, clean_data = tmp_path / "killed", tmp_path / "clean"
    proc = subprocess.run(
        [sys.executable, "-c", _PARTIAL, str(vault), str(killed_data), "130", "1000"]
    )
    assert proc.returncode == 9
    db = IndexDB.open(vault, killed_data)
    assert 0 < table_counts(db)["notes"] < 300  # the kill really left work undone
    sync_vault(db)
    clean = IndexDB.open(vault, clean_data)
    sync_vault(clean)
    assert snapshot(db) == snapshot(clean)
    assert db.fts_integrity() is None
    db.close()
    clean.close()


def test_racy_edit_within_timestamp_resolution_is_caught(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    path = write("r.md", "# R\n\nfirst\n")
    st = path.stat()
    db = open_db(vault)
    sync_vault(db)
    path.write_text("# R\n\nsecond\n")  # same size …
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # … and same mtime as indexed
    assert sync_vault(db).changed == ["r.md"]


def _bytes_write(vault: Path, rel: bytes, content: str) -> None:
    """Write a file whose name is bytes that need not be UTF-8 (Linux allows any)."""
    path = os.path.join(os.fsencode(vault), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(content)


def _skipped(db: IndexDB) -> dict[str, str]:
    return dict(db.conn.execute("SELECT path, reason FROM skipped"))


def _notes(db: IndexDB) -> set[str]:
    return {row[0] for row in db.conn.execute("SELECT path FROM notes")}


BAD_NAMES = {"caf\\xe9.md": NOT_UTF8_NAME, "d\\xff/inner.md": NOT_UTF8_NAME}


def test_a_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    for i in range(300):  # more than one transaction's worth
        write(f"n{i:03}.md", f"# Note {i}\n\nplain words {i}\n")
    _bytes_write(vault, b"caf\xe9.md", "# Cafe\n\ncafewords\n")
    _bytes_write(vault, b"d\xff/inner.md", "# Inner\n\ninnerwords\n")
    db = open_db(vault)
    report = sync_vault(db)
    assert len(_notes(db)) == 300 and len(report.added) == 300
    assert _skipped(db) == BAD_NAMES
    assert report.skipped == BAD_NAMES
    assert mentions(db, "cafewords") == [] and mentions(db, "innerwords") == []
    # Renamed to a valid name, the note is indexed and the listing goes away.
    os.rename(os.path.join(os.fsencode(vault), b"caf\xe9.md"), vault / "café.md")
    sync_vault(db)
    assert "café.md" in _notes(db)
    assert _skipped(db) == {"d\\xff/inner.md": NOT_UTF8_NAME}


def test_a_targeted_sync_of_names_that_are_not_utf8_skips_them(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    db = open_db(vault)
    sync_vault(db)
    write("good.md", "# Good\n\ngoodwords\n")
    _bytes_write(vault, b"caf\xe9.md", "# Cafe\n\ncafewords\n")
    _bytes_write(vault, b"d\xff/inner.md", "# Inner\n\ninnerwords\n")
    # The paths as the watcher hands them out: str with surrogate escapes.
    events = {"good.md", os.fsdecode(b"caf\xe9.md"), os.fsdecode(b"d\xff")}
    report = sync_vault(db, paths=events | {os.fsdecode(b"d\xff/inner.md")})
    assert report.added == ["good.md"]
    assert _notes(db) == {"good.md"}
    assert _skipped(db) == BAD_NAMES
    os.unlink(os.path.join(os.fsencode(vault), b"caf\xe9.md"))
    shutil.rmtree(os.path.join(os.fsencode(vault), b"d\xff"))
    sync_vault(db, paths=events)  # gone: no longer listed
    assert _skipped(db) == {}
    assert _notes(db) == {"good.md"}


def _links(vault: Path, outside: Path) -> None:
    (vault / "sub").mkdir(exist_ok=True)
    (vault / "sub" / "real.md").write_text("# Real\n\ninsidewords\n")
    outside.mkdir()
    (outside / "passwd.md").write_text("root:x:0:0:root:/root:/bin/bash\n")
    os.symlink(outside / "passwd.md", vault / "passwd.md")
    os.symlink("../outside/passwd.md", vault / "relative.md")
    os.symlink("sub/real.md", vault / "alias.md")
    os.symlink(vault / "missing.md", vault / "dangling.md")
    os.mkfifo(vault / "pipe.md")


LINKED_NOTES = {"sub/real.md", "alias.md"}
LINK_SKIPS = {
    "passwd.md": "symlink to a file outside the vault",
    "relative.md": "symlink to a file outside the vault",
    "pipe.md": "not a regular file",
}


def _link_skips(db: IndexDB) -> dict[str, str]:
    skipped = _skipped(db)
    assert "broken symlink" in skipped.pop("dangling.md", "")
    return skipped


def test_symlinked_files_are_indexed_only_when_their_target_is_inside_the_vault(
    vault: Path, tmp_path: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    _links(vault, tmp_path / "outside")
    db = open_db(vault)
    sync_vault(db)
    assert _notes(db) == LINKED_NOTES
    assert _link_skips(db) == LINK_SKIPS
    assert mentions(db, "root") == []
    assert "notes_fts" in mentions(db, "insidewords")


def test_a_targeted_sync_refuses_symlinks_out_of_the_vault_and_fifos(
    vault: Path, tmp_path: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    db = open_db(vault)
    sync_vault(db)
    _links(vault, tmp_path / "outside")
    paths = {"sub", "sub/real.md", "passwd.md", "relative.md", "alias.md", "dangling.md"}
    sync_vault(db, paths=paths | {"pipe.md"})
    assert _notes(db) == LINKED_NOTES
    assert _link_skips(db) == LINK_SKIPS
    assert mentions(db, "root") == []
    # A note replaced by a link out of the vault leaves the index.
    os.replace(vault / "passwd.md", vault / "alias.md")
    sync_vault(db, paths={"alias.md", "passwd.md"})
    assert _notes(db) == {"sub/real.md"}
    assert _skipped(db)["alias.md"] == "symlink to a file outside the vault"
    assert mentions(db, "root") == []


def test_the_watchers_batches_skip_bad_names_links_out_and_fifos(
    vault: Path, tmp_path: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """A real watchdog observer feeding targeted syncs, as the live index does."""
    db = open_db(vault)
    sync_vault(db)
    watcher = VaultWatcher(vault, quiet=0.1, max_wait=1.0)
    watcher.start()
    try:
        _bytes_write(vault, b"caf\xe9.md", "# Cafe\n\ncafewords\n")
        _bytes_write(vault, b"d\xff/inner.md", "# Inner\n\ninnerwords\n")
        _links(vault, tmp_path / "outside")
        (vault / "sentinel.md").write_text("# Sentinel\n\nlast one\n")

        def applied() -> bool:
            batch = watcher.next_batch(0.05)
            if batch is not None:
                try:
                    sync_vault(db, paths=batch.paths)  # must not raise
                finally:
                    watcher.task_done()
            return _notes(db) == LINKED_NOTES | {"sentinel.md"} and len(_skipped(db)) == 6

        wait_until(applied)
        assert _link_skips(db) == {**LINK_SKIPS, **BAD_NAMES}
        assert mentions(db, "root") == [] and mentions(db, "cafewords") == []
        assert watcher.failure() is None
    finally:
        watcher.stop()


@pytest.mark.slow
def test_notes_the_parser_once_choked_on_do_not_fail_their_batch(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    for i in range(100):
        write(f"n{i:03}.md", f"# Note {i}\n\nplain words {i}\n")
    # A YAML escape that makes a lone surrogate (cannot be stored as UTF-8) …
    write("surrogate.md", '---\ntitle: "\\ud800 odd"\ntags: ["x\\udce9"]\n---\nsurrogatebody\n')
    # … and frontmatter nested deeper than the YAML constructor can recurse.
    write("deep.md", "---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n# Deep\n\ndeepbody\n")
    db = open_db(vault)
    sync_vault(db)
    assert len(_notes(db)) == 102
    assert "notes_fts" in mentions(db, "surrogatebody") and "notes_fts" in mentions(db, "deepbody")
    title, tags = db.conn.execute(
        "SELECT title, tags FROM notes WHERE path = 'surrogate.md'"
    ).fetchone()
    assert title == "\ufffd odd" and tags == "x\ufffd"


def test_yaml_that_expands_a_billionfold_costs_its_field_not_the_index(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    write("status.md", laughs(9, "status"))
    write("tags.md", laughs(9, "tags"))
    db = open_db(vault)
    report = sync_vault(db)
    assert sorted(report.added) == ["status.md", "tags.md"] and report.skipped == {}
    assert "`status`" in report.warnings["status.md"][0]
    assert "`tags`" in report.warnings["tags.md"][0]
    rows = db.conn.execute("SELECT path, title, tags, status, warnings FROM notes ORDER BY path")
    assert [r[:4] for r in rows] == [
        ("status.md", "Laughing note", "kept inline", None),
        ("tags.md", "Laughing note", "inline", "draft"),
    ]
    assert "notes_fts" in mentions(db, "laughbody")
    stored = db.conn.execute(
        "SELECT sum(length(title) + length(tags) + length(body) + coalesce(length(status), 0) "
        "+ length(warnings)) FROM notes"
    ).fetchone()[0]
    assert stored < 2000  # the two files are 900 bytes


def test_one_note_failing_unexpectedly_is_skipped_and_its_batch_kept(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(50):
        write(f"n{i:03}.md", f"# Note {i}\n\nplain words {i}\n")
    bad = write("bad.md", "# Bad\n\nfirst version badwords\n")
    db = open_db(vault)
    sync_vault(db)
    bad.write_text("# Bad\n\nsecond version\n")
    write("new.md", "# New\n\nnewwords\n")
    real = sync.parse_note

    def parse_failing_on_bad(rel: str, data: bytes, digest: str | None = None) -> ParsedNote:
        note = real(rel, data, digest)
        if rel == "bad.md":
            raise RuntimeError("a bug met this note")
        return note

    monkeypatch.setattr(sync, "parse_note", parse_failing_on_bad)
    report = sync_vault(db)
    assert report.added == ["new.md"]
    assert report.skipped == {"bad.md": "could not be indexed: RuntimeError: a bug met this note"}
    assert _skipped(db) == report.skipped
    assert "bad.md" not in _notes(db) and mentions(db, "badwords") == []  # no stale version
    assert len(_notes(db)) == 51 and db.fts_integrity() is None


def test_an_environment_error_is_not_taken_for_a_bad_note(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(10):
        write(f"n{i:03}.md", f"# Note {i}\n\nplain words {i}\n")
    db = open_db(vault)

    def disk_full(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(sync.store, "upsert_note", disk_full)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        sync_vault(db)
    assert _notes(db) == set() and _skipped(db) == {}


@pytest.mark.slow
def test_big_notes_commit_in_transactions_bounded_by_bytes(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    paragraph = "words of a long note that goes on and on\n\n"
    size = 0
    for i in range(6):  # six notes of ~1.2 MB: 7 MB, over the byte bound, under the count bound
        text = f"# Big {i}\n\n" + paragraph * (1_200_000 // len(paragraph))
        size += len(write(f"big{i}.md", text).read_bytes())
    assert size > sync.BATCH_BYTES  # and six notes are far under the count bound
    db = open_db(vault)
    observer = db.reopen()
    commits: list[str] = []
    db.conn.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    seen: list[tuple[int, int]] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "index":  # another connection sees each transaction once it is committed
            seen.append((done, observer.conn.execute("SELECT count(*) FROM notes").fetchone()[0]))

    sync_vault(db, progress)
    db.conn.set_trace_callback(None)
    observer.close()
    assert len(seen) >= 2 and all(done == visible for done, visible in seen)
    assert seen[-1] == (6, 6)
    assert len(commits) >= 2 + len(seen)  # deletions/skips, each batch, the closing one


def test_a_note_failing_halfway_through_its_writes_is_undone_and_the_batch_redone(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(60):
        write(f"n{i:03}.md", f"# Note {i}\n\nplain words {i}\n")
    write("half.md", "# Half\n\nhalfwords\n")
    db = open_db(vault)
    real = sync.store.upsert_note

    def upsert_then_fail_on_half(
        conn: sqlite3.Connection, st: FileStat, note: ParsedNote, *args: Any, **kwargs: Any
    ) -> int:
        note_id = real(conn, st, note, *args, **kwargs)  # the note, tags, chunks, FTS row …
        if st.rel == "half.md":
            raise RuntimeError("a bug after the writes")  # … and then something goes wrong
        return note_id

    monkeypatch.setattr(sync.store, "upsert_note", upsert_then_fail_on_half)
    report = sync_vault(db, batch_size=25)
    assert report.skipped == {
        "half.md": "could not be indexed: RuntimeError: a bug after the writes"
    }
    assert sorted(report.added) == sorted(f"n{i:03}.md" for i in range(60))  # each exactly once
    assert _notes(db) == set(report.added) and _skipped(db) == report.skipped
    assert mentions(db, "halfwords") == []  # no row of it is left
    assert db.fts_integrity() is None


def test_notes_the_scan_cannot_look_at_keep_their_place(vault: Path, data_dir: Path) -> None:
    """A folder that cannot be listed, or a vault folder that can be listed but not entered
    (every stat fails), emptied the index of those notes: they are not gone, only unreadable."""
    import subprocess
    import sys

    from tests.privileges import unprivileged

    (vault / "sub").mkdir()
    (vault / "sub" / "a.md").write_text("# A\n\nin a folder\n")
    (vault / "b.md").write_text("# B\n\nat the top\n")
    db = IndexDB.open(vault, data_dir)
    sync_vault(db)
    db.close()
    script = (
        "import sys; from pathlib import Path\n"
        "from explorer.index.db import IndexDB; from explorer.index.sync import sync_vault\n"
        "db = IndexDB.open(Path(sys.argv[1]), sys.argv[2]); r = sync_vault(db)\n"
        "print(sorted(r.deleted), sorted(r.skipped)); db.close()\n"
    )

    def sync_without_permission(folder: Path, mode: int) -> str:
        folder.chmod(mode)
        try:
            proc = subprocess.run(
                [*unprivileged(), sys.executable, "-c", script, str(vault), str(data_dir)],
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            folder.chmod(0o755)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    out = sync_without_permission(vault / "sub", 0o000)
    assert out.startswith("[] ['sub/']"), out
    out = sync_without_permission(vault, 0o644)
    assert out.startswith("[] ['b.md', 'sub/']"), out
    db = IndexDB.open(vault, data_dir)
    assert sorted(p for (p,) in db.conn.execute("SELECT path FROM notes")) == ["b.md", "sub/a.md"]
    db.close()


def _fts_segments(db: IndexDB) -> int:
    return int(db.conn.execute("SELECT count(DISTINCT segid) FROM notes_fts_idx").fetchone()[0])


def _numbered_notes(tmp_path: Path, count: int) -> IndexDB:
    """An index, not yet synced, of a vault of ``count`` notes ``n0.md`` … (``word<i> shared``)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(count):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\nword{i} shared text\n", encoding="utf-8")
    return IndexDB.open(vault, path=tmp_path / "index.sqlite")


def test_a_large_sync_leaves_the_word_index_in_one_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every transaction of a first sync adds a segment to the FTS5 index; a query then looks
    # each word up in every one of them (at 50k notes this tripled the cost of a question).
    monkeypatch.setattr(sync, "OPTIMIZE_NOTES", 20)
    db = _numbered_notes(tmp_path, 40)
    vault = db.vault
    sync_vault(db, batch_size=4)
    assert _fts_segments(db) == 1
    (vault / "n1.md").write_text("# Note 1\n\nedited once\n", encoding="utf-8")
    _age(vault / "n1.md")
    sync_vault(db, batch_size=4)
    assert _fts_segments(db) == 2  # a small sync leaves the merging to FTS5's automerge
    hits = db.conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'shared'").fetchall()
    assert len(hits) == 39
    db.close()


def _fts_merges(db: IndexDB) -> dict[str, int]:
    rows = db.conn.execute("SELECT k, v FROM notes_fts_config WHERE k LIKE '%merge'")
    return {str(k): int(v) for k, v in rows}


def test_a_large_sync_adds_a_segment_a_transaction_and_merges_them_once_at_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A trigger wrote each new note's words, and FTS5 writes what a trigger gave it as a
    # segment of its own: one segment a note, which FTS5 then merged as they came (automerge),
    # rewriting the same entries level after level, although the sync merges all at its end.
    monkeypatch.setattr(sync, "OPTIMIZE_NOTES", 8)
    db = _numbered_notes(tmp_path, 64)
    segments: list[int] = []
    merges: list[dict[str, int]] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "index" and done < total:
            segments.append(_fts_segments(db))
            merges.append(_fts_merges(db))

    sync_vault(db, progress, batch_size=4)
    assert segments == list(range(1, 16))  # 15 of the 16 transactions: one segment each
    # Owed a merge from the second transaction (8 notes) on: FTS5 merges nothing till then.
    assert merges == [{}] + [store.DEFERRED_MERGES] * 14
    assert _fts_segments(db) == 1 and _fts_merges(db) == store.WORD_MERGES
    assert db.fts_integrity() is None  # every note's words, written by the store, are there
    db.close()


def test_a_large_sync_killed_before_its_merge_leaves_it_to_the_next_sync(
    vault: Path, write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Killed in its last batch, before the merge, a first sync left the word index in many
    # segments (each transaction adds some), and the next sync, writing few notes, never
    # merged them: every question then paid for all of them.
    monkeypatch.setattr(sync, "OPTIMIZE_NOTES", 100)
    for i in range(300):
        _age(write(f"n{i}.md", f"# Note {i}\n\nword{i} shared text\n"))
    data = tmp_path / "killed"
    proc = subprocess.run([sys.executable, "-c", _PARTIAL, str(vault), str(data), "280", "100"])
    assert proc.returncode == 9
    db = IndexDB.open(vault, data)
    assert table_counts(db)["notes"] == 250 and _fts_segments(db) > 1
    assert _fts_merges(db) == store.DEFERRED_MERGES  # committed with the merge owed
    sync_vault(db, batch_size=50)  # 50 notes to write: fewer than OPTIMIZE_NOTES
    assert _fts_segments(db) == 1 and _fts_merges(db) == store.WORD_MERGES
    sync_vault(db, batch_size=50)  # merged once: the next syncs leave it to the automerge
    (vault / "n1.md").write_text("# Note 1\n\nedited once\n", encoding="utf-8")
    _age(vault / "n1.md")
    sync_vault(db, batch_size=50)
    assert _fts_segments(db) == 2
    db.close()


def test_a_sync_in_transactions_that_writes_no_link_owes_none(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    # Notes indexed within the timestamps' resolution are read again by the next sync and
    # found the same: in several transactions, that sync marked the links owed to be resolved
    # and, having written none, never cleared the mark (the sync after resolved them all again).
    for i in range(10):
        write(f"n{i}.md", f"# Note {i}\n\nsee [[n{(i + 1) % 10}]]\n")
    db = open_db(vault)
    sync_vault(db, batch_size=2)
    report = sync_vault(db, batch_size=2)  # just indexed: every note hashed again
    assert report.unchanged == 10
    assert db.get_meta(links.UNRESOLVED_META) is None


def test_a_skipped_file_that_becomes_a_note_is_no_longer_listed(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    """A note is not unlisted one by one as it is written (a statement per note that never
    found anything): the sync rewrites the listings of every path it looks at first, so a file
    skipped before and readable now is unlisted, in a full sync and in a sync of its path."""
    write("ok.md", "# Ok\n\nfine words\n")
    for name in ("a.md", "b.md"):
        write(name, b"binary\x00data")
    db = open_db(vault)
    sync_vault(db)
    assert set(_skipped(db)) == {"a.md", "b.md"}
    write("a.md", "# A\n\nreadable now\n")
    sync_vault(db)
    assert set(_skipped(db)) == {"b.md"} and "a.md" in _notes(db)
    write("b.md", "# B\n\nreadable too\n")
    sync_vault(db, paths=["b.md"])
    assert _skipped(db) == {} and {"a.md", "b.md", "ok.md"} <= _notes(db)


def test_a_first_sync_looks_up_no_note_it_knows_is_new(
    vault: Path, write: Write, open_db: Callable[[Path], IndexDB]
) -> None:
    for i in range(5):
        write(f"n{i}.md", f"# Note {i}\n\nwords {i}\n")
    db = open_db(vault)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    sync_vault(db)
    assert not [s for s in statements if "SELECT id FROM notes WHERE path" in s]
    write("n0.md", "# Note 0\n\nother words\n")
    sync_vault(db)  # a note the index has is looked up
    assert [s for s in statements if "SELECT id FROM notes WHERE path" in s]
    db.conn.set_trace_callback(None)
    assert len(_notes(db)) == 5
