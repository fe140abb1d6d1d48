"""Colours: the source tints, contribution bar colours and the optional dark palette.

Tints are picked per palette lightness so that rows stay readable in light and dark themes:
a pale wash under dark text, a deep wash under light text.  Colours are cached per palette, so
the model's ``BackgroundRole`` answers with no allocation per cell.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

ENV_THEME = "VAULT_EXPLORER_THEME"
THEMES = ("system", "light", "dark")


@dataclass(frozen=True)
class Tints:
    """The colours one palette uses for sources."""

    fts: QColor  # row wash of lexical-only hits (blue)
    vector: QColor  # row wash of vector-only hits (amber)
    fts_bar: QColor
    vector_bar: QColor
    recency_bar: QColor  # the recency prior's part of the share bar (green)
    highlight: QColor  # query terms in the preview
    highlight_text: QColor
    chunk: QColor  # best chunk background in the preview
    banner: QColor
    banner_text: QColor
    dark: bool


_LIGHT = Tints(
    fts=QColor("#dcEAFF"),
    vector=QColor("#FFE9BF"),
    fts_bar=QColor("#3b7ddd"),
    vector_bar=QColor("#e69b00"),
    recency_bar=QColor("#2e9e4f"),
    highlight=QColor("#ffe066"),
    highlight_text=QColor("#000000"),
    chunk=QColor("#fff6d6"),
    banner=QColor("#fff3cd"),
    banner_text=QColor("#5c4400"),
    dark=False,
)
_DARK = Tints(
    fts=QColor("#1d3557"),
    vector=QColor("#4d3a12"),
    fts_bar=QColor("#5b9bf0"),
    vector_bar=QColor("#f0b030"),
    recency_bar=QColor("#5fd17a"),
    highlight=QColor("#8a6d00"),
    highlight_text=QColor("#ffffff"),
    chunk=QColor("#3a3320"),
    banner=QColor("#4a3b10"),
    banner_text=QColor("#ffe9a8"),
    dark=True,
)


def is_dark(palette: QPalette | None = None) -> bool:
    """Whether ``palette`` (default: the application's) has a dark base colour."""
    if palette is None:
        palette = QApplication.palette()
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def tints(palette: QPalette | None = None) -> Tints:
    """The tints that read well on ``palette``."""
    return _DARK if is_dark(palette) else _LIGHT


#: How much of a tint a muted row keeps (the rest is the base colour): still blue or amber.
MUTED_KEEP = 0.5


def washed(colour: QColor, toward: QColor, keep: float = MUTED_KEEP) -> QColor:
    """``colour`` faded toward ``toward`` (the palette's base colour): a muted tint."""
    a = (colour.red(), colour.green(), colour.blue())
    b = (toward.red(), toward.green(), toward.blue())
    return QColor(*(round(keep * x + (1 - keep) * y) for x, y in zip(a, b, strict=True)))


def dark_palette() -> QPalette:
    """A dark palette for the Fusion style (used when the theme setting says dark)."""
    p = QPalette()
    role = QPalette.ColorRole
    group = QPalette.ColorGroup
    window, base, alt, text = (
        QColor(45, 45, 48),
        QColor(30, 30, 32),
        QColor(38, 38, 41),
        QColor(226, 226, 226),
    )
    p.setColor(role.Window, window)
    p.setColor(role.WindowText, text)
    p.setColor(role.Base, base)
    p.setColor(role.AlternateBase, alt)
    p.setColor(role.ToolTipBase, QColor(60, 60, 64))
    p.setColor(role.ToolTipText, text)
    p.setColor(role.PlaceholderText, QColor(140, 140, 140))
    p.setColor(role.Text, text)
    p.setColor(role.Button, window)
    p.setColor(role.ButtonText, text)
    p.setColor(role.BrightText, QColor(255, 90, 90))
    p.setColor(role.Link, QColor(110, 170, 255))
    p.setColor(role.LinkVisited, QColor(170, 140, 255))
    p.setColor(role.Highlight, QColor(58, 110, 190))
    p.setColor(role.HighlightedText, QColor(255, 255, 255))
    p.setColor(role.Light, QColor(70, 70, 74))
    p.setColor(role.Midlight, QColor(60, 60, 64))
    p.setColor(role.Mid, QColor(50, 50, 53))
    p.setColor(role.Dark, QColor(25, 25, 27))
    p.setColor(role.Shadow, QColor(10, 10, 10))
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(group.Disabled, r, QColor(120, 120, 120))
    return p


def light_palette() -> QPalette:
    """The Fusion style's own light palette."""
    from PySide6.QtWidgets import QStyleFactory

    style = QStyleFactory.create("Fusion")
    return style.standardPalette() if style is not None else QPalette()


def chosen_theme(setting: str | None) -> str:
    """``$VAULT_EXPLORER_THEME`` wins over the saved setting; anything unknown is "system"."""
    value = (os.environ.get(ENV_THEME) or setting or "system").strip().lower()
    return value if value in THEMES else "system"


_ORIGINAL: dict[str, str] = {}


def apply_theme(app: QApplication, theme: str) -> None:
    """Switch ``app`` to ``theme``: "dark" and "light" force a Fusion palette, "system" keeps
    (or restores) the platform's own style and palette."""
    style = app.style()
    _ORIGINAL.setdefault("style", style.name() if style is not None else "Fusion")
    if theme == "dark":
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    elif theme == "light":
        app.setStyle("Fusion")
        app.setPalette(light_palette())
    elif "applied" in _ORIGINAL:
        app.setStyle(_ORIGINAL["style"])
        restored = app.style()
        if restored is not None:
            app.setPalette(restored.standardPalette())
    if theme != "system":
        _ORIGINAL["applied"] = theme
