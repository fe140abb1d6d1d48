"""Words that carry no information on their own: the any-word pass leaves them out.

The list is the Snowball project's English stop word list (``algorithms/english/stop.txt`` at
snowballstem.org, the list made to go with the Porter stemmer this index uses), written out here
as words; the licence is below.  It is short on purpose (function words only: no ``computer``,
``show`` or ``find``, which longer lists drop and a notes search must keep).  It was chosen by
measurement (nDCG@10 on the judged sample and tldr questions and on SciFact) over the 1,333-word
English list of the ``stop-words`` package, which dropped tldr's score, and over a cut of terms
present in most notes: bm25 already gives such terms almost no weight, and the noise that hurts
is a question word that is rare in the vault (``how``, ``do`` and ``i`` are in 1–7% of the tldr
pages, so bm25 weighs them like content words); a cut low enough to catch those dropped content
words of the sample vault and SciFact.

English is the one language with a list: the any-word pass splits a query at spaces, and Chinese
and Japanese text has none, so a CJK run is one term (searched as a phrase of its characters)
and is never a stop word; the bundled and judged vaults are English otherwise.

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

import re
import unicodedata

#: The Snowball English stop words, in the list's own order (pronouns, forms of be/have/do,
#: auxiliaries, contractions, articles and conjunctions, prepositions, adverbs, quantifiers).
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

#: Characters around a word that are not part of it (``deploy?``, ``(the``, ``"why``).
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


def fold(word: str) -> str:
    """``word`` as the list spells it: lower case, no accents, a straight apostrophe, without
    the punctuation around it."""
    word = unicodedata.normalize("NFKD", word.replace("\u2019", "'").lower())
    word = "".join(ch for ch in word if not unicodedata.combining(ch))
    return _EDGES.sub("", word)


def is_stopword(word: str) -> bool:
    """Whether ``word`` (one word as typed) is a stop word."""
    return fold(word) in ENGLISH
