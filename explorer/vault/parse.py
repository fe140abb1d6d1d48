"""From the bytes of a note file to what the index stores: title, tags, status, text, chunks.

Nothing here raises on bad content.  Frontmatter is read by
:func:`~explorer.vault.frontmatter.read_frontmatter`: a broken (or too deeply nested, or too
large) block is kept as body text, a field too large or of the wrong shape is skipped, each with
a warning; a lone surrogate that a YAML escape makes is replaced by U+FFFD; bytes that are not
UTF-8 are decoded as Windows-1252 (which maps every byte) and the note says so; a file that looks
binary is refused with a reason, so the caller can list it as skipped.
"""

from __future__ import annotations

import bisect
import enum
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from explorer.errors import UserError
from explorer.vault.chunk import Chunk, chunk_text
from explorer.vault.frontmatter import read_frontmatter
from explorer.vault.links import Link, aliases, blank_fences, blank_spans, find_links, link_text
from explorer.vault.properties import PropValue, normalize_tag, typed_properties

_H1 = re.compile(r"^#[ \t]+(.*)$", re.MULTILINE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
#: ``#`` first, then what may not come before it: the engine skips from ``#`` to ``#`` (a
#: lookbehind first made it try every character: 8 -> 0.6 µs a tldr page).
_INLINE_TAG = re.compile(r"#(?<![\w#/&]#)([^\W\d][\w/-]*|\d+[^\W\d][\w/-]*)")


class NotANote(UserError, ValueError):
    """The file cannot be indexed as a note; the message is the reason shown to the user."""


@dataclass(slots=True)
class ParsedNote:
    """What the index keeps of one note."""

    title: str
    tags: list[str]
    status: str | None
    text: str
    body_start: int
    chunks: list[Chunk]
    content_hash: str
    warnings: list[str] = field(default_factory=list)
    title_from_content: bool = False
    #: Links of the whole text (frontmatter included, as Obsidian counts them), offsets in ``text``.
    links: list[Link] = field(default_factory=list)
    #: Other names of the note (frontmatter ``aliases``), which links may use.
    aliases: list[str] = field(default_factory=list)
    #: The frontmatter's properties, typed (:func:`explorer.vault.properties.typed_properties`).
    properties: list[PropValue] = field(default_factory=list)
    #: The note's path in the vault (its folders can be part of what is embedded).
    path: str = ""
    #: (offset in ``text``, level, text) of each heading of the body, in order.
    headings: list[tuple[int, int, str]] = field(default_factory=list)
    #: The headings in force just after each of :attr:`headings`, outermost first.
    heading_paths: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def search_text(self) -> str:
        """The body as it is searched: each link replaced by the text a reader sees."""
        body_links = [link for link in self.links if link.start >= self.body_start]
        return link_text(self.text, body_links, self.body_start)

    def embed_text(self, chunk: Chunk, form: EmbedForm | None = None) -> str:
        """The text embedded for ``chunk``: where it stands, then the chunk itself.

        Where it stands is the note's title (the file name when the content gives none, as in
        most Obsidian vaults) and the headings above the chunk, as ``form`` (by default
        :data:`EMBED_FORM`) writes them; a line the chunk already starts with is not repeated.
        """
        context = self.context(chunk, form or EMBED_FORM)
        return f"{context}\n{chunk.text}" if context else chunk.text

    def context(self, chunk: Chunk, form: EmbedForm) -> str:
        """The line that says where ``chunk`` stands, as ``form`` writes it ("" for none)."""
        if form is EmbedForm.CONTENT_TITLE:  # before titles and headings were embedded
            shown = self.title and self.title_from_content
            return self.title if shown and self.title not in chunk.text[:300] else ""
        first = _first_heading(chunk.text)
        path = [] if form is EmbedForm.TITLE else self.heading_path(chunk.start)
        if first is not None and path and _same(path[-1], first):
            path.pop()  # the chunk starts with its own heading
        parts = [*path] if path and _same(path[0], self.title) else [self.title, *path]
        if form is EmbedForm.FOLDER_BREADCRUMB:
            parts = [*PurePosixPath(self.path).parent.parts, *parts]
        if len(parts) == 1 and first is not None and _same(first, parts[0]):
            return ""  # the chunk starts with the title: nothing to add
        return _breadcrumb([p for p in parts if p])

    def heading_path(self, pos: int) -> list[str]:
        """The headings in force at ``pos`` of the note's text, outermost first: a look-up in
        :attr:`heading_paths` (a note of 20,000 headings walked them all for each chunk)."""
        before = bisect.bisect_left(self.headings, pos, key=lambda h: h[0])
        return list(self.heading_paths[before - 1]) if before else []


class EmbedForm(enum.Enum):
    """How a chunk's place is written before its text when it is embedded (issue 44 measured
    them: ``docs/ranking.md``)."""

    #: The title only when the content gives one (frontmatter or H1): what was embedded before.
    CONTENT_TITLE = "content-title"
    #: A title line (the file name when the content gives none).
    TITLE = "title"
    #: ``Title › Heading › Subheading``: the title and the headings above the chunk.
    BREADCRUMB = "breadcrumb"
    #: The folders too: ``folder › sub › Title › Heading``.
    FOLDER_BREADCRUMB = "folder-breadcrumb"


#: The form every chunk is embedded in.  An index whose chunks were written in another form
#: is brought to this one by its next full sync (``explorer.index.sync``), searched on the
#: vectors it has until the new ones land.
EMBED_FORM = EmbedForm.BREADCRUMB

#: A heading in the breadcrumb, and the whole line, at most this long (a chunk is ~200 word
#: pieces of the model's 256: the line must leave the chunk room).
_PART_CHARS = 80
_CONTEXT_CHARS = 200
_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.*)$", re.MULTILINE)


