"""The best notes of an FTS5 expression by bm25 (title, tags and body weighed), scoring as few
matches as the answer needs: the any-word pass scores only the notes that hold one of its rarer
terms and whose terms can add up to the worst score kept, and words in half the notes or more
are matched but not scored.  What the lexical list's passes
(:mod:`explorer.search.lists.lexical`) run.
"""

from __future__ import annotations

import math
import re
import sqlite3

from explorer.index.counts import Counted
from explorer.search.query.query import Query

#: bm25 column weights for (title, tags, body).
BM25_WEIGHTS = (4.0, 2.0, 1.0)


#: The any-word pass scores only the notes holding one of its rarer terms when its terms match
#: more notes than this in all (below it, scoring every match is cheap)...
ANY_WORD_SHORTCUT_MATCHES = 5000
#: ...the rarer terms being at first those a note must hold to score this share of the rarest
#: term's bound: a guess at the worst score kept, which the first notes scored must be able to
#: reach (too low, more notes are scored than needed; too high, the query runs twice).  The
#: best notes of a long question hold several of its words, and score higher against that
#: bound: from :data:`LONG_QUESTION` terms the guess is :data:`LONG_GUESS` (at 50,000 notes,
#: the 50th best score of a question of 7 or more terms was 0.57-1.1 times the bound, of fewer
#: terms 0.49-0.8: 100 questions and 100 short queries of another seed than the bench's, where
#: a question's lexical list went p95 28.5 -> 25.7 ms; on the bench's own, 27.3 -> 25.3 ms).
#: Scoring only the notes that can reach the guess, the same two shares were the best of 0.4,
#: 0.5, 0.6 and 0.7 on the bench's seed and on another (2026-12-06).
FIRST_GUESS = 0.5
LONG_GUESS = 0.6
LONG_QUESTION = 7
#: bm25's k1: a term adds less than ``(k1 + 1) * idf`` to a note's score, however often it is
#: in the note (SQLite's fts5 ``bm25()``).
BM25_K1 = 1.2


#: Only the notes that also match an expression (bound to ``?``).  ``+rowid`` keeps it a filter
#: on the rows: as a rowid constraint FTS5 would run the query once per note, ``bm25`` counting
#: each term's notes each time.
AMONG = " AND +notes_fts.rowid IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?)"


def top_by_bm25(
    conn: sqlite3.Connection,
    expression: str,
    limit: int,
    among: str | None = None,
    only: tuple[str, list[object]] | None = None,
) -> list[tuple[int, float]]:
    """The ``limit`` best (rowid, bm25) matches of ``expression``, best first, exactly as
    ``ORDER BY rank`` ranks them; with ``among``, only of the notes that match ``among`` too
    (their scores still those of ``expression`` alone).

    Not ``ORDER BY rank``: for that, FTS5 copies every match with the positions of each of its
    terms into a sorter of its own, all of them, before the limit applies (at 50,000 notes a
    12-word question's any-word pass spent two thirds of its time there).  SQLite's sorter
    keeps the ``limit`` best rows only.  ``among`` filters the rows (:data:`AMONG`), and so
    does ``only`` (the query's filters, :meth:`Restriction.fts_sql`), before any is scored.
    """
    weights = f"{', '.join(map(str, BM25_WEIGHTS))}"
    restrict = ""
    params: list[object] = [expression]
    if among is not None:
        restrict = AMONG
        params.append(among)
    if only is not None:
        restrict += only[0]
        params.extend(only[1])
    return [
        (int(rowid), float(score))
        for rowid, score in conn.execute(
            f"SELECT rowid, bm25(notes_fts, {weights}) AS s FROM notes_fts "
            f"WHERE notes_fts MATCH ?{restrict} ORDER BY s LIMIT ?",
            (*params, limit),
        )
    ]


