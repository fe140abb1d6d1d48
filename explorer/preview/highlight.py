"""Query terms marked in the preview's HTML: in text only (never inside a tag or an entity),
accent-insensitively (``creme`` marks ``Crème``), at word starts (so stems match), the query's
content terms only (a stop word the lexical list ignores is never marked either)."""

from __future__ import annotations

import re
import unicodedata

from explorer.index.text import has_cjk
from explorer.search.query.query import Query

_TAG_OR_ENTITY = re.compile(r"(<[^>]*>|&#?\w+;)")


def fold(text: str) -> str:
    """Lower case without accents, same length as ``text`` (character by character)."""
    out = []
    for ch in text:
        base = unicodedata.normalize("NFD", ch)[0] if ord(ch) > 127 else ch
        low = base.lower()
        out.append(low if len(low) == 1 else base)
    return "".join(out)


def term_pattern(query: Query) -> re.Pattern[str] | None:
    """A regex over folded text matching the query's words (word starts, so stems match): its
    content terms, so a stop word the lexical list ignores is never marked either."""
    parts: list[str] = []
    for term in query.content_terms:
        text = fold(term.text.strip().rstrip("?!.,;:"))  # a question's mark is not the word's
        if not text:
            continue
        if term.phrase:
            words = [re.escape(w) for w in text.split()]
            parts.append(r"\b" + r"\W+".join(words) + r"\w*")
        elif has_cjk(text):
            parts.append(re.escape(text))
        elif not any(ch.isalnum() for ch in text):
            continue
        else:
            word = re.escape(text)
            lead = r"\b" if text[0].isalnum() or text[0] == "_" else ""
            stem = r"\w*" if term.prefix or len(text) >= 4 else r"\b"
            parts.append(lead + word + stem)
            # The Snowball stems the lexical list also matches (komprimieren: komprimi…), and the
            # words of a German compound (bildgröße: Bild, Größe).
            for one in (term, *query.compounds.get(term, ())):
                if one is not term:
                    parts.append(r"\b" + re.escape(fold(one.text)) + r"\w*")
                parts.extend(r"\b" + re.escape(s) + r"\w*" for s in query.stems(one))
    if not parts:
        return None
    parts.sort(key=len, reverse=True)
    return re.compile("|".join(parts))


def highlight(fragment: str, pattern: re.Pattern[str] | None, style: str) -> str:
    """Wrap matches of ``pattern`` in the text of an HTML ``fragment`` with a styled span."""
    if pattern is None:
        return fragment
    pieces = _TAG_OR_ENTITY.split(fragment)
    out = []
    for i, piece in enumerate(pieces):
        if i % 2 == 1 or not piece:
            out.append(piece)
            continue
        folded = fold(piece)
        last = 0
        chunks = []
        for m in pattern.finditer(folded):
            if m.end() == m.start():
                continue
            chunks.append(piece[last : m.start()])
            chunks.append(f'<span style="{style}">{piece[m.start() : m.end()]}</span>')
            last = m.end()
        chunks.append(piece[last:])
        out.append("".join(chunks))
    return "".join(out)
