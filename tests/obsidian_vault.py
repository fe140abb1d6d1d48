"""A small Obsidian-style vault for the tests of links, embeds, callouts and backlinks (issue 12).

``build_obsidian_vault(root)`` writes it under ``root / "vault"`` and returns that folder.  What it
holds, and what each link should resolve to, is in the constants below, so tests assert against
names rather than repeating strings.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

#: Every link form of the issue, written in Home.md.
HOME = """\
---
title: Home
tags: [start]
---
# Home

Welcome to the vault. Read about [[Properties]] first.

Each note has [[Properties|Note properties]] of several kinds; see [[Properties#Types]] for them.

Jump to the [[#Local heading]] below, or to one block: [[Properties#^blk1]].

Notes come in [[Accepted file formats|file types]]; the short name [[Formats]] works too.

For installation [see](Guides/Setup.md), or the [Obsidian site](https://obsidian.md/help).

This one leads [[Nowhere]] at all.

Code is not a link: `[[Not a link]]` and

```
[[Also not a link]]
```

## Local heading

The diagram ![[diagram.png]] and small ![[diagram.png|200]] and ![Diagram](attachments/diagram.png).

Outside the vault ![Outside](../outside.png) and remote ![Remote](https://example.com/x.png).

![[Embedded note]]

![[Embedded note#Part two]]
"""

PROPERTIES = """\
---
aliases: [Props]
---
# Properties

Properties are typed fields kept in the frontmatter.

## Types

Text, list, number, checkbox, date. ^blk1

See the [[Home]] note.
"""

OLD_PROPERTIES = """\
# Properties (old)

An archived page about properties that the shorter path beats. Back to [[Home]].
"""

FORMATS = """\
---
aliases: [Formats]
---
# Accepted file formats

Markdown, images, audio, video and PDF files.
"""

SETUP = """\
# Setup

Install the app, then open a folder as a vault. Back [home](../Home.md).
"""

EMBEDDED = """\
# Embedded note

Part one text of the embedded note.

## Part two

Part two text, shown when the heading is embedded.
"""

CYCLE_A = """\
# Cycle A

A embeds B: ![[Cycle B]]
"""

CYCLE_B = """\
# Cycle B

B embeds A: ![[Cycle A]]
"""

CALLOUTS = """\
# Callouts

> [!note]
> A plain note callout.

> [!warning]- Folded title
> Hidden until opened.

> [!tip] Title
> A tip with its own title.
"""

NOTES: dict[str, str] = {
    "Home.md": HOME,
    "Properties.md": PROPERTIES,
    "Archive/Old/Properties.md": OLD_PROPERTIES,
    "Accepted file formats.md": FORMATS,
    "Guides/Setup.md": SETUP,
    "Embedded note.md": EMBEDDED,
    "Cycle A.md": CYCLE_A,
    "Cycle B.md": CYCLE_B,
    "Callouts.md": CALLOUTS,
}

IMAGE = "attachments/diagram.png"

#: What each target written in Home.md resolves to (``None``: unresolved).
HOME_TARGETS: dict[str, str | None] = {
    "Properties": "Properties.md",
    "Accepted file formats": "Accepted file formats.md",
    "Formats": "Accepted file formats.md",
    "Guides/Setup.md": "Guides/Setup.md",
    "Nowhere": None,
    "diagram.png": IMAGE,
    "attachments/diagram.png": IMAGE,
    "../outside.png": None,
    "Embedded note": "Embedded note.md",
    "": "Home.md",
}

#: Notes that link to each note (backlinks), embeds included.
BACKLINKS: dict[str, set[str]] = {
    "Home.md": {"Properties.md", "Archive/Old/Properties.md", "Guides/Setup.md"},
    "Properties.md": {"Home.md"},
    "Accepted file formats.md": {"Home.md"},
    "Guides/Setup.md": {"Home.md"},
    "Embedded note.md": {"Home.md"},
    "Cycle A.md": {"Cycle B.md"},
    "Cycle B.md": {"Cycle A.md"},
    "Archive/Old/Properties.md": set(),
    "Callouts.md": set(),
}


def png_bytes(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (30, 120, 200)) -> bytes:
    """A valid RGB PNG of one colour, made with zlib and struct only."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return (
            struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
        )

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def build_obsidian_vault(root: Path) -> Path:
    """Write the fixture vault into ``root / "vault"`` (an image just outside it); return it."""
    vault = root / "vault"
    for rel, text in NOTES.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    image = vault / IMAGE
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(png_bytes())
    # The target of ``../outside.png``: it exists, so a test can prove it is not loaded.
    (root / "outside.png").write_bytes(png_bytes(rgb=(200, 30, 30)))
    return vault
