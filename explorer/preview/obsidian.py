"""Obsidian's markdown in the preview: wikilinks, embeds, block ids, heading anchors, callouts.

markdown-it-py plugins that turn what an Obsidian vault's owner writes into the preview's HTML.
Text in, HTML out, no Qt: the widget only sees the result, after
:mod:`explorer.preview.markdown` has passed it through its sanitiser.  What a link points to is
decided by the vault's :class:`~explorer.vault.links.Resolver` (Obsidian's rules); what the
plugins need to know about the note being rendered travels in the render ``env`` as a :class:`Page`.

- ``[[Note]]``, ``[[Note|shown]]``, ``[[Note#Heading]]``, ``[[#Heading]]``, ``[[Note#^block]]``
  become ``vault-note:`` links (:func:`note_url`); a target no note answers to becomes a muted
  ``vault-missing:`` link whose tooltip says so.  Markdown links to vault notes are resolved the
  same way.
- ``![[image.png]]`` (``|200`` or ``|200x100`` sizes it) becomes an ``<img>`` whose source is
  relative to the shown note's folder (the preview's image loader decides whether it may be
  shown); ``![[Note]]`` and ``![[Note#Heading]]`` alone on a line show that note (or that
  section) inline, one level deep: an embed inside an embed, one that would show a note
  already being shown, or one over the preview's budgets (:mod:`explorer.preview.budget`: the
  characters embedded in one render, boxes nested too deep) is a link that says why.
- Headings get an anchor (:func:`anchor_name`), so do paragraphs ending in ``^id``, whose id is
  not shown.
- ``> [!type] Title`` blockquotes become callout boxes (a table, which Qt's rich text draws
  reliably, with a coloured bar), ``-`` folded (title only, a ``vault-callout:`` link unfolds
  it), ``+`` open but foldable.  Over the budgets (boxes nested :data:`CALLOUT_DEPTH` deep, the
  text and cells drawn in tables) a callout is a quote under its coloured title.
"""

from __future__ import annotations

import functools
import html
import os
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from explorer.display import safe_text
from explorer.preview.budget import (
    CALLOUT_DEPTH,
    EMBED_CHARS,
    EMBED_READ_CHARS,
    NESTING_DEPTH,
    Budget,
)
from explorer.vault.links import parse_wikilink

NOTE_SCHEME = "vault-note"
MISSING_SCHEME = "vault-missing"
CALLOUT_SCHEME = "vault-callout"

#: Files an embed shows as a picture (by name); other embeds are notes or links.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".svg"})
NOTE_SUFFIXES = (".md", ".markdown")

#: ``resolve(target, source, markdown)``: the vault path a link's target means, or ``None``.
Resolve = Callable[[str, str | None, bool], str | None]


# ----------------------------------------------------------------------------- urls and anchors


def note_url(path: str, fragment: str | None = None) -> str:
    """The link that opens the note ``path`` (at a heading, or ``^id`` block) in the preview."""
    url = f"{NOTE_SCHEME}:{quote(path, safe='/')}"
    return url + f"#{quote(fragment, safe='')}" if fragment else url


def parse_note_url(url: str) -> tuple[str, str | None] | None:
    """``(path, fragment)`` of a link made by :func:`note_url` (path ``""``: the shown note)."""
    prefix = f"{NOTE_SCHEME}:"
    if not url.startswith(prefix):
        return None
    path, _, fragment = url[len(prefix) :].partition("#")
    return unquote(path), unquote(fragment) or None


def missing_url(target: str) -> str:
    return f"{MISSING_SCHEME}:{quote(target, safe='')}"


def parse_missing_url(url: str) -> str | None:
    prefix = f"{MISSING_SCHEME}:"
    return unquote(url[len(prefix) :]) if url.startswith(prefix) else None


def callout_url(callout: str) -> str:
    return f"{CALLOUT_SCHEME}:{quote(callout, safe='')}"


def parse_callout_url(url: str) -> str | None:
    prefix = f"{CALLOUT_SCHEME}:"
    return unquote(url[len(prefix) :]) if url.startswith(prefix) else None


