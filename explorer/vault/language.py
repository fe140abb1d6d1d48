"""Which language a note or a query is written in: a rule of scripts and stop words, offline.

Chinese, Japanese and Korean are told by their script: kana make Japanese (a Japanese text
mixes kana with Chinese characters, a Chinese one has none), Hangul Korean, Chinese characters
alone Chinese.  Other text is told by its stop words: every language's list (the ``stop-words``
package, pinned; English is the Snowball list of :data:`ENGLISH`) votes with the words of the
text it holds, and the language with the most votes wins when it has enough of them and clearly
more than the next one; otherwise the language is unknown (``""``).  Code (fenced blocks, inline
code, ``{{placeholders}}``) and addresses are left out first: they are written in no language.

Measured on the tldr pages (docs/languages.md): the language of 99.5 % of the 6,255 German,
French, Spanish, Japanese and Chinese pages and 99.5 % of the 7,425 English ones is named, and
3 of the 13,680 are named wrongly (the rest are unknown), at 16 µs a page in isolation.  The rule
needs no model, so it costs nothing to ship and gives the same answer on every machine.

Snowball stop word list: Copyright (c) 2001, Dr Martin Porter; Copyright (c) 2002, Richard
Boulton.  All rights reserved.  Redistribution and use in source and binary forms, with or
without modification, are permitted provided that the following conditions are met: (1)
redistributions of source code must retain the above copyright notice, this list of conditions
and the following disclaimer; (2) redistributions in binary form must reproduce the above
copyright notice, this list of conditions and the following disclaimer in the documentation
and/or other materials provided with the distribution; (3) neither the name of the copyright
holder nor the names of its contributors may be used to endorse or promote products derived from
this software without specific prior written permission.  THIS SOFTWARE IS PROVIDED BY THE
COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT
NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
ARE DISCLAIMED.  IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY
DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT
LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR
BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT,
STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

#: Language names as the window and ``status`` say them.
NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "sv": "Swedish",
    "da": "Danish",
    "nb": "Norwegian",
    "fi": "Finnish",
    "pl": "Polish",
    "cs": "Czech",
    "sk": "Slovak",
    "ro": "Romanian",
    "hu": "Hungarian",
    "tr": "Turkish",
    "id": "Indonesian",
    "ca": "Catalan",
    "ru": "Russian",
    "uk": "Ukrainian",
    "bg": "Bulgarian",
    "el": "Greek",
    "ja": "Japanese",
    "zh": "Chinese",
    "ko": "Korean",
}
#: The languages told by their stop words, by script.
_LATIN = ("en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs")
_CYRILLIC = ("ru", "uk", "bg")

#: The Snowball English stop words (``algorithms/english/stop.txt`` at snowballstem.org; the
#: licence is above; :mod:`explorer.search.query.stopwords` says why this list).
_SNOWBALL_ENGLISH = """
    i me my myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself
    they them their theirs themselves what which who whom this that these those
    am is are was were be been being have has had having do does did doing
    would should could ought
    i'm you're he's she's it's we're they're i've you've we've they've
    i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll
    isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't
    won't wouldn't shan't shouldn't can't cannot couldn't mustn't
    let's that's who's what's here's there's when's where's why's how's
    a an the and but if or because as until while
    of at by for with about against between into through during before after
    above below to from up down in out on off over under
    again further then once here there when where why how
    all any both each few more most other some such no nor not only own same so than too very
