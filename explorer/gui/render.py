"""The preview's HTML: a note rendered from markdown, made safe, with the ranking explained.

No widgets here, only text in and HTML out, so every piece is testable without a window.  Note
content is rendered by markdown-it-py with raw HTML switched off (a ``<script>`` in a note is
shown as text) and then passed through nh3 with a short allow-list; remote images are replaced by
a placeholder before Qt ever sees them.  Query terms are highlighted in text only (never inside a
tag or an entity), accent-insensitively, so ``creme`` marks ``Crème``.

Obsidian's markdown (wikilinks, embeds, block ids, callouts) is read by the plugins of
:mod:`explorer.gui.obsidian`; what its links point to is decided by :class:`VaultLinks`, built
once for a vault from the files on disk (the preview may show a note the index has not seen yet).
"""

from __future__ import annotations

import errno
import html
import os
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

import nh3
from markdown_it import MarkdownIt

from explorer.display import safe_text
from explorer.gui.budget import Budget, BudgetRenderer, break_long_words, budget_plugin
from explorer.gui.evidence_text import (
    calibrated_formula,
    calibrated_formula_parts,
    calibrated_lines,
    lexical_evidence_text,
    vector_evidence_text,
)
from explorer.gui.obsidian import (
    IMAGE_SUFFIXES,
    Page,
    obsidian_plugin,
)
from explorer.index.text import has_cjk
from explorer.index.vectors import CosineSpread
from explorer.search.hybrid import Candidates, Hit, SearchOptions, SearchResponse
from explorer.search.query import Query
from explorer.vault.frontmatter import read_frontmatter
from explorer.vault.ignore import IgnoreRules
from explorer.vault.links import Resolver, aliases
from explorer.vault.parse import NotANote, parse_note
from explorer.vault.scan import FileStat, read_inside, read_note, scan_vault, stat_note

FILTER_SCHEME = "vault-filter"
BEST_ANCHOR = "best-chunk"
REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)

_ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "name"},
    "img": {"src", "alt", "title", "width", "height"},
    "table": {"width", "cellspacing", "cellpadding", "bgcolor", "style"},
    "td": {"align", "width", "bgcolor", "style"},
    "th": {"align"},
    "ol": {"start"},
    "p": {"style"},
    "span": {"style"},
}
_ALLOWED_CLASSES = {"span": {"blocked"}}
#: The only CSS the notes' HTML may carry (the plugins write it: callouts, embeds, muted links).
_STYLE_PROPERTIES = {
    "color", "background-color", "font-weight", "font-style", "font-size", "text-decoration",
    "margin-top", "margin-bottom", "padding",
}  # fmt: skip
_URL_SCHEMES = {"http", "https", "mailto", "file", "vault-note", "vault-missing", "vault-callout"}


@dataclass(frozen=True)
class Colours:
    """Colours the HTML uses, chosen by the caller for the current palette."""

    highlight: str = "#ffe066"
    highlight_text: str = "#000000"
    chunk: str = "#fff6d6"
    muted: str = "#666666"
    code: str = "#f2f2f2"
    fts: str = "#3b7ddd"
    vector: str = "#e69b00"
    dark: bool = False
    surface: str = "#ffffff"  # the preview's background


@dataclass(frozen=True)
class NoteDocument:
    """A note as read from disk for the preview."""

    path: str
    title: str
    tags: tuple[str, ...]
    status: str | None
    text: str
    body_start: int
    warnings: tuple[str, ...] = ()
    readable: bool = True  # False: ``text`` is the reason the note is not shown


def load_note(vault: Path, rel: str) -> NoteDocument:
    """Read and parse the note ``rel`` of ``vault`` (raises ``OSError`` if it is gone).

    Read as the indexer reads it (:func:`~explorer.vault.scan.read_note`): a note that has
    become a FIFO, a device, a link out of the vault or too large since it was indexed is shown
    as its reason, never waited on or read."""
    data = read_note(vault, rel)
    if data is None:
        raise FileNotFoundError(errno.ENOENT, "no such file", rel)
    if isinstance(data, str):
        return NoteDocument(rel, rel, (), None, f"(not shown: {data})", 0, (data,), False)
    try:
        note = parse_note(rel, data)
    except NotANote as exc:
        return NoteDocument(rel, rel, (), None, f"({exc})", 0, (str(exc),), False)
    return NoteDocument(
        rel,
        note.title,
        tuple(note.tags),
        note.status,
        note.text,
        note.body_start,
        tuple(note.warnings),
    )