def heading_key(text: str) -> str:
    """What makes two headings the same for a link: letters and digits, case and accents
    folded, every run of anything else one ``-`` (``Types & values`` = ``types values``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return "-".join(re.findall(r"[^\W_]+", plain))


def anchor_name(fragment: str) -> str:
    """The anchor of a heading's text, or of a block for ``^id``."""
    if fragment.startswith("^"):
        return "block-" + heading_key(fragment[1:])
    return "h-" + heading_key(fragment)


# ----------------------------------------------------------------------------- the page


@dataclass(frozen=True)
class Page:
    """What the plugins know about the note being rendered (the render ``env["page"]``).

    ``resolve`` answers a link target (a note name, a path, an attachment's name) from the
    note ``source`` with a vault-relative path, or ``None``; ``embed`` gives a note's body
    markdown (``None``: it cannot be read).  ``base`` is the folder of the note the preview
    shows: image sources are written relative to it, also in an embedded note.  ``boxes`` and
    ``nesting`` count the tables and blocks this text is drawn inside (an embed's, the best
    passage's); ``budget`` is what the render has left to spend (:mod:`explorer.preview.budget`)."""

    source: str | None = None
    resolve: Resolve | None = None
    embed: Callable[[str], str | None] | None = None
    base: str = ""
    muted: str = "#666666"
    dark: bool = False
    surface: str = "#ffffff"  # the document's background, which callout washes are mixed into
    toggled: frozenset[str] = frozenset()  # callouts folded or unfolded by the reader
    prefix: str = ""  # makes callout ids unique across pieces and embeds
    depth: int = 0
    chain: tuple[str, ...] = ()  # the notes being shown, outermost first
    boxes: int = 0
    nesting: int = 0
    budget: Budget = field(default_factory=Budget, compare=False)  # one for a whole render

    def env(self) -> dict[str, object]:
        """The render ``env`` of markdown for this page."""
        return {"page": self, "budget": self.budget, "nesting": self.nesting}

    def find(self, target: str, markdown: bool = False) -> str | None:
        """What ``target`` (a wikilink's, or with ``markdown`` a markdown link's) points to."""
        if self.resolve is None or not target:
            return self.source if not target else None
        try:
            return self.resolve(target, self.source, markdown)
        except (ValueError, OSError):  # a resolver is pure; a broken target is unresolved
            return None

    def src(self, path: str) -> str:
        """An image source for the vault-relative ``path``, relative to the shown note."""
        return quote(os.path.relpath(path, self.base or "."), safe="/")


def _page(env: EnvType) -> Page:
    page = env.get("page") if isinstance(env, dict) else None
    return page if isinstance(page, Page) else Page()


def _is_note(path: str) -> bool:
    return path.lower().endswith(NOTE_SUFFIXES)


def _is_image(name: str) -> bool:
    return PurePosixPath(name.split("#")[0]).suffix.lower() in IMAGE_SUFFIXES


def _text(value: str) -> str:
    return html.escape(safe_text(value))


def _stem(path: str) -> str:
    name = PurePosixPath(path).name
    return name[: -len(PurePosixPath(name).suffix)] if _is_note(name) else name


# ----------------------------------------------------------------------------- links


def shown_text(target: str, heading: str | None, block: str | None, alias: str | None) -> str:
    """What a wikilink reads as: its ``|`` text, else the target, with the heading after a ›."""
    if alias and alias.strip():
        return alias.strip()
    name = target.strip()
    if heading:
        return f"{name} › {heading}" if name else heading
    if block and not name:
        return f"^{block}"
    return name or "this note"


def link_html(page: Page, target: str, fragment: str | None, shown: str) -> str:
    """A link to ``target`` (as written) showing ``shown`` (HTML): to the note, to an attachment
    file, or muted with a tooltip when nothing in the vault has that name."""
    path = page.find(target)
    if path is None:
        name = target or fragment or ""
        return (
            f'<a href="{missing_url(name)}" title="no note named “{_text(name)}”">'
            f'<span style="color:{page.muted}; text-decoration:none; font-style:italic">'
            f"{shown}</span></a>"
        )
    if not _is_note(path):
        return f'<a href="{page.src(path)}" title="{_text(path)}">{shown}</a>'
    return f'<a href="{note_url(path, fragment)}" title="{_text(path)}">{shown}</a>'


