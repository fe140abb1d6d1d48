"""The explanation of a note's place for a query, as values: every reason a small frozen value
with a ``code`` and JSON fields (the filters and exclusions, the words, its place in each list,
the fusion and the evidence, what would change it), and :class:`Explanation`, their whole, with
what it adds up to (:attr:`Explanation.reasons`) and its JSON.  :func:`explorer.search.explain.
explain.explain` makes one over the vault, :func:`hit_explanation` one of a search's hit (how
its score was made: :mod:`explorer.search.explain.scoring`);
:mod:`explorer.search.explain.explain_text` says it in sentences, :mod:`explorer.preview.explain`
in HTML, :meth:`Explanation.to_json` in JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from explorer.search.explain.scoring import ExplainContext, Scored, scored
from explorer.search.explain.whatif import Change
from explorer.search.fusion.results import Hit
from explorer.search.lists.chunk_scores import ChunkScore
from explorer.search.query.options import SearchOptions

# ----------------------------------------------------------------------------- the reasons


@dataclass(frozen=True, slots=True)
class FilterCheck:
    """A ``tag:`` or ``path:`` filter of the query, and whether the note passes it."""

    kind: str  # "tag", "path", "linkto", "linkedfrom" or "property"
    value: str
    passes: bool
    code: str = "filter"
    #: For a property filter: what the note holds under that name (``""``: nothing).
    holds: str = ""


@dataclass(frozen=True, slots=True)
class ExclusionCheck:
    """A ``-word`` of the query, and whether the note contains it (then it is left out)."""

    word: str
    present: bool
    code: str = "exclusion"


@dataclass(frozen=True, slots=True)
class WordCheck:
    """One content word of the query: its stems and the columns of the note that have it."""

    word: str
    stems: tuple[str, ...]
    title: bool
    tags: bool
    body: bool

    @property
    def found(self) -> bool:
        return self.title or self.tags or self.body


@dataclass(frozen=True, slots=True)
class Words:
    terms: tuple[WordCheck, ...]
    missing: tuple[str, ...]  # content words in no column of the note
    stopwords: tuple[str, ...]  # words of the query the any-word pass leaves out
    code: str = "words"


@dataclass(frozen=True, slots=True)
class LexicalPlace:
    """The note in the lexical list: its rank over the whole vault and the depth cut."""

    used: bool  # the mode searches this list
    rank: int | None  # over the whole vault (None: no pass matches it)
    matches: int  # notes the lexical list finds over the whole vault
    depth: int
    cut: bool  # found, but below the depth
    score: float | None
    code: str = "lexical"


@dataclass(frozen=True, slots=True)
class VectorPlace:
    """The note in the vector list: its best chunk's cosine, rank, and the floor."""

    used: bool
    available: bool
    reason: str | None  # why there is no vector list
    cosine: float | None  # its best chunk's (None: no vector yet)
    rank: int | None  # over the whole vault, among the notes the filters allow
    best: float | None  # the best cosine of the query over those notes
    floor: float | None  # max(min_sim, min_rel × best)
    min_sim: float
    min_rel: float
    under_floor: bool
    depth: int
    cut: bool  # above the floor, but below the depth
    code: str = "vector"
    #: The chunk the cosine is taken of, and the note's second-best chunk (``None``: no vector,
    #: or a note of one chunk).
    best_chunk: ChunkScore | None = None
    runner_up_chunk: ChunkScore | None = None
    chunks: int = 0  # chunks of the note with a vector


@dataclass(frozen=True, slots=True)
class FusedPlace:
    """The note after fusion: rank and score against the last hit shown, stale demotion."""

    method: str
    rank: int | None  # in the whole fused list, after stale demotion (None: in no list)
    score: float | None
    candidates: int  # notes in the fused list
    limit: int
    shown: bool
    last_score: float | None  # the score of the hit at the limit (None: fewer hits)
    stale: bool
    rank_before_demotion: int | None
    demoted_out: bool  # would be shown but for stale demotion
    code: str = "fused"
    #: What the recency prior adds to its score (``None``: the prior is off, or it is in no
    #: list), and how recent it is (½ every half-life since it was modified).
    recency: float | None = None
    recent: float | None = None


@dataclass(frozen=True, slots=True)
class EvidencePlace:
    """The note's calibrated evidence (:mod:`explorer.search.fusion.evidence`), whatever the method:
    what each list says of it in absolute terms, and whether the query has a close match."""

    lexical: float | None  # None: the lexical list did not find it
    coverage: float | None  # the share of the query's content words it holds
    vector: float | None  # None: it does not stand above the bulk (or no vector list)
    sigmas: float | None  # how far its cosine stands above the query's vault mean
    mean: float | None  # the query's mean cosine over the vault
    std: float | None
    calibrated: float  # 1 − (1 − lexical)(1 − vector)
    bar: float  # the calibrated score a close match needs
    close_match: bool | None  # whether any note of the query reaches the bar (None: not judged)
    #: The query's cosines do not spread over the vault (:attr:`CosineSpread.flat`).
    flat: bool = False
    #: The coverage the evidence reads: each content word weighed by its rarity in the vault
    #: (:func:`explorer.search.fusion.fusion.lexical_coverage`); None where the note holds every
    #: word.
    weighted: float | None = None
    #: The evidence of its title or an alias matching the query (None: neither does), how
    #: closely (``exact``, ``near``), and the name that matched
    #: (:mod:`explorer.search.lists.titles`).
    title: float | None = None
    title_match: str | None = None
    title_name: str | None = None
    title_alias: bool = False
    code: str = "evidence"