"""
ENGLISH = frozenset(_SNOWBALL_ENGLISH.split())

#: Fewest stop-word votes a note needs before its language is named (a query needs
#: :data:`QUERY_VOTES`: a few words of English can hold one French or Czech stop word), and how
#: far ahead of the next language the first must be.
MIN_VOTES = 1.0
QUERY_VOTES = 2.0
LEAD = 1.25
#: Rounding room when a sum of vote shares is compared with a bar.
_SLACK = 1e-9
#: Share of a text's letters that must be CJK for it to be a CJK text; share of those that must
#: be kana for it to be Japanese.
CJK_SHARE = 0.2
KANA_SHARE = 0.1

#: Code (fenced or inline), placeholders, tags and addresses, removed one pattern after the
#: other.  Each starts with a literal, which the regular expression engine skips to at memchr
#: speed; one pattern of them all tested every character against their first characters (on
#: the English tldr pages, 12 % of the instructions of telling their language).  Taken in turn,
#: they differ from one leftmost pattern only where they overlap oddly (a ``{{`` before a code
#: span that ends inside it): no tldr page or benchmark question is told differently.
_CODE = tuple(
    re.compile(pattern, re.DOTALL)
    for pattern in (r"`(?:``.*?(?:```|\Z)|[^`\n]*`)", r"\{\{.*?\}\}", r"<[^>\s]+>", r"https?://\S+")
)
#: Punctuation read as a space between words (the apostrophe stays: ``don't``, ``aujourd'hui``).
#: Every other ASCII character maps to itself: ``str.translate`` raises and catches a
#: ``KeyError`` for each distinct character its table lacks (1.7 -> 1.1 µs an English tldr page).
_PUNCTUATION = {i: i for i in range(128)} | str.maketrans(
    dict.fromkeys('!"#$%&()*+,./:;<=>?@[\\]^_`{|}~«»“”„‟…–—¿¡·', " ")
)
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_CYRILLIC_LETTER = re.compile("[\u0400-\u04ff]")
_GREEK_LETTER = re.compile("[\u0370-\u03ff]")
_NOT_LATIN = re.compile(
    "[\u0370-\u04ff\u1100-\u11ff\u3040-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\uff66-\uff9f]"
)
#: How much of a long note is read: the language of its first pages is its language.
READ_CHARS = 8_000


def fold(word: str) -> str:
    """``word`` as the lists are compared: lower case, no accents, a straight apostrophe,
    without the punctuation around it."""
    word = unicodedata.normalize("NFKD", word.replace("\u2019", "'").lower())
    word = "".join(ch for ch in word if not unicodedata.combining(ch))
    return _EDGES.sub("", word)


@cache
def stop_words(language: str) -> frozenset[str]:
    """The stop words of ``language`` (an ISO 639-1 code), folded; empty for one without a list.

    English is the Snowball list; the others come from the ``stop-words`` package."""
    if language == "en":
        return frozenset(fold(w) for w in ENGLISH)
    try:
        from stop_words import StopWordError, get_stop_words
    except ImportError:  # pragma: no cover - a declared dependency
        return frozenset()
    try:
        words = get_stop_words(language)
    except StopWordError:
        return frozenset()
    return frozenset(f for f in (fold(w) for w in words) if f)


@dataclass(frozen=True, slots=True)
class _Ballot:
    """The stop words of some languages, ready to be tallied.

    A word that ``n`` of the lists hold gives each of them ``1 / n`` of a vote.  Votes are
    counted in whole units of ``1 / scale`` (``scale`` is a multiple of every ``n``), so the
    sums are exact whatever order the words come in, and each word's votes for every language
    are one integer, a field of :data:`_FIELD_BITS` bits per language (in :attr:`languages`
    order): a text's votes are the plain sum of its stop words' integers, a loop in C.
    """

    languages: tuple[str, ...]  # in code order: a tie goes to the first
    scale: int
    packed: dict[str, int]
    unpack: struct.Struct


#: Bits of one language's field in a packed vote (room for 2 ** 32 / scale distinct stop words).
_FIELD_BITS = 32


@cache
def _ballot(languages: tuple[str, ...]) -> _Ballot:
    holders: dict[str, list[str]] = {}
    order = tuple(sorted(languages))
    for language in order:
        for word in stop_words(language):
            holders.setdefault(word, []).append(language)
    scale = math.lcm(*{len(langs) for langs in holders.values()}, 1)
    # No field can overflow: a language gets at most ``scale`` per distinct stop word it lists.
    assert max((len(stop_words(lang)) for lang in order), default=0) * scale < 2**_FIELD_BITS
    field = {language: _FIELD_BITS * i for i, language in enumerate(order)}
    packed = {
        word: sum((scale // len(langs)) << field[language] for language in langs)
        for word, langs in holders.items()
    }
    unpack = struct.Struct(f"<{len(order)}I")
    return _Ballot(order, scale, packed, unpack)


def detect(text: str, min_votes: float = MIN_VOTES) -> str:
    """The language of ``text`` as an ISO 639-1 code, or ``""`` when the rule cannot tell
    (``min_votes``: the stop words it needs, see :func:`vote`)."""
    text = text[:READ_CHARS]
    for code in _CODE:
        text = code.sub(" ", text)
    ascii_only = text.isascii()  # most notes: no letter to count, no word to fold
    cyrillic = False
    if not ascii_only and _NOT_LATIN.search(text) is not None:
        letters = sum(ch.isalpha() for ch in text)
        kana = len(_KANA.findall(text))
        han = len(_HAN.findall(text))
        hangul = len(_HANGUL.findall(text))
        if kana + han + hangul >= CJK_SHARE * letters:
            if hangul >= max(kana, han):
                return "ko"
            return "ja" if kana >= KANA_SHARE * (kana + han) else "zh"
        if len(_GREEK_LETTER.findall(text)) >= CJK_SHARE * letters:
            return "el"
        cyrillic = len(_CYRILLIC_LETTER.findall(text)) >= CJK_SHARE * letters
    words = set(text.lower().translate(_PUNCTUATION).split())
    return _tally(words, ascii_only, _CYRILLIC if cyrillic else _LATIN, min_votes)


def vote(
    words: Iterable[str], languages: tuple[str, ...] = _LATIN, min_votes: float = MIN_VOTES
) -> str:
    """The language whose stop words ``words`` hold most, if it has ``min_votes`` and leads
    clearly; else ``""``.  Each distinct stop word votes once (a text's words, not their
    repetitions, tell its language); a word that ``n`` lists hold gives each ``1 / n`` vote."""
    seen = set(map(str.lower, words))
    return _tally(seen, all(w.isascii() for w in seen), languages, min_votes)


def _tally(seen: set[str], ascii_only: bool, languages: tuple[str, ...], min_votes: float) -> str:
    """:func:`vote` over ``seen``, a set of lower-case words (``ascii_only``: none needs folding,
    the common case of an English note)."""
    ballot = _ballot(languages)
    if not ascii_only:
        seen = seen | {fold(w) for w in seen if not w.isascii()}
    # Each stop word once, however often used: the words are a set.
    total = sum(filter(None, map(ballot.packed.get, seen)))
    if not total:
        return ""
    counts = ballot.unpack.unpack(total.to_bytes(ballot.unpack.size, "little"))
    first = max(counts)
    at = counts.index(first)  # the first language in code order, on a tie
    second = max(counts[:at] + counts[at + 1 :], default=0)
    # A vote exactly at a bar counts as reaching it (the bars are fractions like the votes).
    if first / ballot.scale < min_votes - _SLACK:
        return ""
    if first / ballot.scale < LEAD * second / ballot.scale - _SLACK:
        return ""
    return ballot.languages[at]


#: The Snowball stemmer of each language that has one (English has none here: the index's porter
#: tokenizer stems English words on both sides).
SNOWBALL = {
    "da": "danish",
    "de": "german",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hu": "hungarian",
    "it": "italian",
    "nb": "norwegian",
    "nl": "dutch",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "tr": "turkish",
}
#: A stem shorter than this is not searched as a prefix (``co*`` would match half a vault).
MIN_STEM = 4


def bare(word: str) -> str:
    """``word`` in lower case without the punctuation around it (``Bildgröße?``: ``bildgröße``)."""
    return _EDGES.sub("", word.lower())


@lru_cache(maxsize=8192)
def stem(word: str, language: str) -> str:
    """``word``'s Snowball stem in ``language``, folded (:func:`fold`); ``""`` for a language
    without a stemmer, a word that is not all letters (the punctuation around it aside), or a
    stem under :data:`MIN_STEM`.  Remembered: a query asks for each word's stem once per pass,
    and the Snowball stemmers are pure Python."""
    word = bare(word)
    if language not in SNOWBALL or not word.isalpha():
        return ""
    stemmed = fold(_stemmer(language).stemWord(word))
    return stemmed if len(stemmed) >= MIN_STEM else ""


@cache
def _stemmer(language: str) -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer(SNOWBALL[language])


def name(language: str) -> str:
    """The language's name in English (its code when it has none here)."""
    return NAMES.get(language, language or "unknown")
