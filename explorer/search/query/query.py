"""The query language, parsed once into a structure both lists use.

Syntax: bare words; ``"a phrase"``; ``-word`` excludes (a word of two or more characters that starts
with a letter, or a quoted phrase: ``-d``, ``-9`` and ``--onto`` are command-line flags, searched as
text); ``OR`` between words; ``word*`` is a prefix; ``tag:NAME`` and ``path:PREFIX`` filter, as do
``linkto:NOTE`` (notes that link to NOTE) and ``linkedfrom:NOTE`` (notes NOTE links to), where NOTE
is a vault path with or without ``.md`` or a note's name or alias, quoted when it holds spaces
(``linkto:"Accepted file formats"``). Everything else is text. User text reaches FTS5 only as quoted
strings (``"…"`` with ``""`` for a quote), never as syntax, so no query can cause an FTS5 syntax
error; a term with no letters or digits, which FTS5 would read as an empty phrase, is dropped from
the lexical expression. Stop words (:mod:`explorer.search.query.stopwords`) are kept by the phrase
and all-words expressions and left out of the any-word one: English's, and those of the query's
language (:func:`explorer.vault.language.detect`) where the vault has notes in it, else those of
the vault's languages.  In those languages (English aside: the index's porter tokenizer stems
it) a word the Snowball stemmer shortens also matches the words that start with its stem
(:meth:`Query.fts_term`): ``komprimieren`` finds ``komprimiert``, ``copier`` finds ``copie``.

Chinese and Japanese are written without spaces, so a question in them is one "word" that only a
note holding the whole sentence matches.  The phrase and all-words passes keep such a run whole;
the any-word pass cuts it into overlapping pairs of characters (Lucene's CJK bigrams: ``返金したい``
→ ``返金``, ``金し``, ``した``, ``たい``), each a two-character phrase over the index's
one-token-per-character text, and drops the pairs that carry nothing (``した``, ``たい``), so a
note sharing the question's words ranks by them.

German joins words: a question's ``Bildgröße`` is a note's ``Größe`` of a ``Bild``.  With the
index at hand (:func:`~explorer.search.query.compounds.split_compounds`, which the searcher
calls after :func:`parse_query`), the any-word pass also matches a long German word by the two
words of the index it is made of, or a separable verb (``einschlafen``) by its verb alone; the
phrase and all-words passes keep it whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from explorer.errors import UserError
from explorer.index.text import cjk_pairs, cjk_pieces, drop_invisible, has_cjk, space_cjk
from explorer.search.query.date_filter import DateFilter, parse_date_filter
from explorer.search.query.property_filter import TOKEN as PROPERTY_TOKEN
from explorer.search.query.property_filter import (
    NotAFilter,
    PropertyFilter,
    parse_property_filter,
)
from explorer.search.query.quoting import KINDS, QUOTED, unquoted
from explorer.search.query.stopwords import is_cjk_stop_pair, is_stopword
from explorer.vault.language import QUERY_VOTES, detect, fold, stem
from explorer.vault.properties import normalize_tag

MAX_QUERY_CHARS = 1000

_TOKEN = re.compile(PROPERTY_TOKEN + rf"|(?i:{'|'.join(KINDS)}):{QUOTED}" + r'|-?"[^"]*(?:"|$)|\S+')
_PROPERTY = re.compile(PROPERTY_TOKEN)
_DATE_FILTER = re.compile(r"(?i)(modified|created):(.*)", re.DOTALL)
_LINK_FILTER = re.compile(r"(?i)(linkto|linkedfrom):(.+)", re.DOTALL)
_QUOTED_VALUE = re.compile(rf"(?i)(tag|path):({QUOTED})\Z", re.DOTALL)
#: An exclusion: ``-`` then a letter and another word character, or a quoted phrase.
_EXCLUSION = re.compile(r'-(?:"|[^\W\d_]\w)')
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class QueryError(UserError, ValueError):
    """The query cannot be run; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class Term:
    """One searchable unit: a word, a phrase, or a prefix."""

    text: str
    phrase: bool = False
    prefix: bool = False
    #: Two characters of a CJK run, cut out of a longer one for the any-word pass.
    pair: bool = False

    def fts(self) -> str | None:
        """This term as an FTS5 string, or ``None`` if FTS5 would find no token in it."""
        if not any(ch.isalnum() for ch in self.text):
            return None
        quoted = '"' + space_cjk(self.text).replace('"', '""') + '"'
        return quoted + "*" if self.prefix else quoted

    @property
    def is_stopword(self) -> bool:
        """A bare English word that carries no information on its own (a phrase or a prefix
        never is); :meth:`stop_in` asks about other languages."""
        return self.stop_in(("en",))

    def stop_in(self, languages: Iterable[str]) -> bool:
        """Whether this is a stop word of one of ``languages``, or a CJK pair that carries
        nothing."""
        if self.pair:
            return is_cjk_stop_pair(self.text)
        return not (self.phrase or self.prefix) and is_stopword(self.text, languages)

    def segments(self) -> list[Term]:
        """This term as the any-word pass searches it: a bare word with CJK characters cut into
        overlapping pairs of them (and its other letters as words); anything else as it is."""
        if self.phrase or self.prefix or self.pair or not has_cjk(self.text):
            return [self]
        out: list[Term] = []
        for piece, cjk in cjk_pieces(self.text):
            if cjk:
                out.extend(Term(p, pair=len(p) == 2) for p in cjk_pairs(piece))
            elif any(ch.isalnum() for ch in piece):
                out.append(Term(piece.strip()))
        return out