def _parse(inner: str) -> tuple[str, str | None, str | None, str | None]:
    target, heading, block, alias = parse_wikilink(inner)
    return target.rstrip("\\"), heading, block, alias  # ``[[a\|b]]`` in a table


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not embed and not src.startswith("[[", pos):
        return False
    start = pos + (3 if embed else 2)
    end = src.find("]]", start)
    if end < 0:
        return False
    inner = src[start:end]
    if not inner.strip() or "\n" in inner or "[[" in inner:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.meta = {"embed": embed}
    state.pos = end + 2
    return True


def _render_wikilink(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    page = _page(env)
    target, heading, block, alias = _parse(token.content)
    fragment = f"^{block}" if block else heading
    if token.meta.get("embed"):
        if _is_image(target):
            return _image_embed(page, target, alias)
        shown = _text(shown_text(_stem(target), heading, block, alias))
        return "↪ " + link_html(page, target, fragment, shown)
    return link_html(page, target, fragment, _text(shown_text(target, heading, block, alias)))


_SIZE = re.compile(r"^\s*(\d{1,5})(?:\s*x\s*(\d{1,5}))?\s*$")


def _image_embed(page: Page, target: str, alias: str | None) -> str:
    """``![[pic.png|200]]``: the picture (sized), or a note saying it is not in the vault."""
    path = page.find(target)
    name = _text(PurePosixPath(target).name or target)
    if path is None:
        return f'<span class="blocked">[image not found in the vault: {name}]</span>'
    size = _SIZE.match(alias or "")
    attrs = f' alt="{name}"'
    if size:
        attrs += f' width="{size.group(1)}"'
        if size.group(2):
            attrs += f' height="{size.group(2)}"'
    elif alias:
        attrs = f' alt="{_text(alias)}"'
    return f'<img src="{page.src(path)}"{attrs}>'


_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _local(href: str) -> bool:
    return bool(href) and not _SCHEME.match(href) and not href.startswith(("/", "\\"))


def _resolve_markdown_links(state: StateCore) -> None:
    """Markdown links to vault notes become note links (unresolved ones muted); local image
    sources become relative to the shown note, also in an embedded note."""
    page = _page(state.env)
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        missing = False
        for token in block.children:
            if token.type == "link_open":
                missing = _markdown_link(page, token)
            elif token.type == "link_close" and missing:
                token.meta = {**(token.meta or {}), "missing": True}
                missing = False
            elif token.type == "image":
                _markdown_image(page, token)


def _markdown_link(page: Page, token: Token) -> bool:
    href = str(token.attrGet("href") or "")
    if href.startswith("#"):
        fragment = unquote(href[1:])
        if page.source is not None and fragment:
            token.attrSet("href", note_url(page.source, fragment))
        return False
    if not _local(href):
        return False
    target, _, fragment = unquote(href).partition("#")
    path = page.find(target, markdown=True)
    if path is None:
        if not _is_note(target) and "." in PurePosixPath(target).name:
            return False  # a file the vault does not index: left as it was
        token.attrSet("href", missing_url(target))
        token.attrSet("title", f"no note named “{safe_text(target)}”")
        token.meta = {**(token.meta or {}), "missing": True}
        return True
    if _is_note(path):
        token.attrSet("href", note_url(path, fragment or None))
    else:
        token.attrSet("href", page.src(path))
    return False


def _markdown_image(page: Page, token: Token) -> None:
    src = str(token.attrGet("src") or "")
    if not _local(src):
        return
    path = page.find(unquote(src), markdown=True)
    if path is not None:
        token.attrSet("src", page.src(path))
    elif page.source is not None:  # relative to the note it is written in
        folder = PurePosixPath(page.source).parent.as_posix()
        joined = os.path.normpath(os.path.join(folder, unquote(src)))
        token.attrSet("src", quote(os.path.relpath(joined, page.base or "."), safe="/"))


def _render_link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    out = self.renderToken(tokens, idx, options, env)
    if (tokens[idx].meta or {}).get("missing"):
        out += f'<span style="color:{_page(env).muted}; text-decoration:none; font-style:italic">'
    return out


def _render_link_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    close = self.renderToken(tokens, idx, options, env)
    return "</span>" + close if (tokens[idx].meta or {}).get("missing") else close


# ----------------------------------------------------------------------------- blocks

_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9][A-Za-z0-9-]*)\s*$")
_CALLOUT = re.compile(r"^\s*\[!([A-Za-z][\w-]*)\]([+-]?)[ \t]*(.*)$")
_EMBED = re.compile(r"!\[\[([^\[\]\n]+)\]\]")
_CODE_SPAN = re.compile(r"(`+).*?\1", re.DOTALL)