# ----------------------------------------------------------------------------- markdown


def _markdown() -> MarkdownIt:
    options = {"html": False, "linkify": False, "typographer": False}
    md = MarkdownIt("commonmark", options, renderer_cls=BudgetRenderer)
    md.enable(["table", "strikethrough"])
    md.use(budget_plugin)
    md.use(obsidian_plugin)
    return md


_MD = _markdown()


def markdown_to_safe_html(text: str, page: Page | None = None) -> str:
    """Markdown rendered and sanitised: only formatting tags, links and local images survive.
    ``page`` says which note this is (its links resolve from it); without one, wikilinks show
    as unresolved and embeds as links."""
    raw = _MD.render(text, (page or Page()).env())
    clean = nh3.clean(
        raw,
        tags=_ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=_ALLOWED_ATTRIBUTES,
        allowed_classes=_ALLOWED_CLASSES,
        filter_style_properties=_STYLE_PROPERTIES,
        url_schemes=_URL_SCHEMES,
        link_rel=None,
    )
    return _block_remote_images(_qt_tables(break_long_words(clean)))


_IMG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


def _block_remote_images(fragment: str) -> str:
    """Replace ``<img>`` tags with a remote source by a visible placeholder."""

    def replace(match: re.Match[str]) -> str:
        attrs = dict(_ATTR.findall(match.group(0)))
        src = html.unescape(attrs.get("src", ""))
        if REMOTE.match(src):
            alt = attrs.get("alt") or "image"
            return f'<span class="blocked">[remote image not loaded: {alt}]</span>'
        return match.group(0)

    return _IMG.sub(replace, fragment)


def replace_images(fragment: str, why_not: Callable[[str], str | None]) -> str:
    """``fragment`` with each ``<img>`` whose source ``why_not`` gives a reason for replaced by
    a visible placeholder that says it (the preview's worker asks its image loader)."""

    def replace(match: re.Match[str]) -> str:
        attrs = dict(_ATTR.findall(match.group(0)))
        reason = why_not(html.unescape(attrs.get("src", "")))
        if reason is None:
            return match.group(0)
        alt = attrs.get("alt") or "image"  # still escaped, as it was in the tag
        return f'<span class="blocked">[image not shown, {html.escape(reason)}: {alt}]</span>'

    return _IMG.sub(replace, fragment)


def image_sources(fragment: str) -> list[str]:
    """The ``src`` of every ``<img>`` in ``fragment`` (HTML made by this module), unescaped, in
    order: what the preview's worker loads before the widget sees the HTML."""
    sources = []
    for match in _IMG.finditer(fragment):
        src = dict(_ATTR.findall(match.group(0))).get("src")
        if src:
            sources.append(html.unescape(src))
    return sources


def _qt_tables(fragment: str) -> str:
    # Qt's rich text draws no cell borders unless asked with attributes.
    return fragment.replace("<table>", '<table border="1" cellspacing="0" cellpadding="4">')


# ----------------------------------------------------------------------------- highlighting

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


# ----------------------------------------------------------------------------- the note


def filter_url(kind: str, value: str) -> str:
    """The link that adds a ``tag:``/``path:`` filter to the query when clicked."""
    return f"{FILTER_SCHEME}:{kind}/{quote(value, safe='')}"


def parse_filter_url(url: str) -> tuple[str, str] | None:
    """``("tag", "ops")`` from a link made by :func:`filter_url`, else ``None``."""
    prefix = f"{FILTER_SCHEME}:"
    if not url.startswith(prefix):
        return None
    kind, _, value = url[len(prefix) :].partition("/")
    if kind not in ("tag", "path") or not value:
        return None
    return kind, unquote(value)


def filter_token(kind: str, value: str) -> str:
    """The query syntax for a filter: ``tag:ops``, ``path:dev/``, quoted if it has spaces."""
    token = f"{kind}:{value}"
    return f'"{token}"' if re.search(r"\s", token) else token