def _breadcrumb(parts: list[str]) -> str:
    parts = [p if len(p) <= _PART_CHARS else p[: _PART_CHARS - 1] + "…" for p in parts]
    while len(parts) > 2 and len(" › ".join(parts)) > _CONTEXT_CHARS:
        del parts[-2]  # the middle gives way: the title and the nearest heading stay
    return " › ".join(parts)[:_CONTEXT_CHARS]


def _first_heading(text: str) -> str | None:
    """The heading ``text`` starts with, if it starts with one."""
    match = _HEADING_LINE.match(text)
    return _heading_text(match.group(2)) if match else None


def _same(a: str, b: str) -> bool:
    return a.casefold().strip() == b.casefold().strip()


def _paths(headings: list[tuple[int, int, str]]) -> list[tuple[str, ...]]:
    """The headings in force just after each heading (a deeper one under the last shallower
    one), in one pass."""
    stack: list[tuple[int, str]] = []
    out = []
    for _, level, text in headings:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        out.append(tuple(t for _, t in stack))
    return out


def _headings(text: str, body_start: int) -> list[tuple[int, int, str]]:
    """(offset in ``text``, level, text) of each heading of the body, outside code."""
    body = _strip_code(text[body_start:])
    out = []
    for match in _HEADING_LINE.finditer(body):
        heading = _heading_text(match.group(2))
        if "[" in heading:
            heading = link_text(heading).strip() or heading
        if heading:
            out.append((body_start + match.start(), len(match.group(1)), _storable(heading)))
    return out


def content_hash(data: bytes) -> str:
    """The identity of a note's content: renames with the same hash keep their vectors."""
    return hashlib.sha256(data).hexdigest()


