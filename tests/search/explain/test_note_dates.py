"""A note's dates as the index knows them, and where its creation time comes from."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from explorer.index.db import IndexDB
from explorer.index.sync import sync_vault
from explorer.search.explain.note_dates import note_dates


def test_the_dates_say_where_creation_comes_from(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "dated.md").write_text("---\ncreated: 2024-03-14\n---\n# Dated\n\nbody\n")
    (vault / "plain.md").write_text("# Plain\n\nbody\n")
    june = dt.datetime(2025, 6, 1, 12, 30, tzinfo=dt.UTC).timestamp()
    os.utime(vault / "dated.md", (june, june))
    db = IndexDB.open(vault, tmp_path / "data")
    try:
        sync_vault(db)
        dated = note_dates(db.conn, "dated.md")
        plain = note_dates(db.conn, "plain.md")
        assert note_dates(db.conn, "missing.md") is None
    finally:
        db.close()
    assert dated is not None and plain is not None
    assert dated.created_from == "frontmatter"
    assert dated.line(tz=dt.UTC) == (
        "modified 2025-06-01 12:30 · created 2024-03-14 (from its frontmatter)"
    )
    # The day as written, wherever the reader is.
    west = dt.timezone(dt.timedelta(hours=-8))
    assert "created 2024-03-14 (" in dated.line(tz=west)
    # No frontmatter date: the file's birth time where the platform keeps one, else the first
    # index; the line names which.
    assert plain.created_from in ("file", "indexed")
    named = "the file's birth time" if plain.created_from == "file" else "or before (not recorded)"
    assert named in plain.line()
