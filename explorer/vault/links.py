"""Obsidian's links in a note's text: finding them, reading them, resolving them to vault paths.

Pure functions over strings: no file is read here.  The forms are the wikilink ``[[Note]]`` with
its variants ``[[Note|shown]]``, ``[[Note#Heading]]``, ``[[#Heading]]`` (same note) and
``[[Note#^block]]``, the embed ``![[...]]``, and markdown links ``[text](path.md)`` /
``![alt](path.png)`` to local files.  Links with a scheme (``https:``, ``mailto:``, ``file:``…) are
not vault links and are left alone; so is anything inside fenced or inline code.

:class:`Resolver` applies Obsidian's rules to turn what a link says into the vault path it means;
a target it cannot place gives ``None`` (shown as unresolved, never an error).
"""

from __future__ import annotations

import bisect
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from explorer.vault.ignore import NOTE_SUFFIXES  # a target with another one names an attachment

_FENCE = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_TICKS = re.compile(r"`+")
# No leading ``!?``: a pattern that starts with a literal is found by a fast scan; the ``!`` of
# an embed is looked at by hand (:func:`_spans`).
_WIKILINK = re.compile(r"\[\[([^\[\]\n]*?)\]\]")
# ``[text](dest)`` with one level of parentheses inside the destination.
_MDLINK = re.compile(r"\[((?:[^\[\]\n\\]|\\.)*)\]\(((?:[^()\n]|\([^()\n]*\))*)\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
_EXTENSION = re.compile(r"\.([A-Za-z0-9]{1,8})$")


@dataclass(frozen=True, slots=True)
class Link:
    """One link as written in a note."""

    #: Note name or path as written (``''`` for ``[[#Heading]]``); for markdown links the decoded
    #: relative path, without its ``#fragment``.
    target: str
    #: ``Heading`` of ``[[Note#Heading]]`` / ``[[#Heading]]``.
    heading: str | None
    #: ``abc`` of ``[[Note#^abc]]``.
    block: str | None
    #: Text a reader sees: the ``|alias`` (or markdown link text), else the target's name (or the
    #: heading for ``[[#Heading]]``).
    shown: str
    #: ``![[...]]`` or ``![](...)``.
    embed: bool
    #: ``[text](path.md)`` style rather than ``[[...]]``.
    markdown: bool
    #: Offsets of the whole link syntax in the text given.
    start: int
    end: int
    #: 1-based line number.
    line: int

    @property
    def is_attachment(self) -> bool:
        """The target names a file that is not a note (an image, a PDF…)."""
        return is_attachment_name(self.target)


def is_attachment_name(target: str) -> bool:
    """``target`` has a file extension that is not a note's (``diagram.png``, ``a.pdf``)."""
    name = target.rsplit("/", 1)[-1]
    match = _EXTENSION.search(name)
    if match is None or not name[: match.start()]:
        return False
    return not name.lower().endswith(NOTE_SUFFIXES)


def note_name(target: str) -> str:
    """The name a reader knows ``target`` by: its last path part, without a note extension."""
    name = target.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    lower = name.lower()
    for suffix in NOTE_SUFFIXES:
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def parse_wikilink(inner: str) -> tuple[str, str | None, str | None, str | None]:
    """``(target, heading, block, alias)`` of the text between ``[[`` and ``]]``.

    ``'Note#H|shown'`` gives ``('Note', 'H', None, 'shown')``; ``'#^abc'`` gives
    ``('', None, 'abc', None)``.  The alias is whatever follows the first ``|`` (an image size
    such as ``200`` included: the renderer decides what it means); ``\\|`` (a link inside a
    table) counts as ``|``.  A nested heading ``Note#A#B`` gives the innermost, ``B``.
    """
    inner = inner.replace("\\|", "|")
    alias: str | None = None
    if "|" in inner:
        inner, alias = inner.split("|", 1)
        alias = alias.strip()
    target, _, fragment = inner.partition("#")
    heading: str | None = None
    block: str | None = None
    parts = [p.strip() for p in fragment.split("#") if p.strip()]
    if parts:
        last = parts[-1]
        if last.startswith("^"):
            block = last[1:].strip() or None
            heading = parts[-2] if len(parts) > 1 else None
        else:
            heading = last
    return target.strip(), heading, block, alias


def blank_fences(text: str) -> str:
    """``text`` with its fenced code blocks blanked out (same length, offsets kept)."""
    if "```" not in text and "~~~" not in text:  # most notes: no pass of the pattern
        return text
    return _FENCE.sub(lambda m: " " * len(m.group(0)), text)


def _mask_code(text: str) -> str:
    """``text`` with fenced blocks and inline code blanked out (same length, offsets kept)."""
    text = blank_fences(text)
    return blank_spans(text, _inline_code(text)) if "`" in text else text


def _inline_code(text: str) -> list[tuple[int, int]]:
    """The inline code spans of ``text``: a run of backticks opens one, and the next run of the
    same length on its line closes it (CommonMark's rule, kept to a line); a run that nothing
    closes is text.  Each run is looked at once: a regex with a backreference tried each length
    of each run against the rest of its line (a line of 5,000 backticks: minutes)."""
    spans: list[tuple[int, int]] = []
    line: list[tuple[int, int]] = []
    for match in _TICKS.finditer(text):
        if line and "\n" in text[line[-1][1] : match.start()]:
            spans.extend(_closed(line))
            line = []
        line.append(match.span())
    spans.extend(_closed(line))
    return spans


def _closed(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans that the backtick ``runs`` of one line open and close."""
    closer: list[int | None] = [None] * len(runs)
    seen: dict[int, int] = {}  # length of a run -> the nearest run of that length after it
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        closer[i] = seen.get(length)
        seen[length] = i
    spans = []
    i = 0
    while i < len(runs):
        j = closer[i]
        if j is None:
            i += 1
        else:
            spans.append((runs[i][0], runs[j][1]))
            i = j + 1
    return spans


def blank_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with the ``spans`` (in order, not overlapping) replaced by spaces (offsets
    kept)."""
    if not spans:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end in spans:
        pieces.append(text[pos:start])
        pieces.append(" " * (end - start))
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _escaped(text: str, pos: int) -> bool:
    """The character at ``pos`` is preceded by an odd number of backslashes."""
    count = 0
    while pos - count - 1 >= 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _spans(pattern: re.Pattern[str], masked: str) -> list[tuple[int, re.Match[str], bool]]:
    """``(start, match, embed)`` of each unescaped match, ``start`` at the ``!`` of an embed."""
    out = []
    for match in pattern.finditer(masked):
        start = match.start()
        embed = start > 0 and masked[start - 1] == "!" and not _escaped(masked, start - 1)
        if embed:
            start -= 1
        elif _escaped(masked, start):
            continue
        out.append((start, match, embed))
    return out


def _wikilink(match: re.Match[str], start: int, embed: bool, line: int) -> Link:
    target, heading, block, alias = parse_wikilink(match.group(1))
    if alias:
        shown = alias
    elif target:
        shown = note_name(target)
    else:
        shown = heading or block or ""
    return Link(
        target=target,
        heading=heading,
        block=block,
        shown=shown,
        embed=embed,
        markdown=False,
        start=start,
        end=match.end(),
        line=line,
    )


def _destination(raw: str) -> str | None:
    """The destination of a markdown link without its title; ``None`` when it is not local."""
    raw = raw.strip()
    if raw.startswith("<"):
        close = raw.find(">")
        dest = raw[1:close] if close > 0 else raw[1:]
    else:
        dest = _without_title(raw)
    dest = dest.strip()
    if not dest or _SCHEME.match(dest):
        return None
    return dest


def _without_title(dest: str) -> str:
    """``dest`` without a link title at its end (``"t"``, ``'t'`` or ``(t)`` after white space).
    Found from the end by hand: a pattern for it ran over the white space after each of its
    starts (40 KB of spaces: 18 s)."""
    body = dest.rstrip()
    if not body or body[-1] not in "\"')":
        return dest
    last = len(body) - 1
    if body[-1] == ")":  # the first "(" after any other ")" that follows white space
        after = body.rfind(")", 0, last) + 1
        opener = body.find("(", after, last)
        while opener >= 0 and not (opener > 0 and body[opener - 1].isspace()):
            opener = body.find("(", opener + 1, last)
    else:  # no quote of its kind inside the title
        opener = body.rfind(body[-1], 0, last)
    if opener <= 0 or not body[opener - 1].isspace():
        return dest
    return body[:opener].rstrip()


def _markdown_link(match: re.Match[str], start: int, embed: bool, line: int) -> Link | None:
    dest = _destination(match.group(2))
    if dest is None:
        return None
    path, _, fragment = dest.partition("#")
    path = unquote(path).replace("\\", "/")
    fragment = unquote(fragment).strip()
    heading: str | None = None
    block: str | None = None
    if fragment.startswith("^"):
        block = fragment[1:].strip() or None
    elif fragment:
        heading = fragment
    text = re.sub(r"\\(.)", r"\1", match.group(1)).strip()
    shown = text or (note_name(path) if path else heading or "")
    return Link(
        target=path,
        heading=heading,
        block=block,
        shown=shown,
        embed=embed,
        markdown=True,
        start=start,
        end=match.end(),
        line=line,
    )


def find_links(text: str) -> list[Link]:
    """Every vault link in ``text``, in order: wikilinks, embeds, markdown links to local files.

    Fenced and inline code are skipped, as are escaped ``\\[[`` and links with a scheme
    (``https:``, ``mailto:``…), which are not vault links.
    """
    if "[[" not in text and "](" not in text:
        return []
    masked = _mask_code(text) if "`" in text or "~~~" in text else text
    wiki = _spans(_WIKILINK, masked)
    if wiki:  # markdown links are looked for where no wikilink is
        masked = blank_spans(masked, [(start, match.end()) for start, match, _ in wiki])
    markdown = _spans(_MDLINK, masked) if "](" in masked else []
    found = sorted(
        [(start, True, m, embed) for start, m, embed in wiki]
        + [(start, False, m, embed) for start, m, embed in markdown],
        key=lambda item: item[0],
    )
    links: list[Link] = []
    line, counted = 1, 0
    for start, is_wiki, match, embed in found:
        line += text.count("\n", counted, start)
        counted = start
        if is_wiki:
            links.append(_wikilink(match, start, embed, line))
        else:
            md = _markdown_link(match, start, embed, line)
            if md is not None:
                links.append(md)
    return links


def shown_text(link: Link) -> str:
    """What ``link`` reads as in plain text: ``''`` for an embedded attachment (an image)."""
    if link.embed and link.is_attachment and not link.markdown:
        return ""
    return link.shown


def link_text(
    text: str, links: Sequence[Link] | None = None, start: int = 0, end: int | None = None
) -> str:
    """``text[start:end]`` with each link replaced by the text a reader sees.

    ``[[Note|shown]]`` becomes ``shown``, ``[[Note]]`` becomes ``Note``, ``![[image.png]]``
    becomes nothing, ``![[Other note]]`` becomes ``Other note``, ``[t](x.md)`` becomes ``t``;
    everything else is kept character for character.  ``links`` are the links of ``text`` when
    the caller already has them (offsets in ``text``, in order, as :func:`find_links` gives
    them); those not wholly inside the part are left as they are written.  Only the links
    around the part are read (a binary search), so the parts of a note cost its length once.
    """
    stop = len(text) if end is None else end
    found: Sequence[Link]
    if links is None:
        part = text[start:stop]
        found = find_links(part)
        text, start, stop = part, 0, len(part)
    else:
        found = links_within(links, start, stop)
    if not found:
        return text[start:stop]
    out: list[str] = []
    pos = start
    for link in found:
        out.append(text[pos : link.start])
        out.append(shown_text(link))
        pos = link.end
    out.append(text[pos:stop])
    return "".join(out)


def links_within(links: Sequence[Link], start: int, end: int) -> Sequence[Link]:
    """The links of ``links`` (in order, not overlapping) wholly inside ``[start, end)``."""
    first = bisect.bisect_left(links, start, key=_start)
    last = bisect.bisect_right(links, end, lo=first, key=_end)
    return links[first:last]


def _start(link: Link) -> int:
    return link.start


def _end(link: Link) -> int:
    return link.end


def aliases(meta: Mapping[str, object]) -> list[str]:
    """The note's other names from its frontmatter: ``aliases:`` (string or list), ``alias:``."""
    found: dict[str, None] = {}
    for key in ("aliases", "alias"):
        value = meta.get(key)
        items: Iterable[object]
        if value is None:
            continue
        if isinstance(value, str | int | float):
            items = [value]
        elif isinstance(value, list | tuple | set):
            items = value
        else:
            continue
        for item in items:
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                name = str(item).strip()
                if name:
                    found.setdefault(name, None)
    return list(found)


def fold(name: str) -> str:
    """The form names are compared in: NFC, case-folded."""
    if name.isascii():
        return name.lower()
    return unicodedata.normalize("NFC", name).casefold()


def _strip_note_suffix(path: str) -> str:
    lower = path.lower()
    for suffix in NOTE_SUFFIXES:
        if lower.endswith(suffix):
            return path[: -len(suffix)]
    return path


def _depth_order(path: str) -> tuple[int, int, str]:
    return (path.count("/"), len(path), path)


class Resolver:
    """Obsidian's rules for what a link's target means, over a fixed set of vault files.

    - ``''`` is the source note itself (``[[#Heading]]``).
    - A target with ``/`` is a path: matched exactly, then relative to the source's folder, then
      as a suffix of a path (with or without ``.md``); the shortest such path wins.
    - Otherwise a file name without extension, case-insensitive (casefold + NFC); among notes of
      the same name the shortest path wins (ties: lexicographic).  Frontmatter aliases count,
      but a note's real name beats an alias.  ``diagram.png`` names an attachment by its full name.
    - Markdown link targets are paths relative to the source note's folder, then vault-relative,
      then (a bare name, as Obsidian writes with "shortest path") by the rules above.  A path that
      climbs out of the vault (``../outside.png``) resolves to nothing.
    """

    def __init__(
        self,
        notes: Iterable[tuple[str, Sequence[str]]],
        attachments: Iterable[str] = (),
    ) -> None:
        self._by_path: dict[str, str] = {}
        self._by_name: dict[str, list[str]] = {}
        self._by_alias: dict[str, list[str]] = {}
        self._notes: set[str] = set()
        for path, names in notes:
            self._notes.add(path)
            self._by_path.setdefault(fold(path), path)
            self._by_path.setdefault(fold(_strip_note_suffix(path)), path)
            self._by_name.setdefault(fold(note_name(path)), []).append(path)
            for alias in names:
                if alias.strip():
                    self._by_alias.setdefault(fold(alias.strip()), []).append(path)
        for path in attachments:
            self._by_path.setdefault(fold(path), path)
            self._by_name.setdefault(fold(path.rsplit("/", 1)[-1]), []).append(path)
        for table in (self._by_name, self._by_alias):
            for key, paths in table.items():
                table[key] = sorted(set(paths), key=_depth_order)

    def is_note(self, path: str) -> bool:
        """``path`` is one of the notes given (not an attachment)."""
        return path in self._notes

    def resolve(
        self, target: str, source: str | None = None, *, markdown: bool = False
    ) -> str | None:
        """The vault path ``target`` (written in ``source``) means, or ``None``."""
        target = target.strip().replace("\\", "/")
        if not target:
            return source
        if markdown:
            return self._resolve_markdown(target, source)
        if target.startswith(("./", "../")):
            return self._relative(target, source)
        if "/" in target.strip("/"):
            return self._by_path_rules(target.strip("/"), source)
        return self._by_name_rules(target.strip("/"))

    def resolve_link(self, link: Link, source: str | None = None) -> str | None:
        """The vault path ``link`` (found in ``source``) points to, or ``None``."""
        return self.resolve(link.target, source, markdown=link.markdown)

    def _lookup_path(self, path: str) -> str | None:
        normal = posixpath.normpath(path)
        if normal.startswith("../") or normal in ("..", "."):
            return None
        key = fold(normal.lstrip("/"))
        return self._by_path.get(key)

    def _relative(self, target: str, source: str | None) -> str | None:
        folder = posixpath.dirname(source) if source else ""
        return self._lookup_path(posixpath.join(folder, target))

    def _by_path_rules(self, target: str, source: str | None) -> str | None:
        found = self._lookup_path(target)
        if found is None and source:
            found = self._relative(target, source)
        if found is not None:
            return found
        want = fold(_strip_note_suffix(posixpath.normpath(target)))
        name = (
            fold(note_name(target))
            if not is_attachment_name(target)
            else fold(target.rsplit("/", 1)[-1])
        )
        for path in self._by_name.get(name, []):
            key = fold(_strip_note_suffix(path)) if self.is_note(path) else fold(path)
            if key == want or key.endswith("/" + want):
                return path
        return None

    def _by_name_rules(self, target: str) -> str | None:
        if is_attachment_name(target):
            for path in self._by_name.get(fold(target), []):
                if not self.is_note(path):
                    return path
            # ``[[v1.2]]`` may still be the note ``v1.2.md``.
        key = fold(note_name(target))
        for table in (self._by_name, self._by_alias):
            for path in table.get(key, []):
                if self.is_note(path):
                    return path
        return None

    def _resolve_markdown(self, target: str, source: str | None) -> str | None:
        if target.startswith("/"):
            return self._lookup_path(target.lstrip("/"))
        relative = self._relative(target, source)
        if relative is not None:
            return relative
        if target.startswith(("./", "../")):
            return None
        normal = posixpath.normpath(target)
        if normal.startswith("../"):
            return None
        return self.resolve(target, source)