def decode(data: bytes) -> tuple[str, list[str]]:
    """Text of ``data`` and warnings; refuses binary data."""
    head = data[:8192]
    if b"\x00" in head and not _looks_utf16(head):
        raise NotANote("binary file (contains NUL bytes)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        if _looks_utf16(head):
            try:
                return data.decode("utf-16"), ["decoded as UTF-16"]
            except UnicodeDecodeError:
                pass
        text = data.decode("cp1252", errors="replace")
        return text, [f"not valid UTF-8 (byte {exc.start}); decoded as Windows-1252"]


def _looks_utf16(head: bytes) -> bool:
    return head.startswith((b"\xff\xfe", b"\xfe\xff"))


def parse_note(rel: str, data: bytes, digest: str | None = None) -> ParsedNote:
    """Parse one note file (``digest``: its :func:`content_hash`, if known).  Raises
    :class:`NotANote` only for binary content."""
    text, warnings = decode(data)
    text = text.replace("\r\n", "\n")
    front = read_frontmatter(text)
    meta, body_start = front.fields, front.end
    warnings.extend(front.warnings)
    body = text[body_start:]
    links = find_links(text)
    body_links = [link for link in links if link.start >= body_start]
    title, from_content = _title(rel, meta, body)
    headings = _headings(text, body_start)
    unlinked = blank_spans(text, [(link.start, link.end) for link in body_links])  # [[#H]]: no tag
    tags = _merge_tags(_frontmatter_tags(meta.get("tags")), inline_tags(unlinked[body_start:]))
    note = ParsedNote(
        title=_storable(title),
        tags=_merge_tags([_storable(t) for t in tags]),
        status=note_status(meta.get("status")),
        text=text,
        body_start=body_start,
        chunks=_chunks(text, body_start, body_links),
        content_hash=digest or content_hash(data),
        warnings=[_storable(w) for w in warnings],
        title_from_content=from_content,
        links=links,
        aliases=[_storable(a) for a in aliases(meta)],
        properties=[
            PropValue(
                _storable(p.key),
                _storable(p.name),
                p.kind,
                p.seq,
                None if p.text is None else _storable(p.text),
                p.num,
            )
            for p in typed_properties(front.properties)
        ],
        path=rel,
        headings=headings,
        heading_paths=_paths(headings),
    )
    return note


def _chunks(text: str, body_start: int, links: list[Link]) -> list[Chunk]:
    """The body's chunks, cut outside links; each chunk's text is what a reader sees
    (:func:`~explorer.vault.links.link_text`), its span the note's own characters."""
    body = text[body_start:]
    if not links:
        return chunk_text(body, offset=body_start)
    spans = [(link.start - body_start, link.end - body_start) for link in links]
    chunks = chunk_text(body, offset=body_start, keep=spans)
    out: list[Chunk] = []
    for chunk in chunks:
        shown = link_text(text, links, chunk.start, chunk.end).strip()
        if shown:
            out.append(Chunk(chunk.start, chunk.end, shown))
        elif out:  # only an image embed: its span joins the chunk before
            out[-1] = Chunk(out[-1].start, chunk.end, out[-1].text)
        # (a first chunk of only embeds gives its span to the next one, below)
    if out and chunks and out[0].start != chunks[0].start:
        out[0] = Chunk(chunks[0].start, out[0].end, out[0].text)
    return out


_SURROGATE = re.compile("[\ud800-\udfff]")


def note_status(value: object) -> str | None:
    """A frontmatter ``status`` as stored and compared: its text, trimmed, lower case."""
    return None if value is None else _storable(str(value).strip().lower())


def _storable(text: str) -> str:
    """``text`` with lone surrogates (which a YAML escape such as ``"\\ud800"`` can make, and
    which UTF-8 cannot store) replaced by U+FFFD; a valid pair becomes its character."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _title(rel: str, meta: dict[str, object], body: str) -> tuple[str, bool]:
    value = meta.get("title")
    if isinstance(value, str | int | float) and str(value).strip():
        return str(value).strip(), True
    match = _H1.search(_strip_code(body))
    heading = _heading_text(match.group(1)) if match else ""
    if heading:
        if "[" in heading:
            heading = link_text(heading).strip() or heading
        return heading, True
    name = PurePosixPath(rel).name
    for suffix in (".markdown", ".md"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name, False


def _heading_text(line: str) -> str:
    """A heading's text without its closing ``#`` marks (``Deploy ##`` → ``Deploy``; ``C#``
    keeps its own: a closing sequence follows a space).  Stripped by hand, since a pattern
    for it tried each end of the text against every mark after it."""
    text = line.strip(" \t")
    without = text.rstrip("#")
    if not without:
        return ""
    return without.rstrip(" \t") if without != text and without[-1] in " \t" else text


def _strip_code(text: str) -> str:
    """``text`` with fenced blocks and inline code blanked out (same length, offsets kept)."""
    text = blank_fences(text)
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)


def _frontmatter_tags(value: object) -> list[str]:
    if value is None:
        return []
    items: list[object]
    if isinstance(value, str):
        items = list(re.split(r"[,\s]+", value))
    elif isinstance(value, list | tuple | set):
        items = list(value)
    else:
        items = [value]
    return [normalize_tag(str(item)) for item in items if item is not None]


def inline_tags(body: str) -> list[str]:
    """``#tag`` words outside code, as Obsidian reads them (not all digits, no heading marks)."""
    return [normalize_tag(m.group(1)) for m in _INLINE_TAG.finditer(_strip_code(body))]


def _merge_tags(*groups: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for group in groups:
        for tag in group:
            if tag:
                seen.setdefault(tag, None)
    return list(seen)
