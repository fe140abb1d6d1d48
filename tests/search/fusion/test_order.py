"""``sort``: the fused top hits in the order asked for, never other notes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.embed.base import FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index

Write = Callable[[str, str | bytes], Path]

#: path: (file time, created, title)
NOTES = {
    "b/zeta.md": (3_000, "2021-01-01", "Apple garden"),
    "a/alpha.md": (1_000, "2023-01-01", "Cherry garden"),
    "c/mid.md": (2_000, "2022-01-01", "banana garden"),
}


@pytest.fixture
def searcher(vault: Path, write: Write, open_db: Callable[[Path], IndexDB]) -> Searcher:
    for rel, (mtime, created, title) in NOTES.items():
        path = write(rel, f"---\ncreated: {created}\n---\n# {title}\n\nthe garden\n")
        os.utime(path, (mtime, mtime))
    return build_index(open_db(vault), EmbedderProvider.of(FakeEmbedder()))


@pytest.mark.parametrize(
    ("sort", "order"),
    [
        ("modified", ["b/zeta.md", "c/mid.md", "a/alpha.md"]),
        ("created", ["a/alpha.md", "c/mid.md", "b/zeta.md"]),
        ("title", ["b/zeta.md", "c/mid.md", "a/alpha.md"]),  # without case
        ("path", ["a/alpha.md", "b/zeta.md", "c/mid.md"]),
    ],
)
@pytest.mark.parametrize("mode", ("fts", "hybrid"))
def test_each_sort_orders_the_same_hits(
    searcher: Searcher, sort: str, order: list[str], mode: str
) -> None:
    relevance = searcher.search("garden", SearchOptions(mode=mode))
    sorted_ = searcher.search("garden", SearchOptions(mode=mode, sort=sort))
    assert [h.path for h in sorted_.hits] == order
    assert {h.path for h in relevance.hits} == set(order)
    listing = searcher.search("[created]", SearchOptions(sort=sort))
    assert listing.listing and [h.path for h in listing.hits] == order


def test_a_listing_is_newest_first_and_a_bad_sort_is_refused(searcher: Searcher) -> None:
    assert [h.path for h in searcher.search("[created]").hits] == [
        "b/zeta.md",
        "c/mid.md",
        "a/alpha.md",
    ]
    with pytest.raises(ValueError, match="unknown sort 'size'"):
        searcher.search("garden", SearchOptions(sort="size"))