@dataclass(slots=True)
class Query:
    """A parsed query.  ``groups`` are ANDed; the terms of one group are alternatives (OR)."""

    raw: str
    groups: list[list[Term]] = field(default_factory=list)
    excluded: list[Term] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    #: ``linkto:`` values: notes that link to one of these pass (all of them must hold).
    links_to: list[str] = field(default_factory=list)
    #: ``linkedfrom:`` values: notes that one of these links to pass (all of them must hold).
    linked_from: list[str] = field(default_factory=list)
    #: ``[name:value]`` filters on the notes' properties (all must hold).
    properties: list[PropertyFilter] = field(default_factory=list)
    #: ``modified:`` and ``created:`` filters (all must hold).
    dates: list[DateFilter] = field(default_factory=list)
    #: "Now" for the ages of :attr:`dates`, in seconds since 1970 (``None``: the clock).
    now: float | None = None
    #: One line for each part of the query that was not read as written (a malformed
    #: ``[…]`` searched as text) or that passes every note or none (an age older than the
    #: calendar), for the person who typed it.
    notes: list[str] = field(default_factory=list)
    #: The language of the query's words (ISO 639-1), ``""`` when it cannot be told.
    language: str = ""
    #: The languages whose stop words the any-word pass leaves out.
    stop_languages: frozenset[str] = frozenset({"en"})
    #: The languages whose Snowball stems a word also matches (as a prefix), in the all-words
    #: and the any-word pass: those whose stop words are left out, English aside (the index's
    #: porter tokenizer stems English on both sides).
    stem_languages: frozenset[str] = frozenset()
    #: German compound words of the query and the two words of the index they are made of
    #: (:func:`split_compounds`), which the any-word pass also matches.
    compounds: dict[Term, tuple[Term, ...]] = field(default_factory=dict)

    def stems(self, term: Term) -> list[str]:
        """The Snowball stems (folded) that ``term`` also matches as a prefix: those of
        :attr:`stem_languages` that shorten it.  A word the stemmer leaves whole has none
        (``Datei`` does not become ``Datei*``, which would match ``Dateisystem``); neither has a
        phrase, a prefix or a CJK pair."""
        if not self.stem_languages or term.phrase or term.prefix or term.pair:
            return []
        stems = {stem(term.text, language) for language in self.stem_languages}
        return sorted(stems - {"", fold(term.text)})

    def fts_term(self, term: Term) -> str | None:
        """``term`` as FTS5 matches it: as typed, or any word that starts with one of its
        :meth:`stems` (``komprimieren`` → ``"komprimieren" OR "komprimi"*``, which finds
        ``komprimiert`` and ``komprimiere``)."""
        base = term.fts()
        stems = self.stems(term)
        if base is None or not stems:
            return base
        return "(" + " OR ".join([base, *(f'"{s}"*' for s in stems)]) + ")"

    @property
    def terms(self) -> list[Term]:
        return [t for group in self.groups for t in group]

    @property
    def content_terms(self) -> list[Term]:
        """The terms that carry information: what the any-word pass matches and what snippets
        and the preview mark (a CJK run as its pairs).  A query made only of stop words keeps
        them all."""
        return list(_split(tuple(self.terms), self.stop_languages)[0])

    @property
    def stop_terms(self) -> list[Term]:
        """The terms the any-word pass leaves out (none when the query is only stop words)."""
        return list(_split(tuple(self.terms), self.stop_languages)[1])

    @property
    def free_text(self) -> str:
        """What the vector list embeds: the words of the query without operators or filters."""
        return " ".join(t.text for t in self.terms).strip()

    @property
    def has_filters(self) -> bool:
        return bool(
            self.tags
            or self.paths
            or self.links_to
            or self.linked_from
            or self.properties
            or self.dates
        )

    @property
    def is_listing(self) -> bool:
        """No searchable words: the result is a listing of notes, most recent first."""
        return self.fts_all() is None

    def fts_groups(self) -> list[str]:
        out = []
        for group in self.groups:
            parts = [p for p in (self.fts_term(t) for t in group) if p]
            if parts:
                out.append(parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")")
        return out

    def fts_excluded(self) -> str | None:
        parts = [p for p in (t.fts() for t in self.excluded) if p]
        return " OR ".join(parts) if parts else None

    def _with_exclusions(self, positive: str) -> str:
        excluded = self.fts_excluded()
        return f"({positive}) NOT ({excluded})" if excluded else positive

    def fts_all(self) -> str | None:
        """All groups must match (the first, precise pass)."""
        groups = self.fts_groups()
        return self._with_exclusions(" AND ".join(groups)) if groups else None

    def fts_phrase(self, *, exclusions: bool = True) -> str | None:
        """The whole query as one phrase, when it is two or more plain words (the exact pass);
        without ``exclusions``, the phrase alone (what that pass's snippets mark)."""
        terms = self.terms
        if len(terms) < 2 or len(self.groups) != len(terms) or any(t.prefix for t in terms):
            return None
        phrase = Term(" ".join(t.text.replace('"', " ") for t in terms), phrase=True).fts()
        if phrase is None or not exclusions:
            return phrase
        return self._with_exclusions(phrase)

    def fts_terms(self) -> str | None:
        """The content terms, ORed, without exclusions: what the snippets of the other passes
        mark (never a stop word, unless the query has nothing else)."""
        parts = self.content_parts()
        return " OR ".join(parts) if parts else None

    def content_parts(self) -> list[str]:
        """The FTS5 expression of each distinct content term (what the any-word pass ORs, and
        what a note's coverage of the query counts)."""
        return list(dict.fromkeys(p for p in map(self.any_word_term, self.content_terms) if p))

    def any_word_term(self, term: Term) -> str | None:
        """``term`` as the any-word pass matches it: :meth:`fts_term`, or for a compound word
        split by :func:`split_compounds` also the notes holding its parts (``bildgröße`` →
        ``(("bildgröße" OR "bildgross"*) OR ("bild" AND ("größe" OR "gross"*)))``)."""
        base = self.fts_term(term)
        parts = [self.fts_term(p) for p in self.compounds.get(term, ())]
        if base is None or not parts or None in parts:
            return base
        alternative = parts[0] if len(parts) == 1 else "(" + " AND ".join(map(str, parts)) + ")"
        return f"({base} OR {alternative})"

    def fts_any(self) -> str | None:
        """Any content term may match (the fill-up pass for natural-language questions): a
        stop word alone never puts a note in this pass, unless the query is only stop words.
        ``None`` where this pass would match what the all-words pass matches."""
        parts = self.content_parts()
        if not parts or (len(parts) == 1 and len(self.terms) == 1):
            return None
        return self._with_exclusions(" OR ".join(parts))


