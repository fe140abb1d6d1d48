"""A filter's value written into a query and read back: one rule for every filter.

A value is written bare when it is a plain word (letters, digits, ``_``, and ``/ . - + @ #``
after the first character: ``ops``, ``dev/``, ``2024-03``); any other is written in double
quotes, each ``"`` in it doubled, as FTS5 and SQL write theirs: ``path:"my notes/"``,
``[kind:"a]b"]``, ``[say:"a ""quoted"" word"]``.  :func:`unquoted` reads a quoted value back
exactly; the parser (:func:`explorer.search.query.query.parse_query`) reads every filter's value
with it.  :func:`filter_text` writes a whole filter: what the Facets panel, the preview's
breadcrumb and tags, and ``explain``'s lines write, so that the parser finds the notes the
value names (a folder with a space, a value holding ``]`` or ``:``, any script).

Control characters are no part of any filter the parser reads (a query's are spaces), nor are
the invisible ones :func:`explorer.index.text.drop_invisible` removes.
"""

from __future__ import annotations

import re

#: A value that reads back as itself without quotes.
_BARE = re.compile(r"\A\w[\w/.@+#-]*\Z")
#: A quoted value: ``"`` … ``"``, a ``""`` inside it one ``"``; unclosed at the end of a query.
QUOTED = r'"(?:[^"]|"")*(?:"|$)'
#: The filters written ``kind:VALUE``.
KINDS = ("tag", "path", "linkto", "linkedfrom")


def quoted(value: str) -> str:
    """``value`` as query text that :func:`unquoted` (or a bare reading) gives back."""
    return value if _BARE.match(value) else '"' + value.replace('"', '""') + '"'


def unquoted(text: str) -> str:
    """A value as written: a quoted one without its quotes (a ``""`` in it one ``"``, an
    unclosed one to its end), a bare one as it is."""
    if not text.startswith('"'):
        return text
    inner = text[1:-1] if len(text) > 1 and _closed(text) else text[1:]
    return inner.replace('""', '"')


def filter_text(kind: str, value: str, name: str = "") -> str:
    """The query text of a filter: ``kind:VALUE`` for the :data:`KINDS` (``tag:ops``,
    ``path:"my notes/"``), or a property's ``[name:VALUE]`` (``kind`` ``"property"``)."""
    if kind == "property":
        return f"[{quoted(name)}:{quoted(value)}]"
    if kind not in KINDS:
        raise ValueError(f"unknown filter {kind!r}")
    return f"{kind}:{quoted(value)}"


def _closed(text: str) -> bool:
    """Whether the quoted ``text`` ends with its closing quote (not a doubled one)."""
    body = text[1:]
    run = len(body) - len(body.rstrip('"'))
    return run % 2 == 1
