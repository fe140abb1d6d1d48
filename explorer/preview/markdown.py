"""Markdown to safe HTML for the preview.

Note content is rendered by markdown-it-py with the plugins of :mod:`explorer.preview.obsidian`
(wikilinks, embeds, block ids, callouts) and the budgets of :mod:`explorer.preview.budget`, and
then passed through nh3 with a short allow-list.  A note's own HTML is rendered as Obsidian
renders it, through the same allow-list: comments are dropped, formatting tags (``div``,
``span``, ``br``, ``kbd``, ``sub``, ``sup``, ``details``, ``summary``…) kept without their
scripts and handlers, ``script`` and ``style`` dropped with their content, any other tag dropped
around its text (so no raw tag shows in running text).  Remote images are replaced by a
placeholder before Qt ever sees them; nothing else can load (no ``iframe``, ``object``, CSS
``url()``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import nh3
from markdown_it import MarkdownIt

from explorer.preview.budget import BudgetRenderer, break_long_words, budget_plugin
from explorer.preview.obsidian import Page, obsidian_plugin

REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)

_ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "center", "code", "dd", "del", "details", "div", "dl",
    "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark",
    "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub", "summary", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
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


def _markdown() -> MarkdownIt:
    options = {"html": True, "linkify": False, "typographer": False}
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
        clean_content_tags={"script", "style", "template", "noscript", "iframe", "object"},
        strip_comments=True,
        attributes=_ALLOWED_ATTRIBUTES,
        allowed_classes=_ALLOWED_CLASSES,
        filter_style_properties=_STYLE_PROPERTIES,
        url_schemes=_URL_SCHEMES,
        link_rel=None,
    )
    return _block_remote_images(_qt_tables(_qt_details(break_long_words(clean))))


_DETAILS = re.compile(r"<(/?)(details|summary)\b[^>]*>", re.IGNORECASE)


def _qt_details(fragment: str) -> str:
    """``details`` and ``summary`` as Qt's rich text can show them (it knows neither): the
    summary a bold line, the rest under it, open."""

    def replace(match: re.Match[str]) -> str:
        closing, tag = match.group(1), match.group(2).lower()
        if tag == "summary":
            return "</b></p>" if closing else "<p><b>"
        return "</div>" if closing else "<div>"

    return _DETAILS.sub(replace, fragment)


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
