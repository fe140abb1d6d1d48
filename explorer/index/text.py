"""Preparing text for FTS5, so that scripts written without spaces are searchable.

``unicode61`` reads a run of Chinese or Japanese characters as one token, so ``東京`` would not
find ``東京タワー``.  Every CJK character is stored as a token of its own (spaces inserted around
it), and a query's CJK run becomes a phrase of single characters: a substring of the text is
then a phrase match.  :func:`unspace_cjk` undoes the spacing for snippets shown to the user.
Characters no one sees (a zero-width joiner, a soft hyphen) are dropped, so they split no word.
"""

from __future__ import annotations

import re

_CJK_CLASS = (
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3040-\u30ff\u3100-\u312f"
    "\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_CJK = re.compile(f"([{_CJK_CLASS}])")
_SPACED = re.compile(
    f"(?<=[{_CJK_CLASS}]) (?=[{_CJK_CLASS}\x02\x03])|(?<=[\x02\x03]) (?=[{_CJK_CLASS}])"
)


#: Characters that are not seen and join or split nothing a reader sees: the soft hyphen, the
#: zero-width space, non-joiner and joiner, the word joiner and the zero-width no-break space
#: (a BOM inside a text).  ``unicode61`` reads each as a separator, so ``in\u200dvoice`` was the
#: tokens ``in`` and ``voice``, and a query with a soft hyphen found nothing.  They are dropped
#: from what is indexed and from what is asked (:func:`drop_invisible`).
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_DROP_INVISIBLE = dict.fromkeys(map(ord, INVISIBLE))


def drop_invisible(text: str) -> str:
    """``text`` without the :data:`INVISIBLE` characters (an ASCII text has none: no scan)."""
    return text if text.isascii() else text.translate(_DROP_INVISIBLE)


def searchable(text: str) -> str:
    """``text`` as FTS5 is given it: the invisible characters dropped, CJK spaced."""
    return space_cjk(drop_invisible(text))


def has_cjk(text: str) -> bool:
    # An ASCII text (most notes) has none, and says so without a scan: ``isascii`` reads a flag.
    return not text.isascii() and _CJK.search(text) is not None


def space_cjk(text: str) -> str:
    """``text`` with a space on both sides of every CJK character (collapsed between two)."""
    if not has_cjk(text):
        return text
    return re.sub(r" {2,}", " ", _CJK.sub(r" \1 ", text)).strip()


def unspace_cjk(text: str) -> str:
    """Remove the spaces that :func:`space_cjk` put between CJK characters."""
    if not has_cjk(text):
        return text
    out = text
    for _ in range(2):  # overlapping matches need a second pass
        out = _SPACED.sub("", out)
    return out


_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")


def cjk_pieces(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into its CJK runs and the text between them, in order, each with whether it
    is a CJK run (``"返金したい refund"`` → ``返金したい`` (CJK), ``" refund"``)."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for run in _CJK_RUN.finditer(text):
        if run.start() > at:
            pieces.append((text[at : run.start()], False))
        pieces.append((run.group(), True))
        at = run.end()
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


def cjk_pairs(run: str) -> list[str]:
    """The overlapping pairs of characters of a CJK run, as Lucene's CJK analyzer cuts it
    (``返金方法`` → ``返金``, ``金方``, ``方法``); a run of one character is itself."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]
