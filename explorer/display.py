"""Showing names and titles that come from the vault, safely, in a terminal or a window.

A note's title or file name is untrusted text.  Printed raw, an escape sequence in it can retitle
the terminal or recolour it; a newline splits a table row; a bidi override reverses what follows
(``evil\\u202egpj.md`` shows as ``evildm.jpg``).  :func:`safe_text` makes every such character
visible as an escape, and leaves everything else (accents, CJK, emoji) as it is.
"""

from __future__ import annotations

import unicodedata

#: Characters that reorder text around them (Unicode bidi controls) or are invisible formatting
#: that a reader cannot see; shown as escapes.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def is_unsafe(ch: str) -> bool:
    """Whether ``ch`` must not reach a terminal or a label raw: a control character (C0, DEL,
    C1, line and paragraph separators), a bidi control, or a lone surrogate."""
    if ch in BIDI_CONTROLS:
        return True
    category = unicodedata.category(ch)
    return category in ("Cc", "Cs", "Zl", "Zp")


def safe_text(text: str) -> str:
    """``text`` with every control, bidi-control and surrogate character shown as an escape
    (``\\x1b``, ``\\u202e``); other text unchanged.  Idempotent on its own output's meaning:
    the backslashes it writes are ordinary characters."""
    if not any(is_unsafe(ch) for ch in text):
        return text
    return "".join(_escape(ch) if is_unsafe(ch) else ch for ch in text)