def _header(doc: NoteDocument, colours: Colours) -> str:
    crumbs = []
    parts = PurePosixPath(doc.path).parts
    for depth in range(len(parts) - 1):
        prefix = "/".join(parts[: depth + 1]) + "/"
        crumbs.append(
            f'<a href="{filter_url("path", prefix)}" title="Add path:{_shown(prefix)} '
            f'to the query">{_shown(parts[depth])}</a>'
        )
    crumbs.append(f"<b>{_shown(parts[-1] if parts else doc.path)}</b>")
    lines = [f'<p style="color:{colours.muted}">' + " / ".join(crumbs) + "</p>"]
    meta = []
    if doc.tags:
        links = " ".join(
            f'<a href="{filter_url("tag", tag)}" title="Add tag:{_shown(tag)} '
            f'to the query">#{_shown(tag)}</a>'
            for tag in doc.tags
        )
        meta.append(f"tags: {links}")
    if doc.status:
        meta.append(f"status: <b>{_shown(doc.status)}</b>")
    for warning in doc.warnings:
        meta.append(f"<i>{_shown(warning)}</i>")
    if meta:
        lines.append(f'<p style="color:{colours.muted}">' + " · ".join(meta) + "</p>")
    return "".join(lines) + "<hr/>"


def _shown(name: str) -> str:
    """A name or title from the vault as HTML text: controls and bidi controls escaped
    (:func:`~explorer.display.safe_text`), then HTML-escaped."""
    return html.escape(safe_text(name))


def render_note(
    doc: NoteDocument,
    hit: Hit | None,
    query: Query | None,
    colours: Colours,
    links: VaultLinks | None = None,
    toggled: frozenset[str] = frozenset(),
    budget: Budget | None = None,
) -> str:
    """The preview HTML of ``doc``: header, body, the best chunk marked and anchored.

    ``links`` resolves the note's links and embeds (without it they show as unresolved);
    ``toggled`` names the callouts the reader folded or unfolded.  The pieces of the note
    spend one ``budget`` (:mod:`explorer.gui.budget`), the best passage first."""
    body_start = doc.body_start
    text = doc.text
    chunk = hit.best_chunk if hit is not None else None
    pieces: list[tuple[str, bool]]
    if chunk is not None and body_start <= chunk[0] < chunk[1] <= len(text):
        pieces = [
            (text[body_start : chunk[0]], False),
            (text[chunk[0] : chunk[1]], True),
            (text[chunk[1] :], False),
        ]
    else:
        pieces = [(text[body_start:], False)]
    pattern = term_pattern(query) if query is not None else None
    style = f"background-color:{colours.highlight}; color:{colours.highlight_text}"
    budget = budget or Budget()
    shown: dict[int, str] = {}
    for number in sorted(range(len(pieces)), key=lambda n: not pieces[n][1]):
        piece, best = pieces[number]
        if not piece.strip():
            continue
        page = note_page(doc.path, colours, links, toggled, prefix=f"{number}-", budget=budget)
        if best:  # inside the best passage's box
            page = replace(page, boxes=1, nesting=1)
        rendered = highlight(markdown_to_safe_html(piece, page), pattern, style)
        if best:
            score = f" · cosine {hit.vector_score:.4f}" if hit and hit.vector_score else ""
            rendered = (
                f'<a name="{BEST_ANCHOR}"></a>'
                f'<p style="color:{colours.muted}; font-size:small">'
                f"▼ best-matching passage (vector list){score}</p>"
                f'<table width="100%" cellspacing="0" cellpadding="8" '
                f'style="background-color:{colours.chunk}">'
                f"<tr><td>{rendered}</td></tr></table>"
            )
        shown[number] = rendered
    return _header(doc, colours) + "".join(shown[n] for n in sorted(shown))


def note_page(
    path: str,
    colours: Colours,
    links: VaultLinks | None,
    toggled: frozenset[str] = frozenset(),
    prefix: str = "",
    budget: Budget | None = None,
) -> Page:
    """What the markdown plugins need to render the note ``path`` in the preview (``budget``:
    what the render it is a piece of has left to spend)."""
    return Page(
        source=path,
        resolve=links.resolve if links is not None else None,
        embed=links.embed if links is not None else None,
        base=PurePosixPath(path).parent.as_posix().lstrip("."),
        muted=colours.muted,
        dark=colours.dark,
        surface=colours.surface,
        toggled=toggled,
        prefix=prefix,
        chain=(path,),
        budget=budget or Budget(),
    )