def _blocks(state: StateCore) -> None:
    """Before inline parsing: block ids, heading anchors, note embeds on their own line,
    callouts (folded ones without their content)."""
    page = _page(state.env)
    tokens = state.tokens
    out: list[Token] = []
    around = _Around(page.boxes, page.nesting)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        inline = tokens[i + 1] if i + 1 < len(tokens) else None
        around.passing(token)
        if token.type == "heading_open" and inline is not None:
            token.meta = {**(token.meta or {}), "anchor": anchor_name(inline.content)}
        elif token.type == "paragraph_open" and inline is not None and inline.type == "inline":
            found = _BLOCK_ID.search(inline.content)
            if found:
                token.meta = {**(token.meta or {}), "anchor": anchor_name("^" + found.group(1))}
                inline.content = inline.content[: found.start()].rstrip()
            split = _split_embeds(token, inline, tokens[i + 2], around)
            if split is not None:
                out.extend(split)
                i += 3
                continue
        elif token.type == "blockquote_open" and i + 2 < len(tokens):
            following = _callout(page, tokens, i, out, around)
            if following:
                i = following
                continue
        out.append(token)
        i += 1
    state.tokens = out


_OPENS = frozenset({"blockquote_open", "bullet_list_open", "ordered_list_open"})
_CLOSES = frozenset(
    {"blockquote_close", "bullet_list_close", "ordered_list_close", "callout_close"}
)


@dataclass
class _Around:
    """The boxes (callouts drawn as tables) and the blocks (quotes, lists, callouts) around
    the token :func:`_blocks` is at, counted from the page's own as the tokens pass."""

    boxes: int
    nesting: int

    def passing(self, token: Token) -> None:
        if token.type in _OPENS:
            self.nesting += 1
        elif token.type in _CLOSES:
            self.nesting -= 1
            if token.type == "callout_close" and token.meta.get("boxed"):
                self.boxes -= 1


def _split_embeds(
    opening: Token, inline: Token, closing: Token, around: _Around
) -> list[Token] | None:
    """A paragraph with note embeds (``![[Note]]``, not images) as its text around them and a
    ``note_embed`` block for each (knowing the boxes and blocks ``around`` it), so the embedded
    note is shown as a block; ``None`` if it has none (embeds in code spans do not count)."""
    content = inline.content
    masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), content)
    embeds = [m for m in _EMBED.finditer(masked) if not _is_image(_parse(m.group(1))[0])]
    if not embeds:
        return None
    out: list[Token] = []
    anchor = (opening.meta or {}).get("anchor")
    last = 0
    for match in [*embeds, None]:
        text = content[last : match.start() if match else len(content)].strip()
        if text:
            para = Token("paragraph_open", "p", 1, map=opening.map, hidden=opening.hidden)
            para.meta = {"anchor": anchor} if anchor and not out else {}
            piece = Token("inline", "", 0, content=text, map=inline.map, children=[])
            out += [para, piece, Token("paragraph_close", "p", -1, hidden=closing.hidden)]
        if match is not None:
            block = Token("note_embed", "", 0, content=match.group(1), map=opening.map)
            block.meta = {
                "anchor": anchor if anchor and not out else None,
                "boxes": around.boxes,
                "nesting": around.nesting,
            }
            out.append(block)
            last = match.end()
    return out


