"""A note rendered for the preview: its header (folders and tags that add a filter when
clicked), its body from markdown made safe, the query's terms marked and the best-matching passage
boxed and anchored."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from urllib.parse import quote, unquote

from explorer.preview.budget import Budget
from explorer.preview.document import NoteDocument
from explorer.preview.highlight import highlight, term_pattern
from explorer.preview.links import VaultLinks
from explorer.preview.markdown import markdown_to_safe_html
from explorer.preview.obsidian import Page
from explorer.preview.style import Colours, shown
from explorer.search.fusion.results import Hit
from explorer.search.query.query import Query
from explorer.search.query.quoting import filter_text

FILTER_SCHEME = "vault-filter"
BEST_ANCHOR = "best-chunk"


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


def _header(doc: NoteDocument, colours: Colours) -> str:
    crumbs = []
    parts = PurePosixPath(doc.path).parts
    for depth in range(len(parts) - 1):
        prefix = "/".join(parts[: depth + 1]) + "/"
        adds = shown(filter_text("path", prefix))
        crumbs.append(
            f'<a href="{filter_url("path", prefix)}" title="Add {adds} to the query">'
            f"{shown(parts[depth])}</a>"
        )
    crumbs.append(f"<b>{shown(parts[-1] if parts else doc.path)}</b>")
    lines = [f'<p style="color:{colours.muted}">' + " / ".join(crumbs) + "</p>"]
    meta = []
    if doc.tags:
        links = " ".join(
            f'<a href="{filter_url("tag", tag)}" title="Add {shown(filter_text("tag", tag))} '
            f'to the query">#{shown(tag)}</a>'
            for tag in doc.tags
        )
        meta.append(f"tags: {links}")
    if doc.status:
        meta.append(f"status: <b>{shown(doc.status)}</b>")
    for warning in doc.warnings:
        meta.append(f"<i>{shown(warning)}</i>")
    if meta:
        lines.append(f'<p style="color:{colours.muted}">' + " · ".join(meta) + "</p>")
    return "".join(lines) + "<hr/>"


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
    spend one ``budget`` (:mod:`explorer.preview.budget`), the best passage first."""
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
    where = f" in <b>{shown(PurePosixPath(via).name)}</b>" if via and via != path else ""
    return (
        f"<b>{shown(PurePosixPath(path).name)}</b><br/>"
        f'<span style="color:{colours.muted}">Opened from a link{where}: not a search hit, so '
        "there is no ranking to explain. Back (Alt+Left) returns to where you were.</span>"
    )
