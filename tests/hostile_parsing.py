"""Notes that make a parser's work blow up, and a way to count the work done on them.

Each builder gives a small file whose naive reading costs far more than its size: YAML anchors
nine levels deep (9**9 items from 500 bytes), tens of thousands of lines that each hold a link.
:class:`Counted` wraps a sequence and counts the items read from it, so a test can say the work
grows with the input, not with its square, without timing anything.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


def laughs(levels: int, field: str) -> str:
    """A note whose ``field`` (``status`` or ``tags``) is a YAML "billion laughs": anchor ``a``
    holds nine strings, each next anchor nine uses of the one before, so the last of ``levels``
    anchors stands for ``9 ** levels`` strings.  The note also has a title, a tag or a status
    of its own, and body words (``laughbody``, ``#inline``), which must stay readable."""
    names = "abcdefghijklmnop"[:levels]
    lines = ["---", "title: Laughing note", "a: &a [" + ",".join(['"lol"'] * 9) + "]"]
    for prev, cur in itertools.pairwise(names):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    if field == "status":
        lines += [f"status: *{names[-1]}", "tags: [kept]"]
    elif field == "tags":
        lines += [f"tags: [kept, *{names[-1]}]", "status: draft"]
    else:
        raise ValueError(field)
    lines += ["---", "# Laughing note", "", "Body words laughbody #inline", ""]
    return "\n".join(lines)


def link_lines(count: int) -> str:
    """``count`` lines of one link each (``[[T0]] 0`` …), ten targets in turn."""
    return "".join(f"[[T{i % 10}]] {i}\n" for i in range(count))


class Counted(Sequence[T]):
    """``items``, counting every item read (by index or by iteration) in :attr:`reads`; past
    ``limit`` reads it fails at once (quadratic work on a large input would take minutes)."""

    def __init__(self, items: Sequence[T], limit: int | None = None) -> None:
        self._items = items
        self.reads = 0
        self._limit = limit

    def _read(self, count: int) -> None:
        self.reads += count
        if self._limit is not None and self.reads > self._limit:
            raise AssertionError(f"more than {self._limit:,} items read")

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            part = self._items[index]
            self._read(len(part))
            return part
        self._read(1)
        return self._items[index]

    def __iter__(self) -> Iterator[T]:
        for item in self._items:
            self._read(1)
            yield item