@dataclass(frozen=True, slots=True)
class VaultPlace:
    """The note over the whole vault, reason by reason: what ``explain`` finds beyond the
    search's own lists (the filters, the words, each list's rank without the depth cut)."""

    filters: tuple[FilterCheck, ...]
    exclusions: tuple[ExclusionCheck, ...]
    words: Words
    lexical: LexicalPlace
    vector: VectorPlace
    fused: FusedPlace
    evidence: EvidencePlace | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a note is where it is for a query: the one model the command line's text, its JSON
    and the window's explain block are rendered from.  :attr:`scored` is how its fused score
    was made (``None``: the search ranks it nowhere); :attr:`vault` is the note over the
    whole vault (``None`` for a hit of a search on screen, explained from the search's own
    lists only); :attr:`changes`, what would move it."""

    query: str
    path: str
    title: str
    options: SearchOptions
    top: int
    listing: bool
    scored: Scored | None = None
    vault: VaultPlace | None = None
    changes: tuple[Change, ...] = field(default=())

    # ------------------------------------------------------------------ the vault's parts

    def _in_vault(self) -> VaultPlace:
        if self.vault is None:
            raise ValueError(f"{self.path} is explained from a search's hit, not the vault")
        return self.vault

    @property
    def filters(self) -> tuple[FilterCheck, ...]:
        return self._in_vault().filters

    @property
    def exclusions(self) -> tuple[ExclusionCheck, ...]:
        return self._in_vault().exclusions

    @property
    def words(self) -> Words:
        return self._in_vault().words

    @property
    def lexical(self) -> LexicalPlace:
        return self._in_vault().lexical

    @property
    def vector(self) -> VectorPlace:
        return self._in_vault().vector

    @property
    def fused(self) -> FusedPlace:
        return self._in_vault().fused

    @property
    def evidence(self) -> EvidencePlace | None:
        return self._in_vault().evidence

    # ------------------------------------------------------------------ what it adds up to

    @property
    def reasons(self) -> list[str]:
        """The codes of what keeps the note where it is, most decisive first (``shown`` when
        it is in the top N)."""
        if self.vault is None:  # a hit of a search: its place is all there is to say
            if self.listing:
                return ["listing"]
            shown = self.scored is not None and self.scored.rank <= self.top
            return ["shown" if shown else "below-limit"]
        out: list[str] = []
        if any(not f.passes for f in self.filters):
            out.append("filtered")
        if any(e.present for e in self.exclusions):
            out.append("excluded")
        if self.listing:
            out.append("listing")
        lex, vec, fused = self.lexical, self.vector, self.fused
        if lex.used and self.words.missing and len(self.words.missing) == len(self.words.terms):
            out.append("no-words")
        if lex.used and lex.cut:
            out.append("lexical-depth")
        if vec.used and vec.available and vec.under_floor:
            out.append("under-floor")
        if vec.used and vec.available and vec.cut:
            out.append("vector-depth")
        if self.evidence is not None and self.evidence.title_match is not None:
            out.append(f"title-{self.evidence.title_match}")  # title-exact, title-near
        if fused.demoted_out:
            out.append("stale-demoted")
        if fused.rank is not None and fused.rank <= self.top:
            out.append("shown")
        elif fused.rank is not None and not fused.demoted_out:
            out.append("below-limit")
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``explain --json`` and the MCP tool: the vault's parts where it has
        them, and the arithmetic of the fused score (``null``: ranked nowhere)."""
        out: dict[str, Any] = {
            "query": self.query,
            "path": self.path,
            "title": self.title,
            "options": self.options.to_json(),
            "top": self.top,
            "reasons": self.reasons,
        }
        if self.vault is not None:
            out.update(_vault_json(self.vault))
        out["changes"] = [c.to_json() for c in self.changes]
        out["arithmetic"] = self.scored.to_json() if self.scored is not None else None
        return out

    def lines(self) -> list[str]:
        """The explanation as plain sentences, one a line."""
        from explorer.search.explain.explain_text import explanation_lines

        return explanation_lines(self)

    def format(self) -> str:
        return "\n".join(self.lines())


def _vault_json(v: VaultPlace) -> dict[str, Any]:
    return {
        "filters": [asdict(f) for f in v.filters],
        "exclusions": [asdict(e) for e in v.exclusions],
        "words": {
            "code": v.words.code,
            "terms": [
                {**asdict(w), "stems": list(w.stems), "found": w.found} for w in v.words.terms
            ],
            "missing": list(v.words.missing),
            "stopwords": list(v.words.stopwords),
        },
        "lexical": asdict(v.lexical),
        "vector": asdict(v.vector),
        "fused": asdict(v.fused),
        "evidence": asdict(v.evidence) if v.evidence is not None else None,
    }


def hit_explanation(hit: Hit, ctx: ExplainContext, query: str) -> Explanation:
    """A hit of a search on screen explained from the search's own lists (the window's explain
    block): its place and its arithmetic, the vault not asked."""
    return Explanation(
        query=query,
        path=hit.path,
        title=hit.title,
        options=ctx.options,
        top=ctx.options.limit,
        listing=ctx.listing,
        scored=scored(hit, ctx),
    )
