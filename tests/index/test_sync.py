"""Incremental sync: unchanged files cost nothing, renames keep vectors, deletions leave nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from explorer.embed.base import FakeEmbedder
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending, pending_count
from explorer.index.sync import sync_vault
from tests.index.helpers import mentions, snapshot, table_counts

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
    if count == 130:
        import os
        os._exit(9)  # killed mid-batch, no cleanup
    return real(*args, **kwargs)
sync._apply = dying
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
    proc = subprocess.run([sys.executable, "-c", _PARTIAL, str(vault), str(killed_data)])
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