def top_of_any(
    conn: sqlite3.Connection,
    parts: list[str],
    limit: int,
    shortcut_matches: int = ANY_WORD_SHORTCUT_MATCHES,
    holding: Counted | None = None,
    only: tuple[str, list[object]] | None = None,
) -> list[tuple[int, float]]:
    """:func:`top_by_bm25` of ``part OR part OR …``, scoring only the notes that can be in it.

    bm25 is a sum over the terms, and a term adds less than ``(k1 + 1) * idf`` to any note
    (``idf`` from the number of notes holding it).  So a note holding only common terms scores
    below the sum of their bounds: once ``limit`` notes holding a rarer term score above that
    sum, no note of common terms alone can be among the best ``limit``, and only the notes
    holding a rarer term need scoring (``max-score`` pruning; the scores are FTS5's own, of the
    whole expression but its terms in half the notes or more, which add next to nothing, so
    the list is the one of scoring every match).  The rarer terms
    start as the rarest few; if the scores found show that too many terms were left out, the
    terms the bound needs are added and the query runs once more (or, with every term needed,
    plainly).  Of the notes holding a rarer term, only those whose terms' bounds add up to the
    worst score kept are scored (:func:`_top_holding`).  ``holding`` (if given) counts the
    notes each part is in.  With ``only`` (the query's filters) the bounds still hold, bm25
    counting over every note: the best ``limit`` of the notes it passes are found the same way.
    """
    expression = " OR ".join(parts)
    if not all(_single_phrase(p) for p in parts):
        return top_by_bm25(conn, expression, limit, only=only)
    counted = holding or Counted(conn)
    counts = [counted(part) for part in parts]
    if sum(counts) <= shortcut_matches:
        return top_by_bm25(conn, expression, limit, only=only)
    notes = counted.rows()
    bound = [(BM25_K1 + 1) * _bm25_idf(notes, n) * (1 + 1e-9) for n in counts]
    order = sorted(range(len(parts)), key=lambda i: (counts[i], i))  # rarest first
    worst = max(bound) * (LONG_GUESS if len(parts) >= LONG_QUESTION else FIRST_GUESS)
    rare = _terms_needed(order, bound, worst)
    while rare < len(order):
        # A term in half the notes or more that no note needs adds next to nothing: matched
        # but not scored, as in the all-words pass (:func:`scored_words`).
        kept = order[:rare] + [i for i in order[rare:] if not _idf_clamped(counts[i], notes)]
        scored = " OR ".join(parts[i] for i in sorted(kept))
        terms = _Terms(parts, order, bound, rare)
        rows = _top_holding(conn, scored, limit, terms, worst, only)
        worst = -rows[-1][1] if len(rows) >= limit else 0.0
        needed = _terms_needed(order, bound, worst)
        if needed <= rare:
            return rows
        rare = needed
    return top_by_bm25(conn, expression, limit, only=only)


class _Terms:
    """The any-word pass's terms as max-score prunes them: each part, rarest first, with the
    most it adds to a score (``bound``); a note must hold one of the first ``rare``."""

    __slots__ = ("bound", "order", "parts", "rare", "rest")

    def __init__(self, parts: list[str], order: list[int], bound: list[float], rare: int) -> None:
        self.parts = parts
        self.order = order
        self.bound = bound
        self.rare = rare
        #: The bounds of the terms from each place in ``order`` on, added up.
        self.rest = [0.0] * (len(order) + 1)
        for k in range(len(order) - 1, -1, -1):
            self.rest[k] = self.rest[k + 1] + bound[order[k]]

    def any_rare(self) -> str:
        """The notes holding one of the rarer terms."""
        return " OR ".join(self.parts[i] for i in sorted(self.order[: self.rare]))

    def reaching(self, worst: float) -> str | None:
        """An FTS5 expression matching every note that holds one of the rarer terms and whose
        terms' bounds add up to ``worst`` or more (maybe a few more notes: past
        :data:`EXPRESSION_NODES` choices, the rest of a branch is any of its terms); ``None``
        when that is every note holding a rarer term."""
        if worst <= 0:
            return None
        budget = [EXPRESSION_NODES]
        found = self._reaching(0, worst, False, budget)
        if found is True or found is False:  # False: no note (the caller then finds none)
            return None
        return found

    def _reaching(self, k: int, worst: float, has: bool, budget: list[int]) -> str | bool:
        """The notes whose terms from ``order[k]`` on bring ``worst`` more, holding a rarer
        term among them unless one is held already (``has``): ``True`` for every note,
        ``False`` for none, else an expression."""
        if has and worst <= 0:
            return True
        if self.rest[k] < worst or (not has and k >= self.rare):
            return False
        budget[0] -= 1
        if budget[0] < 0:  # enough choices: any term that may still be held
            end = len(self.order) if has else self.rare
            return " OR ".join(self.parts[i] for i in sorted(self.order[k:end]))
        term = self.order[k]
        held = self._reaching(k + 1, worst - self.bound[term], has or k < self.rare, budget)
        not_held = self._reaching(k + 1, worst, has, budget)
        if held is False:
            return not_held
        with_term = self.parts[term] if held is True else f"{self.parts[term]} AND ({held})"
        if not_held is False:
            return with_term
        if not_held is True:
            return True
        return f"({with_term}) OR {not_held}"