def _callout(page: Page, tokens: list[Token], i: int, out: list[Token], around: _Around) -> int:
    """If ``tokens[i]`` opens a callout, append its opening and title to ``out``, turn its
    closing token into the callout's end, and return the index to go on from (its content,
    or its end when folded); else 0.  It is drawn as a box while the budget allows (boxes
    ``around`` it, the characters and cells drawn in tables), else as a quote."""
    opening, first, inline = tokens[i], tokens[i + 1], tokens[i + 2]
    if first.type != "paragraph_open" or inline.type != "inline":
        return 0
    head, _, rest = inline.content.partition("\n")
    match = _CALLOUT.match(head)
    if not match:
        return 0
    close = next(
        (
            j
            for j in range(i + 1, len(tokens))
            if tokens[j].type == "blockquote_close" and tokens[j].level == opening.level
        ),
        len(tokens) - 1,
    )
    kind, fold, title = match.group(1).lower(), match.group(2), match.group(3).strip()
    ident = f"{page.prefix}{(opening.map or [i])[0]}"
    folded = (fold == "-") != (ident in page.toggled)
    inside = 0 if folded else sum(len(token.content) for token in tokens[i + 1 : close])
    boxed = around.boxes < CALLOUT_DEPTH and page.budget.box(inside)
    if boxed:
        around.boxes += 1
    opening.type = "callout_open"
    opening.meta = {"kind": kind, "fold": fold, "folded": folded, "id": ident, "boxed": boxed}
    out.append(opening)
    title_token = Token("inline", "", 0, content=title or family(kind)[0], map=inline.map)
    title_token.children = []
    out.append(title_token)
    out.append(Token("callout_title_close", "", 0, meta=dict(opening.meta)))
    tokens[close].type = "callout_close"
    tokens[close].meta = opening.meta
    if folded:
        return close
    if rest.strip():
        inline.content = rest
        return i + 1
    return i + 4  # the paragraph was the title line only


def _render_heading_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    anchor = (tokens[idx].meta or {}).get("anchor")
    tag = self.renderToken(tokens, idx, options, env)
    return tag + f'<a name="{html.escape(anchor)}"></a>' if anchor else tag


def _render_paragraph_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    anchor = (tokens[idx].meta or {}).get("anchor")
    tag = self.renderToken(tokens, idx, options, env)
    return tag + f'<a name="{html.escape(anchor)}"></a>' if anchor else tag


# ----------------------------------------------------------------------------- callouts

#: Obsidian's callout types: each name, its family's title and icon and colour (RGB).
_FAMILIES: dict[str, tuple[str, str, tuple[int, int, int]]] = {
    "note": ("Note", "✎", (8, 109, 221)),
    "abstract": ("Abstract", "≡", (0, 176, 173)),
    "info": ("Info", "ℹ", (8, 109, 221)),
    "todo": ("Todo", "☐", (8, 109, 221)),
    "tip": ("Tip", "✦", (0, 160, 157)),
    "success": ("Success", "✔", (8, 160, 70)),
    "question": ("Question", "?", (222, 110, 0)),
    "warning": ("Warning", "⚠", (222, 110, 0)),
    "failure": ("Failure", "✘", (220, 45, 66)),
    "danger": ("Danger", "⚡", (220, 45, 66)),
    "bug": ("Bug", "✱", (220, 45, 66)),
    "example": ("Example", "☰", (120, 82, 238)),
    "quote": ("Quote", "❝", (140, 140, 140)),
}
_ALIASES = {
    "summary": "abstract", "tldr": "abstract", "hint": "tip", "important": "tip",
    "check": "success", "done": "success", "help": "question", "faq": "question",
    "caution": "warning", "attention": "warning", "fail": "failure", "missing": "failure",
    "error": "danger", "cite": "quote",
}  # fmt: skip


def family(kind: str) -> tuple[str, str, tuple[int, int, int]]:
    """The title (the type's name, capitalised), icon and colour of a callout type; an unknown
    type looks like a note, titled with its own name."""
    name = _ALIASES.get(kind, kind)
    if name in _FAMILIES:
        title, icon, rgb = _FAMILIES[name]
        return (kind.capitalize() if kind != name else title), icon, rgb
    return kind.capitalize(), _FAMILIES["note"][1], _FAMILIES["note"][2]


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> str:
    return _hex(tuple(x * t + y * (1 - t) for x, y in zip(a, b, strict=True)))  # type: ignore[arg-type]


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    if len(value) != 6:
        return (255, 255, 255)
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def callout_colours(kind: str, page: Page) -> tuple[str, str, str]:
    """(bar, wash, title) colours of a callout for the page's palette: a pale wash under dark
    text in light themes, a deep one under light text in dark themes."""
    return _colours(kind, page.dark, page.surface)


