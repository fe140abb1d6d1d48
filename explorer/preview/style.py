"""What every piece of the preview's HTML shares: the colours of the palette it is drawn in, the
document's stylesheet, and a name from the vault made safe as HTML text."""

from __future__ import annotations

import html
from dataclasses import dataclass

from explorer.display import safe_text


@dataclass(frozen=True)
class Colours:
    """Colours the HTML uses, chosen by the caller for the current palette."""

    highlight: str = "#ffe066"
    highlight_text: str = "#000000"
    chunk: str = "#fff6d6"
    muted: str = "#666666"
    code: str = "#f2f2f2"
    fts: str = "#3b7ddd"
    vector: str = "#e69b00"
    recency: str = "#2e9e4f"  # the recency prior's part of the share bar
    dark: bool = False
    surface: str = "#ffffff"  # the preview's background


def document_css(colours: Colours) -> str:
    """Default stylesheet of the preview document (Qt's CSS subset)."""
    return (
        f"pre {{ background-color: {colours.code}; padding: 6px; }}"
        f"code {{ background-color: {colours.code}; }}"
        "h1 { font-size: x-large; } h2 { font-size: large; } h3 { font-size: medium; }"
        f".blocked {{ color: {colours.muted}; font-style: italic; }}"
        "td, th { padding: 4px; }"
    )


def shown(name: str) -> str:
    """A name or title from the vault as HTML text: controls and bidi controls escaped
    (:func:`~explorer.display.safe_text`), then HTML-escaped."""
    return html.escape(safe_text(name))
