"""``bench``'s warm-path figure: the searches it times are answered over a real warm server's
socket, from a copy of the bench's index, and the server is gone afterwards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB, index_path
from explorer.live.serve import place
from explorer.mcp.served_timing import format_served, time_served

QUERIES = ["deploy cache", "part 3", "how do we deploy"]


def test_each_timed_search_is_answered_over_the_socket(
    indexed: EmbedderProvider, vault: Path, open_db: Callable[[Path], IndexDB], tmp_path: Path
) -> None:
    db = open_db(vault)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    figures = time_served(vault, db.path, tmp_path, QUERIES, indexed)

    assert figures["answered"] == len(QUERIES)  # the direct searches do not go through it
    assert figures["direct"]["n"] == figures["served"]["n"] == len(QUERIES)
    assert figures["servedOverDirectP50"] > 0
    socket = place(index_path(vault, str(tmp_path / "served-data"))).path
    assert socket is not None and not socket.exists()  # stopped
    lines = format_served(figures)
    assert "asked over its socket" in lines[2] and lines[-1].endswith("x")
