"""Seeded synthetic markdown vaults, for benchmarks at sizes no real test vault reaches.

The text is not meant to mean anything; it is meant to load the indexer the way a real vault
does.  Word frequencies follow a Zipf law over a ~20k-word vocabulary (pseudo-words built from
syllables, behind ~300 common English words that take the top ranks, as function words do in
prose), so posting lists, vocabulary growth and chunk sizes look like those of real notes.  Notes
carry the structure the parser has to handle: YAML frontmatter (title, tags, sometimes
``status: stale``), a ``# Title``, ``## headings``, bullet lists, fenced code, inline ``#tags``
and ``[[wikilinks]]``, with lengths spread log-normally (median ~1.5 KB, a few up to ~20 KB).

Everything is drawn from one ``numpy`` generator seeded by ``seed``, in a fixed order, so a seed
gives the same bytes on every run (for a given numpy version).  The vocabulary itself comes from a
fixed seed: vaults of different seeds speak the same "language".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

_ENGLISH_TEXT = """
the of and to a in is it you that he was for on are with as his they be at one have this from
or had by not word but what some we can out other were all there when up use your how said an
each she which do their time if will way about many then them write would like so these her long
make thing see him two has look more day could go come did number sound no most people my over
know water than call first who may down side been now find any new work part take get place made
live where after back little only round man year came show every good me give our under name
very through just form sentence great think say help low line differ turn cause much mean before
move right boy old too same tell does set three want air well also play small end put home read
hand port large spell add even land here must big high such follow act why ask men change went
light kind off need house picture try us again animal point mother world near build self earth
father head stand own page should country found answer school grow study still learn plant cover
food sun four between state keep eye never last let thought city tree cross farm hard start might
story saw far sea draw left late run while press close night real life few north open seem
together next white children begin got walk example ease paper group always music those both mark
often letter until mile river car feet care second book carry took science eat room friend began
idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain
girl usual young ready above ever red list though feel talk bird soon body dog family direct
café naïve résumé über façade jalapeño
"""
_ENGLISH = _ENGLISH_TEXT.split()
"""Common English words in rough frequency order; they take the top ranks of the vocabulary."""

STOPWORDS = frozenset(_ENGLISH[:150])
"""Function-like words left out of generated queries: they would match almost every note."""

# Repeated entries are weights: single letters dominate, as in real words.
_ONSETS = "b c d f g h j k l m n p r s t v w z b d k l m n p r s t br dr gr kl pl st tr th ch sh"
_VOWELS = "a e i o u a e i o u a e o ai ea ou"
_CODAS = "- - - - - - - n r s l m t k nd st ng"
_EXCLUDED = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}  # YAML would not read a string
    | {"con", "prn", "aux", "nul"}  # reserved file names on Windows
)
_VOCABULARY_SEED = 20_240_501
_PSEUDO_WORDS = 20_000
_TAGS = 200
_FOLDERS = 20
_ZIPF_OFFSET = 2.7  # Zipf-Mandelbrot q: flattens the very top ranks, as in real text
_BUFFER = 1 << 18


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    words: tuple[str, ...]
    """All words, most frequent first: English ones, then pseudo-words."""
    pseudo: tuple[str, ...]
    """The pseudo-words alone, most frequent first: titles, headings, tags, code."""


def _syllable_words(rng: np.random.Generator, count: int, exclude: set[str]) -> list[str]:
    onsets, vowels = _ONSETS.split(), _VOWELS.split()
    codas = [c.strip("-") for c in _CODAS.split()]
    words: dict[str, None] = {}
    while len(words) < count:
        batch = 4 * count
        syllables = rng.choice([1, 2, 3, 4], size=batch, p=[0.25, 0.5, 0.2, 0.05])
        parts = rng.integers(0, 1 << 30, size=(batch, 4, 3))
        for n, row in zip(syllables.tolist(), parts.tolist(), strict=True):
            word = "".join(
                onsets[o % len(onsets)] + vowels[v % len(vowels)] + codas[c % len(codas)]
                for o, v, c in row[:n]
            )
            if len(word) > 2 and word not in exclude:
                words[word] = None
                if len(words) == count:
                    break
    # Frequent words are short (Zipf's law of abbreviation): rank by length, with some noise.
    noise = rng.normal(0.0, 1.5, size=len(words)).tolist()
    ranked = sorted(zip(words, noise, strict=True), key=lambda pair: len(pair[0]) + pair[1])
    return [word for word, _ in ranked]


@lru_cache(maxsize=1)
def _vocabulary() -> _Vocabulary:
    """The fixed vocabulary (built once per process, in about 0.3 s)."""
    rng = np.random.default_rng(_VOCABULARY_SEED)
    pseudo = _syllable_words(rng, _PSEUDO_WORDS, set(_ENGLISH) | _EXCLUDED)
    return _Vocabulary(words=tuple(_ENGLISH + pseudo), pseudo=tuple(pseudo))


def _zipf_cdf(size: int, exponent: float = 1.0) -> npt.NDArray[np.float64]:
    """Cumulative Zipf-Mandelbrot probabilities of ranks 0..size-1, for inverse-CDF sampling."""
    weights = 1.0 / (np.arange(size, dtype=np.float64) + _ZIPF_OFFSET) ** exponent
    cdf: npt.NDArray[np.float64] = np.cumsum(weights)
    cdf /= cdf[-1]
    return cdf


class _Sampler:
    """Zipf-distributed word indices, drawn in large batches: numpy calls are costly one by one."""

    def __init__(self, rng: np.random.Generator, words: tuple[str, ...]) -> None:
        self._rng = rng
        self._words = words
        self._cdf = _zipf_cdf(len(words))
        self._buffer: list[int] = []
        self._pos = 0

    def words(self, count: int) -> list[str]:
        out: list[int] = []
        while len(out) < count:
            if self._pos >= len(self._buffer):
                uniform = self._rng.random(_BUFFER)
                indices = np.searchsorted(self._cdf, uniform, side="right")
                self._buffer = np.minimum(indices, len(self._words) - 1).tolist()
                self._pos = 0
            take = min(count - len(out), len(self._buffer) - self._pos)
            out.extend(self._buffer[self._pos : self._pos + take])
            self._pos += take
        return [self._words[i] for i in out]


class _Uniform:
    """Buffered uniform floats in [0, 1), for the many small per-paragraph decisions."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._buffer: list[float] = []
        self._pos = 0

    def __call__(self) -> float:
        if self._pos >= len(self._buffer):
            self._buffer = self._rng.random(_BUFFER).tolist()
            self._pos = 0
        self._pos += 1
        return self._buffer[self._pos - 1]

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]."""
        return low + int(self() * (high - low + 1))


def _title_case(words: list[str]) -> str:
    return " ".join(word.capitalize() for word in words)


def _folders(content: _Sampler, uniform: _Uniform) -> list[str]:
    """~20 nested folders: a few top-level areas, some with sub- and sub-sub-folders."""
    folders: list[str] = []
    used: set[str] = set()
    while len(folders) < _FOLDERS:
        parent = (
            ""
            if len(folders) < 5 or uniform() < 0.3
            else folders[uniform.integer(0, len(folders) - 1)]
        )
        if parent.count("/") >= 2:
            continue
        name = _title_case(content.words(uniform.integer(1, 2)))
        path = f"{parent}/{name}" if parent else name
        if path.lower() not in used:
            used.add(path.lower())
            folders.append(path)
    return folders


def _sentences(words: list[str], uniform: _Uniform) -> list[str]:
    out: list[str] = []
    start = 0
    while start < len(words):
        end = min(len(words), start + uniform.integer(4, 22))
        sentence = words[start:end]
        sentence[0] = sentence[0][:1].upper() + sentence[0][1:]  # keeps [[Link Titles]] intact
        out.append(" ".join(sentence) + ("?" if uniform() < 0.04 else "."))
        start = end
    return out


def _code_block(content: _Sampler, uniform: _Uniform) -> str:
    language = ("python", "bash", "js", "")[uniform.integer(0, 3)]
    lines = []
    for _ in range(uniform.integer(3, 10)):
        a, b, c = content.words(3)
        if language == "bash":
            lines.append(f"{a} --{b} {c}.txt")
        else:
            lines.append(f"{a}_{b} = {c}({a}, {uniform.integer(0, 99)})")
    return f"```{language}\n" + "\n".join(lines) + "\n```"


class _NoteWriter:
    """Builds the text of one note at a time, remembering titles for later wikilinks."""

    def __init__(self, rng: np.random.Generator) -> None:
        vocabulary = _vocabulary()
        self.prose = _Sampler(rng, vocabulary.words)
        self.content = _Sampler(rng, vocabulary.pseudo)
        self.uniform = _Uniform(rng)
        # Tags come from the middle of the frequency range: real tags are topical words.
        picked = rng.choice(np.arange(200, 5000), size=_TAGS, replace=False).tolist()
        tags = [vocabulary.pseudo[i] for i in picked]
        # A fifth of the tags are nested ("area/topic"), as Obsidian users write them.
        self.tags = [f"{tags[i - 1]}/{tag}" if i % 5 == 4 else tag for i, tag in enumerate(tags)]
        self.tag_cdf = _zipf_cdf(len(self.tags))
        self.titles: list[str] = []

    def tag(self) -> str:
        index = int(np.searchsorted(self.tag_cdf, self.uniform(), side="right"))
        return self.tags[min(index, len(self.tags) - 1)]

    def _paragraph(self, count: int) -> str:
        u = self.uniform
        words = self.prose.words(max(count, 4))
        if u() < 0.15:
            words.insert(u.integer(0, len(words)), "#" + self.tag())
        if self.titles and u() < 0.1:
            words.insert(
                u.integer(0, len(words)), f"[[{self.titles[u.integer(0, len(self.titles) - 1)]}]]"
            )
        sentences = _sentences(words, u)
        if len(sentences) > 2 and u() < 0.15:
            return "\n".join(f"- {sentence}" for sentence in sentences)
        return " ".join(sentences)

    def note(self, title: str, body_words: int) -> str:
        u = self.uniform
        parts: list[str] = []
        if u() < 0.6:
            front = [f'title: "{title}"']
            tags = sorted({self.tag() for _ in range(u.integer(0, 3))})
            if tags:
                front.append("tags:")
                front.extend(f"  - {tag}" for tag in tags)
            if u() < 0.1:
                front.append("status: stale")
            parts.append("---\n" + "\n".join(front) + "\n---")
        parts.append(f"# {title}")
        paragraphs = min(8, max(2, body_words // 70 + u.integer(-1, 1)))
        shares = [0.5 + u() for _ in range(paragraphs)]
        total = sum(shares)
        code_at = u.integer(1, paragraphs) if u() < 0.12 else -1
        for i, share in enumerate(shares):
            if i > 0 and u() < 0.35:
                parts.append("## " + _title_case(self.content.words(u.integer(1, 4))))
            parts.append(self._paragraph(round(body_words * share / total)))
            if i + 1 == code_at:
                parts.append(_code_block(self.content, u))
        self.titles.append(title)
        return "\n\n".join(parts) + "\n"


def _body_lengths(rng: np.random.Generator, notes: int) -> npt.NDArray[np.int64]:
    """Words per note: log-normal around 255 (~1.5 KB), with a 1% tail of 4-8x longer notes."""
    lengths = rng.lognormal(mean=np.log(255.0), sigma=0.55, size=notes)
    long_tail = rng.random(notes) < 0.01
    lengths[long_tail] *= rng.uniform(4.0, 8.0, size=int(long_tail.sum()))
    return np.clip(lengths, 30, 3400).astype(np.int64)


#: The values of the properties :func:`generate_vault` gives a third of the notes.
PROPERTY_STATUSES = ("open", "done", "in progress")


def properties_of(i: int) -> str:
    """Frontmatter lines of typed properties for the ``i``-th note: a text, a number and a
    date, deterministic (no draw of the vault's random numbers, so the words stay the same)."""
    due = dt.date(2024, 1, 1) + dt.timedelta(days=(i * 7) % 730)
    return f"status: {PROPERTY_STATUSES[i // 3 % 3]}\nrating: {i % 5 + 1}\ndue: {due.isoformat()}\n"


def generate_vault(root: Path, notes: int, seed: int = 0, *, properties: bool = False) -> None:
    """Write ``notes`` markdown notes under ``root`` (created if needed), deterministically;
    with ``properties``, every third note has ``status``, ``rating`` and ``due`` properties.

    Notes are spread unevenly over ~20 nested folders and the root, as real vaults are.  File
    names are the note titles; a clash (compared case-insensitively, for macOS and Windows)
    gets a number appended.  Existing files with the same names are overwritten.
    """
    if notes < 0:
        raise ValueError(f"notes must be >= 0, got {notes}")
    rng = np.random.default_rng(seed)
    writer = _NoteWriter(rng)
    folders = ["", *_folders(writer.content, writer.uniform)]
    folder_weights = rng.dirichlet(np.full(len(folders), 0.8))
    folder_of = rng.choice(len(folders), size=notes, p=folder_weights).tolist()
    lengths = _body_lengths(rng, notes).tolist()
    title_lengths = rng.integers(1, 5, size=notes).tolist()
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    for i, (folder_index, body_words, title_words) in enumerate(
        zip(folder_of, lengths, title_lengths, strict=True)
    ):
        title = _title_case(writer.content.words(title_words))
        folder = folders[folder_index]
        name, suffix = f"{folder}/{title}".lstrip("/"), 1
        while f"{name}.md".lower() in taken:
            suffix += 1
            name = f"{folder}/{title} {suffix}".lstrip("/")
        taken.add(f"{name}.md".lower())
        text = writer.note(title if suffix == 1 else f"{title} {suffix}", body_words)
        if properties and i % 3 == 0:
            text = (
                "---\n" + properties_of(i) + text[4:]
                if text.startswith("---\n")
                else "---\n" + properties_of(i) + "---\n" + text
            )
        (root / f"{name}.md").write_bytes(text.encode("utf-8"))


_FRONTMATTER = re.compile(r"\A---\r?\n.*?\r?\n---[ \t]*\r?\n", re.DOTALL)
_FENCED = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
_WORD = re.compile(r"(?<![#\w/])[^\W\d_]{3,}")


def _query_words(text: str) -> list[str]:
    """Distinct lower-cased prose words of a note, in order: no tags, code or stopwords."""
    text = _FENCED.sub(" ", _FRONTMATTER.sub("", text))
    words = (word.lower() for word in _WORD.findall(text))
    return list(dict.fromkeys(word for word in words if word not in STOPWORDS))


def generate_queries(notes_root: Path, count: int, seed: int = 0) -> list[str]:
    """``count`` distinct queries of 2-4 words, each taken from one note under ``notes_root``.

    All words of a query come from the same note, in the order they appear there, so every query
    has at least one note containing all its terms: a lexical retriever must find something.
    Works on any vault, not only generated ones.  Raises ValueError if the vault has too few
    usable notes to give ``count`` distinct queries.
    """

    def query(text: str, rng: np.random.Generator) -> str | None:
        words = _query_words(text)
        if len(words) < 2:
            return None
        size = min(int(rng.integers(2, 5)), len(words))
        picked = np.sort(rng.choice(len(words), size=size, replace=False)).tolist()
        return " ".join(words[i] for i in picked)

    return _draw(notes_root, count, seed, "queries", query)


#: How the long questions of :func:`generate_questions` open: the stopword-heavy starts people
#: type (the any-word pass must not let them match every note).
QUESTION_OPENINGS = ("how do i", "why does the", "what is the way to", "is there a way to")
#: Words in a long question: the length the bench's "12+ words" figures are about.
QUESTION_WORDS = (12, 16)
_PROSE_WORD = re.compile(r"(?<![#\w/])[^\W\d_]+(?:'[^\W\d_]+)?")


def generate_questions(notes_root: Path, count: int, seed: int = 0) -> list[str]:
    """``count`` distinct long questions (12-16 words), each from one note under ``notes_root``.

    A question is an opening of :data:`QUESTION_OPENINGS` and then a run of consecutive prose
    words of one note, stopwords kept, as a person pastes a half-remembered sentence into a
    question.  Raises ValueError if the vault's notes are too short to give ``count``.
    """

    def question(text: str, rng: np.random.Generator) -> str | None:
        words = _PROSE_WORD.findall(_FENCED.sub(" ", _FRONTMATTER.sub("", text)).lower())
        opening = QUESTION_OPENINGS[int(rng.integers(len(QUESTION_OPENINGS)))].split()
        size = int(rng.integers(QUESTION_WORDS[0], QUESTION_WORDS[1] + 1)) - len(opening)
        if len(words) < size:
            return None
        start = int(rng.integers(len(words) - size + 1))
        return " ".join(opening + words[start : start + size])

    return _draw(notes_root, count, seed, "questions", question)


def _draw(
    notes_root: Path,
    count: int,
    seed: int,
    what: str,
    make: Callable[[str, np.random.Generator], str | None],
) -> list[str]:
    """``count`` distinct strings ``make`` draws from random notes (``None``: that note gives
    none), seeded; ValueError when the notes cannot give that many."""
    paths = sorted(notes_root.rglob("*.md"), key=lambda p: p.relative_to(notes_root).as_posix())
    if count > 0 and not paths:
        raise ValueError(f"{notes_root}: no markdown notes to draw {what} from")
    rng = np.random.default_rng(seed)
    found: dict[str, None] = {}
    attempts = 0
    while len(found) < count:
        attempts += 1
        if attempts > 50 * count + 100:
            raise ValueError(
                f"{notes_root}: found only {len(found)} distinct {what}, {count} requested"
            )
        path = paths[int(rng.integers(len(paths)))]
        made = make(path.read_text(encoding="utf-8", errors="replace"), rng)
        if made is not None:
            found[made] = None
    return list(found)