@functools.lru_cache(maxsize=256)  # a note of 100,000 callouts has a few kinds
def _colours(kind: str, dark: bool, surface_colour: str) -> tuple[str, str, str]:
    _title, _icon, rgb = family(kind)
    surface = _rgb(surface_colour)
    if dark:
        return _hex(rgb), _mix(rgb, surface, 0.22), _mix(rgb, (255, 255, 255), 0.55)
    return _hex(rgb), _mix(rgb, surface, 0.10), _mix(rgb, (0, 0, 0), 0.80)


def _render_callout_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    meta = tokens[idx].meta
    page = _page(env)
    bar, wash, title = callout_colours(meta["kind"], page)
    icon = family(meta["kind"])[1]
    mark = ""
    if meta["fold"]:
        mark = "▸ " if meta["folded"] else "▾ "
    link = ""
    if meta["fold"]:
        what = "Unfold" if meta["folded"] else "Fold"
        link = (
            f'<a href="{callout_url(meta["id"])}" title="{what} this callout">'
            f'<span style="color:{title}; text-decoration:none">'
        )
    heading = f'<p style="color:{title}; font-weight:bold">{link}{mark}{icon} '
    if not meta["boxed"]:  # over the budget: a quote under its coloured title
        return "<blockquote>" + heading
    return (
        f'<table width="100%" cellspacing="0" cellpadding="0" bgcolor="{wash}" '
        f'style="margin-top:6px; margin-bottom:6px"><tr>'
        f'<td width="4" bgcolor="{bar}"></td><td style="padding:6px">{heading}'
    )


def _render_callout_title_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    meta = tokens[idx].meta
    return ("</span></a>" if meta["fold"] else "") + "</p>"


def _render_callout_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return "</td></tr></table>" if tokens[idx].meta["boxed"] else "</blockquote>"


# ----------------------------------------------------------------------------- note embeds

_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE_LINE = re.compile(r"^[ \t]*(```|~~~)")


def section(text: str, heading: str | None, block: str | None) -> str | None:
    """The part of a note's markdown ``text`` a link fragment names: the heading's section
    (down to the next heading of its level or above), the paragraph that ends in ``^block``,
    or everything; ``None`` if the note has no such heading or block."""
    if not heading and not block:
        return text
    lines = text.split("\n")
    fenced = False
    for n, line in enumerate(lines):
        if _FENCE_LINE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        if block:
            found = _BLOCK_ID.search(line)
            if found and heading_key(found.group(1)) == heading_key(block):
                return "\n".join(lines[_block_start(lines, n) : n + 1])
            continue
        match = _HEADING_LINE.match(line)
        if match and heading_key(match.group(2)) == heading_key(heading or ""):
            level = len(match.group(1))
            end = n + 1
            inner_fence = False
            while end < len(lines):
                if _FENCE_LINE.match(lines[end]):
                    inner_fence = not inner_fence
                elif not inner_fence:
                    other = _HEADING_LINE.match(lines[end])
                    if other and len(other.group(1)) <= level:
                        break
                end += 1
            return "\n".join(lines[n:end])
    return None