def opened_from_link_html(path: str, via: str | None, colours: Colours) -> str:
    """The explain block of a note opened from a link rather than selected as a hit."""
    where = f" in <b>{_shown(PurePosixPath(via).name)}</b>" if via and via != path else ""
    return (
        f"<b>{_shown(PurePosixPath(path).name)}</b><br/>"
        f'<span style="color:{colours.muted}">Opened from a link{where}: not a search hit, so '
        "there is no ranking to explain. Back (Alt+Left) returns to where you were.</span>"
    )


# ----------------------------------------------------------------------------- vault links

#: Frontmatter read for aliases, at most (aliases come first in practice; a longer block is read
#: whole only when the head mentions them).
_ALIAS_HEAD_BYTES = 4096


@dataclass(frozen=True)
class VaultLinks:
    """Where the links of a vault's notes lead: every note (with its aliases) and every image
    or attachment, as the files on disk are now.  Built once per vault, off the GUI thread
    (:func:`vault_links`); when notes change, :meth:`updated` reads only those again."""

    vault: Path
    notes: dict[str, list[str]]  # note path -> its aliases
    attachments: tuple[str, ...]
    resolver: Resolver

    @classmethod
    def of(cls, vault: Path, notes: dict[str, list[str]], attachments: Iterable[str]) -> VaultLinks:
        kept = tuple(attachments)
        return cls(vault, notes, kept, Resolver(notes.items(), kept))

    def resolve(self, target: str, source: str | None = None, markdown: bool = False) -> str | None:
        return self.resolver.resolve(target, source, markdown=markdown)

    def embed(self, path: str) -> str | None:
        """The body markdown of the note ``path``, for an embed (``None``: cannot be read)."""
        try:
            doc = load_note(self.vault, path)
        except OSError:
            return None
        return doc.text[doc.body_start :] if doc.readable else None

    def updated(self, paths: Iterable[str]) -> VaultLinks:
        """These links after the notes ``paths`` were created, changed or deleted (each is
        looked at again on disk; the rest of the vault is not read)."""
        notes = dict(self.notes)
        rules = IgnoreRules.for_vault(self.vault)
        for rel in paths:
            if not rules.ignores_file(rel) and isinstance(stat_note(self.vault, rel), FileStat):
                notes[rel] = _aliases(self.vault, rel)
            else:
                notes.pop(rel, None)
        return VaultLinks.of(self.vault, notes, self.attachments)


def vault_links(vault: Path) -> VaultLinks:
    """:class:`VaultLinks` of ``vault`` from its files: the notes the scan finds (aliases read
    from the head of each), and the attachments beside them (names with an image, PDF or other
    non-note suffix, outside hidden and ignored folders)."""
    root = vault.resolve()
    rules = IgnoreRules.for_vault(root)
    notes = {rel: _aliases(root, rel) for rel in scan_vault(root, rules).files}
    return VaultLinks.of(root, notes, _attachments(root, rules))


def _aliases(root: Path, rel: str) -> list[str]:
    head = read_inside(str(root), str(root / rel), _ALIAS_HEAD_BYTES)
    if not isinstance(head, bytes) or not head.startswith(b"---") or b"alias" not in head:
        return []
    if len(head) > _ALIAS_HEAD_BYTES:
        whole = read_note(root, rel)
        head = whole if isinstance(whole, bytes) else head
    return aliases(read_frontmatter(head.decode("utf-8", "replace").replace("\r\n", "\n")).fields)


#: Files a note may link to or embed besides notes.
ATTACHMENT_SUFFIXES = IMAGE_SUFFIXES | {".pdf", ".mp3", ".mp4", ".webm", ".wav", ".ogg", ".csv"}


def _attachments(root: Path, rules: IgnoreRules) -> list[str]:
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        rel_folder = "" if rel_folder == "." else rel_folder.replace(os.sep, "/") + "/"
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not rules.ignores_dir(rel_folder + d)
        )
        for name in files:
            if os.path.splitext(name)[1].lower() in ATTACHMENT_SUFFIXES:
                found.append(rel_folder + name)
    return found


