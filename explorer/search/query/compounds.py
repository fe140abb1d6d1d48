"""German compound words split for the any-word pass: :func:`split_compounds`, which the
searcher calls after :func:`~explorer.search.query.query.parse_query` with the index at hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from explorer.search.query.query import Query, Term
from explorer.vault.language import bare

#: The languages whose long words :func:`split_compounds` splits (chosen on the German dev half;
#: not measured on others that compound, Dutch or Swedish).
COMPOUND_LANGUAGES = frozenset({"de"})
#: A word shorter than this is not split...
COMPOUND_MIN = 8
#: ...nor one longer than this: no compound of a dictionary is (the longest in use, of German
#: law, have 63 and 67 letters), and a word of n letters costs n stemmed look-ups of its parts, of
#: n letters each (a pasted 999-letter word took 4 s before this bound).
COMPOUND_MAX = 80
#: The shortest part of a split; a separable verb's stem (``schlafen`` of ``einschlafen``) is
#: one of :data:`VERB_MIN` letters at least.
PART_MIN = 3
VERB_MIN = 5
#: The letters that may join the words of a German compound (``Arbeit-s-speicher``).
_LINKS = ("", "s", "es", "n", "en")


def split_compounds(query: Query, holding: Callable[[str], int]) -> None:
    """Find the German compound words of ``query`` (``query.compounds``) that the any-word pass
    also matches by their parts: ``bildgröße`` also finds a note that says ``Größe`` of a
    ``Bild``, ``portweiterleitung`` one that says ``Port`` and ``Weiterleitung``.

    ``holding(expression)`` is the number of notes an FTS5 expression matches.  As Koehn and
    Knight split compounds, a word is split where its two parts' geometric mean of notes (each
    part as :meth:`Query.fts_term` matches it, stems included) is highest, when that is more than
    the notes holding the whole word; the parts may be joined by a linking ``s``, ``es``, ``n``
    or ``en``.  A part that is a stop word is no part, except a verb's separable particle:
    ``einschlafen`` is then also matched by ``schlafen`` alone (``mitlesen`` by ``lesen``)."""
    if not COMPOUND_LANGUAGES & query.stem_languages:
        return

    def notes(word: str) -> int:
        expression = query.fts_term(Term(word))
        return holding(expression) if expression else 0

    for term in query.content_terms:
        word = bare(term.text)  # a question's mark is not the word's
        if term.phrase or term.prefix or term.pair or not COMPOUND_MIN <= len(word) <= COMPOUND_MAX:
            continue
        if not word.isalpha():
            continue
        best = float(notes(word))
        split: tuple[str, ...] = ()
        for head, tail, linked in _splits(word):
            parts: tuple[str, ...] = (head, tail)
            if Term(tail).stop_in(query.stop_languages):
                continue
            if Term(head).stop_in(query.stop_languages):
                if linked or len(tail) < VERB_MIN:
                    continue
                score, parts = float(notes(tail)), (tail,)
            else:  # the tail is not counted when no note holds the head
                held = notes(head)
                score = math.sqrt(held * notes(tail)) if held else 0.0
            if score > best:
                best, split = score, parts
        if split:
            query.compounds[term] = tuple(Term(part) for part in split)


def _splits(word: str) -> Iterable[tuple[str, str, bool]]:
    """Each way to cut ``word`` in two parts of :data:`PART_MIN` letters or more, a linking
    letter or two between them left out: (head, tail, whether a link was left out)."""
    for i in range(PART_MIN, len(word) - PART_MIN + 1):
        for link in _LINKS:
            if word[:i].endswith(link) and i - len(link) >= PART_MIN:
                yield word[: i - len(link)], word[i:], bool(link)