#: How a command-line word that is query text, never an option, starts.
QUERY_DASHES = ("-[", '-"')


def is_query_word(word: str) -> bool:
    """Whether a command-line ``word`` that starts with ``-`` is query text, not an option:
    an excluded filter (``-[status:done]``), phrase (``-"a b"``) or word (``-staging``).  The
    parser asks it only of a word that names no option (``-v``, ``-vv`` stay options)."""
    return word.startswith(QUERY_DASHES) or _EXCLUSION.match(word) is not None


def tokens(raw: str) -> Iterator[re.Match[str]]:
    """The tokens of ``raw`` as :func:`parse_query` cuts it, where each is (what a filter
    found in a query is cut out by, :func:`explorer.search.answers.facets.written_filters`)."""
    return _TOKEN.finditer(raw)


def parse_query(raw: str, vault_languages: Iterable[str] = (), now: float | None = None) -> Query:
    """Parse ``raw``; raises :class:`QueryError` only for a query over the length limit.

    ``vault_languages`` are the languages of the vault's notes: their stop words are left out
    of the any-word pass when the query's own language cannot be told or is none of them.
    ``now``: the moment ``modified:<7d`` counts from (``None``: the clock, when searched)."""
    if len(raw) > MAX_QUERY_CHARS:
        raise QueryError(f"query is {len(raw):,} characters long; the limit is {MAX_QUERY_CHARS:,}")
    text = _CONTROL.sub(" ", drop_invisible(raw))
    query = Query(raw=raw, now=now)
    pending_or = False
    for token in _TOKEN.findall(text):
        if token == "OR":
            pending_or = bool(query.groups)
            continue
        if _PROPERTY.fullmatch(token):
            try:
                query.properties.append(parse_property_filter(token))
                continue
            except NotAFilter as exc:
                query.notes.append(f"{token} is not a property filter ({exc}): searched as text")
                token = token.lstrip("-")
        elif len(token) > 1 and token.lstrip("-").startswith("["):
            query.notes.append(
                f"{token} is not a property filter ({_unclosed(token)}): searched as text"
            )
            token = token.lstrip("-")
        negative = _EXCLUSION.match(token) is not None
        body = token[1:] if negative else token
        lowered = body.lower()
        written = None if negative else _QUOTED_VALUE.match(body)
        if written is not None:  # a value exactly as written (explorer.search.query.quoting)
            value = unquoted(written.group(2))
            if written.group(1).lower() == "tag":
                query.tags.append(normalize_tag(value))
            else:
                query.paths.append(value)
            continue
        if not negative and lowered.startswith("tag:") and len(body) > 4:
            query.tags.append(body[4:].lstrip("#").lower())
            continue
        link = None if negative else _LINK_FILTER.fullmatch(body)
        if link is not None:
            value = unquoted(link.group(2).strip()).strip()
            if value:
                kind = link.group(1).lower()
                (query.links_to if kind == "linkto" else query.linked_from).append(value)
                continue
        dated = None if negative else _DATE_FILTER.fullmatch(body)
        if dated is not None:
            try:
                date = parse_date_filter(dated.group(1).lower(), dated.group(2), body)
                query.dates.append(date)
                query.notes.extend(filter(None, [date.note(now)]))
                continue
            except NotAFilter as exc:
                query.notes.append(f"{body} is not a date filter ({exc}): searched as text")
        if not negative and lowered.startswith("path:") and len(body) > 5:
            query.paths.append(body[5:].replace("\\", "/").lstrip("./").lstrip("/") or body[5:])
            continue
        term = _term(body)
        if term is None:
            continue
        if negative:
            query.excluded.append(term)
            continue
        if pending_or and query.groups:
            query.groups[-1].append(term)
        else:
            query.groups.append([term])
        pending_or = False
    query.language = detect(query.free_text, QUERY_VOTES)
    languages = _stop_languages(query.language, vault_languages)
    query.stop_languages = frozenset({"en", *languages})
    query.stem_languages = frozenset(languages - {"en"})
    return query