_LIST_ITEM = re.compile(r"^[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


def _block_start(lines: list[str], end: int) -> int:
    """The first line of the block whose last line is ``end``: its paragraph, or its list item,
    never the heading above it."""
    start = end
    while (
        start > 0
        and not _HEADING_LINE.match(lines[start])
        and not _LIST_ITEM.match(lines[start])
        and lines[start - 1].strip()
        and not _HEADING_LINE.match(lines[start - 1])
    ):
        start -= 1
    return start


#: What an embed's box costs of the embedding budget besides its text (about its HTML's size):
#: a note that embeds an empty note a thousand times draws a bounded number of boxes.
EMBED_BOX_CHARS = 500


def _note_embed_html(
    md: MarkdownIt, page: Page, inner: str, line: int, boxes: int, nesting: int
) -> str:
    """An embed (``inner``: its wikilink) at ``line`` of the token stream, with ``boxes`` and
    ``nesting`` blocks around it: the note (or its section) in a box, or a link saying why not."""
    target, heading, block, alias = _parse(inner)
    fragment = f"^{block}" if block else heading
    path = page.find(target)
    shown = _text(shown_text(_stem(path or target), heading, block, alias))
    link = link_html(page, target, fragment, shown)
    if path is None or not _is_note(path) or page.embed is None:
        return f"<p>↪ {link}</p>"
    why = _not_embedded(page, path, boxes, nesting)
    text, part = None, None
    if why is None:
        text, why = _read(page, path)
    if text is not None:
        key = (path, heading, block)  # a note embedded a thousand times is cut up once
        if key not in page.budget.parts:
            page.budget.parts[key] = section(text, heading, block)
        part = page.budget.parts[key]
    if why is None and len(part or "") + EMBED_BOX_CHARS > page.budget.embedded:
        why = f"over the {EMBED_CHARS:,} characters the preview embeds"
    if why is not None:
        return f'<p>↪ {link} <span style="color:{page.muted}">({why}: shown as a link)</span></p>'
    page.budget.embedded -= len(part or "") + EMBED_BOX_CHARS
    if text is None:
        body = f'<p style="color:{page.muted}"><i>cannot be read</i></p>'
    elif part is None:
        missing = f"no heading “{_text(heading or '')}”" if heading else f"no block ^{block}"
        body = f'<p style="color:{page.muted}"><i>{missing} in this note</i></p>'
    else:
        inner_page = replace(
            page,
            source=path,
            depth=page.depth + 1,
            chain=(*page.chain, path),
            prefix=f"{page.prefix}e{line}-",
            boxes=boxes + 1,
            nesting=nesting + 1,
        )
        body = md.render(part, inner_page.env())
    surface = _rgb(page.surface)
    wash = _mix((128, 128, 128), surface, 0.14 if page.dark else 0.07)
    bar = _mix((128, 128, 128), surface, 0.7)
    return (
        f'<table width="100%" cellspacing="0" cellpadding="0" bgcolor="{wash}" '
        f'style="margin-top:6px; margin-bottom:6px"><tr>'
        f'<td width="3" bgcolor="{bar}"></td><td style="padding:6px">'
        f'<p style="color:{page.muted}; font-size:small">embedded from {link}</p>'
        f"{body}</td></tr></table>"
    )


def _not_embedded(page: Page, path: str, boxes: int, nesting: int) -> str | None:
    """Why the note ``path`` is not shown where it is embedded (``None``: it may be)."""
    if path in page.chain:
        return "already shown"
    if page.depth >= 1:
        return "an embed inside an embed"
    if boxes >= CALLOUT_DEPTH or nesting >= NESTING_DEPTH:
        return "nested too deeply"
    return None


def _read(page: Page, path: str) -> tuple[str | None, str | None]:
    """``(text, None)``: the body of the note ``path`` (``None``: it cannot be read), read once
    in a render; ``(None, why)`` when the render has read all it may for embeds."""
    budget = page.budget
    if path not in budget.notes:
        if budget.read <= 0 or page.embed is None:
            return None, f"over the {EMBED_READ_CHARS:,} characters read for embeds"
        text = budget.notes[path] = page.embed(path)
        budget.read -= len(text or "")
    return budget.notes[path], None


# ----------------------------------------------------------------------------- the plugin


def obsidian_plugin(md: MarkdownIt) -> None:
    """Teach ``md`` Obsidian's links, embeds, block ids, heading anchors and callouts."""
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.core.ruler.after("block", "obsidian_blocks", _blocks)
    md.core.ruler.after("inline", "obsidian_links", _resolve_markdown_links)

    def render_note_embed(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        meta = token.meta or {}
        anchor = meta.get("anchor")
        out = f'<a name="{html.escape(anchor)}"></a>' if anchor else ""
        line = idx  # its place in the stream: callout ids inside stay apart
        boxes, nesting = meta.get("boxes", 0), meta.get("nesting", 0)
        return out + _note_embed_html(md, _page(env), token.content, line, boxes, nesting)

    rules = md.add_render_rule
    rules("wikilink", _render_wikilink)
    rules("note_embed", render_note_embed)
    rules("heading_open", _render_heading_open)
    rules("paragraph_open", _render_paragraph_open)
    rules("link_open", _render_link_open)
    rules("link_close", _render_link_close)
    rules("callout_open", _render_callout_open)
    rules("callout_title_close", _render_callout_title_close)
    rules("callout_close", _render_callout_close)