#: The choices (a term held or not) an expression of :meth:`_Terms.reaching` spells out at most.
EXPRESSION_NODES = 64


def _top_holding(
    conn: sqlite3.Connection,
    scored: str,
    limit: int,
    terms: _Terms,
    worst: float,
    only: tuple[str, list[object]] | None,
) -> list[tuple[int, float]]:
    """:func:`top_by_bm25` of ``scored`` among the notes holding one of the rarer ``terms``,
    scoring only those whose terms' bounds add up to ``worst`` (a guess at the worst score
    kept) or more: a note below that scores below it.  When fewer than ``limit`` notes score
    ``worst`` or more the guess was too high: the worst score of those found is a true
    one, below the worst kept, and the query runs once more with it (or, with fewer than
    ``limit`` found, among every note holding a rarer term)."""
    while True:
        among = terms.reaching(worst)
        if among is None:
            return top_by_bm25(conn, scored, limit, terms.any_rare(), only)
        rows = top_by_bm25(conn, scored, limit, among, only)
        if len(rows) >= limit and -rows[-1][1] >= worst:
            return rows
        worst = -rows[-1][1] if len(rows) >= limit else 0.0


def _terms_needed(order: list[int], bound: list[float], worst: float) -> int:
    """How many of the terms (``order``: rarest first) a note must hold one of to score
    ``worst`` or better: all but the most common ones whose ``bound`` adds up to less."""
    total = 0.0
    common = 0
    for i in reversed(order):
        if total + bound[i] >= worst:
            break
        total += bound[i]
        common += 1
    return len(order) - common


def _single_phrase(part: str) -> bool:
    """Whether ``part`` is one FTS5 phrase (``"…"``, maybe a prefix ``"…"*``): one term of
    bm25's sum."""
    return _PHRASE.fullmatch(part) is not None


_PHRASE = re.compile(r'"(?:[^"]|"")*"\*?')


def scored_words(query: Query, holding: Counted) -> str | None:
    """What the all-words pass ranks its matches by, when that is not all of its words: the
    words but the stop words in half the notes or more.

    bm25 gives a term in half the notes or more an idf of 1e-6 (SQLite's fts5 ``bm25()``),
    so that such a word adds less than ``(k1 + 1) * 1e-6`` to any note's score; yet to learn
    that, bm25 reads every one of its notes, each query again (at 50,000 notes, 12-16 ms for
    the stop words of a question whose words are all in some note).  Their counts are kept
    (:class:`explorer.index.counts.TermCounts`), and the notes holding every word are ranked
    by the others alone: a score differs by less than 2.2e-6 for each word left out, the order
    only where two notes differed by that little (they are then ordered by path).  Only stop
    words are asked about: a content word that common is rare, and counting one that is not
    would read its notes twice.
    ``None``: every word is scored (nothing to leave out, or nothing but them).
    """
    stop = {t.fts() for t in query.stop_terms}
    groups = query.fts_groups()
    common = [
        g
        for g in groups
        if g in stop and _single_phrase(g) and _idf_clamped(holding(g), holding.rows())
    ]
    kept = [g for g in groups if g not in common]
    return " AND ".join(kept) if common and kept else None


def _idf_clamped(holding: int, notes: int) -> bool:
    """Whether bm25 gives a term held by ``holding`` of ``notes`` notes the idf 1e-6, the
    least it gives (:func:`_bm25_idf`): held by half of them or more.  Such a term adds less
    than ``(k1 + 1) * 1e-6`` to a note's score."""
    return 2 * holding >= notes


def _bm25_idf(notes: int, holding: int) -> float:
    """bm25's idf of a term held by ``holding`` of ``notes`` notes, as SQLite's fts5 has it."""
    idf = math.log((notes - holding + 0.5) / (holding + 0.5))
    return idf if idf > 0 else 1e-6