def document_css(colours: Colours) -> str:
    """Default stylesheet of the preview document (Qt's CSS subset)."""
    return (
        f"pre {{ background-color: {colours.code}; padding: 6px; }}"
        f"code {{ background-color: {colours.code}; }}"
        "h1 { font-size: x-large; } h2 { font-size: large; } h3 { font-size: medium; }"
        f".blocked {{ color: {colours.muted}; font-style: italic; }}"
        "td, th { padding: 4px; }"
    )


# ----------------------------------------------------------------------------- explain


@dataclass(frozen=True)
class ExplainContext:
    """What the explain block needs besides the hit: settings and list lengths."""

    options: SearchOptions
    rank: int
    total: int
    lexical_count: int
    vector_count: int
    semantic_available: bool
    semantic_reason: str | None = None
    listing: bool = False
    extra: list[str] = field(default_factory=list)
    #: The query's content words (what a lexical hit's coverage counts), and how its cosines
    #: spread over the vault (what a vector hit's σ are counted from).
    content_words: int = 0
    spread: CosineSpread | None = None


def explain_context(
    hit: Hit, rank: int, response: SearchResponse, candidates: Candidates | None
) -> ExplainContext:
    """What the explain block needs for ``hit`` at fused ``rank`` of ``response``."""
    depth = min(response.options.depth, candidates.depth) if candidates else 0
    return ExplainContext(
        options=response.options,
        rank=rank,
        total=len(response.hits),
        lexical_count=len(candidates.lexical[:depth]) if candidates else 0,
        vector_count=len(candidates.vector[:depth]) if candidates else 0,
        semantic_available=response.semantic.available,
        semantic_reason=response.semantic.reason,
        listing=response.listing,
        content_words=len(candidates.query.content_parts()) if candidates else 0,
        spread=response.spread,
    )


def formula(hit: Hit, options: SearchOptions) -> str:
    """The fused score with the numbers filled in, for the fusion method of ``options``:
    RRF ``1 / (10 + 1) + 0.5 / (10 + 4) = 0.12662``, convex ``0.5 × 0.873 + 0.5 × 1.000 = 0.93650``
    (each term a list that found the hit: its weight, and its rank or its normalised score),
    calibrated ``1 − (1 − a)(1 − b) = 1 − (1 − 0.13946)(1 − 0.33134) = 0.42460`` (each list's
    weighted evidence)."""
    if options.fusion == "calibrated":
        return calibrated_formula(hit, options)
    if options.fusion == "convex":
        terms = [
            f"{weight:g} × {_normalised(hit.contributions.get(name, 0.0), weight)}"
            for name, weight, rank in (
                ("fts", options.w_fts, hit.fts_rank),
                ("vector", options.w_vec, hit.vector_rank),
            )
            if rank is not None
        ]
    else:
        k = f"{options.k:g}"
        terms = []
        if hit.fts_rank is not None:
            terms.append(f"{options.w_fts:g} / ({k} + {hit.fts_rank})")
        if hit.vector_rank is not None:
            terms.append(f"{options.w_vec:g} / ({k} + {hit.vector_rank})")
    if not terms:
        return f"0 = {hit.fused_score:.5f}"
    return " + ".join(terms) + f" = {hit.fused_score:.5f}"


def _normalised(contribution: float, weight: float) -> str:
    """A list's normalised score, from its contribution ``weight × score``."""
    return f"{contribution / weight:.3f}" if weight > 0 else "…"


def formula_legend(options: SearchOptions) -> tuple[str, str]:
    """The method's name and what its terms are, for the explain block."""
    if options.fusion == "calibrated":
        return "Calibrated", (
            "the chance that either list is right; a, b: each list's evidence × its weight"
        )
    if options.fusion == "convex":
        return "Convex", (
            "w × score / best score of its list; the lexical list per pass "
            "(phrase, all words, any word), each pass a band below the one before"
        )
    return "RRF", f"w / (k + rank), k = {options.k:g}"


