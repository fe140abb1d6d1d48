"""Words that carry no information on their own: the any-word pass leaves them out.

The English list is the Snowball project's (``algorithms/english/stop.txt`` at snowballstem.org,
the list made to go with the Porter stemmer this index uses), written out as words (the list and
its licence are in :mod:`explorer.vault.language`).  It is short on purpose (function words
only: no ``computer``, ``show`` or ``find``, which longer lists drop and a notes search must
keep).  It was chosen by measurement (nDCG@10 on the judged sample and tldr questions and on
SciFact) over the 1,333-word English list of the ``stop-words`` package, which dropped tldr's
score, and over a cut of terms present in most notes: bm25 already gives such terms almost no
weight, and the noise that hurts is a question word that is rare in the vault (``how``, ``do``
and ``i`` are in 1–7% of the tldr pages, so bm25 weighs them like content words); a cut low
enough to catch those dropped content words of the sample vault and SciFact.

Other languages have their lists too (:func:`explorer.vault.language.stop_words`, from the
pinned ``stop-words`` package): the any-word pass leaves out the stop words of the query's
language, or of the vault's languages when the query's cannot be told, and English's always.
A Chinese or Japanese run is cut into overlapping pairs of characters for that pass
(:mod:`explorer.search.query.query`); a pair of two function characters is a stop word
(:func:`is_cjk_stop_pair`).

"""

from __future__ import annotations

import re
from collections.abc import Iterable

from explorer.vault.language import ENGLISH, fold, stop_words

_HIRAGANA = re.compile("[\u3040-\u309f]+")

__all__ = ["ENGLISH", "fold", "is_cjk_stop_pair", "is_stopword"]


def is_stopword(word: str, languages: Iterable[str] = ("en",)) -> bool:
    """Whether ``word`` (one word as typed) is a stop word of one of ``languages``."""
    folded = fold(word)
    return any(folded in stop_words(language) for language in languages)


def is_cjk_stop_pair(pair: str) -> bool:
    """Whether ``pair`` (two characters of a Chinese or Japanese run) carries nothing: two kana
    of the grammar (``にし``, ``した``, ``たい``), two function characters of Chinese (``怎么``,
    ``可以``), or a Japanese stop word."""
    return (
        _HIRAGANA.fullmatch(pair) is not None
        or all(ch in stop_words("zh") for ch in pair)
        or pair in stop_words("ja")
    )