@lru_cache(maxsize=256)
def _split(
    terms: tuple[Term, ...], languages: frozenset[str]
) -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    """``terms`` as the any-word pass searches them (:meth:`Term.segments`), cut into the content
    terms and the stop words of ``languages`` (all content when every one is a stop word).  A
    search asks this several times for the same query: it is worked out once."""
    segments = [s for t in terms for s in t.segments() if s.fts() is not None]
    stop = tuple(t for t in segments if t.stop_in(languages))
    if len(stop) == len(segments):
        return tuple(segments), ()
    return tuple(t for t in segments if not t.stop_in(languages)), stop


def _stop_languages(language: str, vault_languages: Iterable[str]) -> set[str]:
    """The query's language when the vault has notes in it (a short English question can look
    French to the rule, and then French stop words would drop its words); otherwise the vault's
    languages; the query's language alone when the vault's are not known."""
    vault = set(vault_languages)
    if not vault:
        return {language} if language else set()
    return {language} if language in vault else vault


def _unclosed(token: str) -> str:
    """Why ``token``, which starts with ``[``, is no ``[…]``."""
    if token.count('"') % 2:
        return "a quoted value is not closed"
    return "no ] closes it" if "]" not in token else "text follows its ]"


def _term(token: str) -> Term | None:
    if token.startswith('"'):
        inner = token[1:-1] if len(token) > 1 and token.endswith('"') else token[1:]
        inner = inner.strip()
        return Term(inner, phrase=True) if inner else None
    if len(token) > 1 and token.endswith("*") and token[-2].isalnum():
        return Term(token.rstrip("*"), prefix=True)
    return Term(token)