def explain_html(hit: Hit, ctx: ExplainContext, colours: Colours) -> str:
    """Why ``hit`` ranks where it does: a row per list (rank, contribution) with its evidence
    in words and numbers under it (raw score, what it is measured against, the calibrated
    evidence), then the fusion formula with the numbers filled in."""
    if ctx.listing:
        return (
            f"<b>{_shown(hit.title)}</b><br/>"
            f'<span style="color:{colours.muted}">Recently modified note #{ctx.rank}: the query '
            "has no words to search, so nothing is ranked.</span>"
        )
    mode = ctx.options.mode
    source = {
        "both": "found by both lists",
        "fts": "found by the lexical list only",
        "vector": "found by the vector list only",
    }.get(hit.source or "", "")
    muted = f'style="color:{colours.muted}"'
    rows: list[tuple[str, str, str, str | None]] = []  # (list, rank, contribution, evidence)
    notes: list[str] = []
    if mode != "semantic":
        name = f'<span style="color:{colours.fts}">■</span> Lexical'
        if hit.fts_rank is not None:
            rows.append(
                (
                    name,
                    f"rank {hit.fts_rank} of {ctx.lexical_count}",
                    f"{hit.contributions.get('fts', 0.0):.5f}",
                    lexical_evidence_text(hit, ctx.content_words),
                )
            )
        else:
            depth = f"{ctx.lexical_count} candidates, depth {ctx.options.depth}"
            rows.append((name, f"not in the list ({depth})", "", None))
    if mode != "fts":
        name = f'<span style="color:{colours.vector}">■</span> Vector'
        if not ctx.semantic_available:
            reason = _shown(ctx.semantic_reason or "unavailable")
            rows.append((name, f"unavailable ({reason})", "", None))
        elif hit.vector_rank is not None:
            rows.append(
                (
                    name,
                    f"rank {hit.vector_rank} of {ctx.vector_count}",
                    f"{hit.contributions.get('vector', 0.0):.5f}",
                    vector_evidence_text(hit, ctx.spread),
                )
            )
            if hit.best_chunk is not None:
                start, end = hit.best_chunk
                notes.append(f"best passage at characters {start}–{end} (marked below)")
        else:
            floor = f", floor {ctx.options.min_sim:g}" if ctx.options.min_sim > 0 else ""
            depth = f"{ctx.vector_count} candidates, depth {ctx.options.depth}{floor}"
            rows.append((name, f"not in the list ({depth})", "", None))
    pad = 'style="padding-right: 14px"'
    cells = "".join(
        (
            f"<tr><td {pad}>{a}</td><td {pad}>{b}</td><td align=right>{c}</td></tr>"
            if c
            else f'<tr><td {pad}>{a}</td><td colspan="2">{b}</td></tr>'  # not in the list
        )
        + (
            f'<tr><td></td><td colspan="2" style="padding-bottom: 3px">{html.escape(d)}</td></tr>'
            if d
            else ""
        )
        for a, b, c, d in rows
    )
    table = (
        '<table cellspacing="0" cellpadding="1">'
        f"<tr {muted}><td {pad}></td><td {pad}>rank</td>"
        f"<td align=right>contribution</td></tr>{cells}</table>"
    )
    if mode != "semantic" and hit.fts_rank is not None:
        notes.append("bm25 is negated: higher is better")
    if hit.status == "stale":
        notes.append("<i>status: stale — placed after every note that is not stale</i>")
    notes.extend(ctx.extra)
    method, terms = formula_legend(ctx.options)
    if ctx.options.fusion == "calibrated":
        # Letters, then numbers on a line of their own: one line is too wide for the pane.
        lines = calibrated_lines(hit, ctx.options)
        symbols, numbers = calibrated_formula_parts(hit, ctx.options)
        if len(lines) == 1:  # one list: no "either" to speak of, and a short line
            terms = "one list found it: its evidence × its weight"
            fused = f"<code>fused = {html.escape(symbols)} = {html.escape(numbers)}</code>"
        else:
            fused = f"<code>fused = {html.escape(symbols)}</code>"
            lines.insert(0, f"= {numbers}")
    else:
        lines = []
        fused = f"<code>{html.escape(formula(hit, ctx.options))}</code>"
    return (
        f"<b>Fused rank {ctx.rank}</b> of {ctx.total} · {source}{table}"
        f"{method}&nbsp; {fused} <span {muted}>({html.escape(terms)})</span>"
        + "".join(
            f"<br/><code>{html.escape(line)}</code>"
            if line.startswith("=")
            else f"<br/>{html.escape(line)}"
            for line in lines
        )
        + (f"<br/><span {muted}>{' · '.join(notes)}</span>" if notes else "")
    )
