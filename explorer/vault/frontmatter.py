"""A note's YAML frontmatter, read safely: only the fields the index uses, each within a budget.

YAML says a lot in few bytes.  Nine anchors, each a list of nine uses of the one before (a
"billion laughs"), stand for 9**9 strings in 500 bytes; PyYAML builds them cheaply as shared
references, and the first ``str()`` or loop over the value expands them (measured: 46 s and 3 GB
before a ``MemoryError`` for one field of one note).  So nothing here builds the document:
the block is *composed* (PyYAML's node graph, where an alias is the very node it names, copied
never), and only the fields of :data:`FIELDS` are built, each only if its node is of the
field's shape (a scalar; for the list fields a scalar or a list of scalars) and its text, every
use of an anchor counted again, stays within :data:`MAX_FIELD_CHARS`.  A field that fails is
left out and named in a warning; the other fields and the body are read as usual.  Keys not in
:data:`FIELDS` are never built, so a value YAML cannot build there (an impossible date, a tag
nobody defines) costs nothing either.

Frontmatter that is not a mapping, is not valid YAML, is nested too deeply or is longer than
:data:`MAX_BLOCK_CHARS` is kept as body text, with a warning.

The block is composed by libyaml (PyYAML's ``CSafeLoader``, 4× faster than its pure-Python
composer) where PyYAML was built with it, and only where the two are known to agree
(:func:`_composer`): libyaml composes nested values by C recursion, with no limit of its own
(30,000 brackets crash the process), so a block that *could* nest deeper than
:data:`FAST_NESTING` goes to the pure-Python composer, whose recursion limit ends in "nested too
deeply"; so does a block holding anything the two are known to read differently (a tab, a
backslash, a lone surrogate: :data:`_READ_APART`).  Each loader refuses the same blocks with
the same warning; only the detail in its parentheses is worded by the loader.  The index
(:func:`explorer.vault.parse.parse_note`) and the preview read frontmatter through
:func:`read_frontmatter` alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

#: The frontmatter block: ``---`` on the first line, up to a line ``---`` or ``...``.
BLOCK = re.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
#: Fields holding one value …
SCALAR_FIELDS = ("title", "status")
#: … and fields holding one value or a list of them.
LIST_FIELDS = ("tags", "aliases", "alias")
FIELDS = SCALAR_FIELDS + LIST_FIELDS
#: A longer frontmatter block is kept as text (Obsidian's properties are a few hundred bytes).
MAX_BLOCK_CHARS = 64 * 1024
#: Characters a field's value may hold, every use of an anchor counted again (one more per
#: list item, so a list of empty strings is not free).
MAX_FIELD_CHARS = 4096
#: Properties read from one note (its first ones, in order): Obsidian notes have a handful.
MAX_PROPERTIES = 64
#: A property's name longer than this is not read as a property.
MAX_PROPERTY_NAME = 200
#: libyaml composes a block only if fewer of its characters than this could open a nested value
#: (``[``, ``{``, ``:``, ``-``, ``?``: no value nests deeper than that count).  Well inside the
#: pure-Python composer's reach (about 450 levels under Python's recursion limit), so both
#: compose every block that goes to libyaml; a real block has a few dozen.
FAST_NESTING = 200
#: libyaml's loader, where PyYAML has it; else every block is composed in Python.
FAST_LOADER: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)

#: What the two loaders read differently (found by composing random blocks with each): a tab
#: (PyYAML refuses one after a colon, libyaml reads it), a backslash (libyaml refuses the escape
#: of a lone surrogate, ``"\\ud800"``, which PyYAML makes and the parser then replaces), a
#: byte-order mark within the text, a block scalar's header followed at once by ``#`` (libyaml
#: reads it as empty, PyYAML refuses it), and a lone surrogate (libyaml cannot take one in).
#: Also a ``?`` where a flow collection may be (PyYAML refuses ``[Why?]``, see :func:`_composer`).
_READ_APART = re.compile("[\t\\\\\ufeff\ud800-\udfff]|[|>][-+0-9]{0,2}#")
_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """What a note's frontmatter says to the index."""

    #: The fields of :data:`FIELDS` that were read: a scalar as YAML types it (``str``, ``int``,
    #: ``float``, ``bool``, ``None``, a date), or for :data:`LIST_FIELDS` a list of those.
    fields: dict[str, object]
    #: Where the body starts: after the block, or 0 (no frontmatter, or kept as text).
    end: int
    warnings: tuple[str, ...] = ()
    #: Every property of the block (Obsidian's "properties": a key holding a value or a list
    #: of values), read by the same rules and budget as :attr:`fields`, in the block's order;
    #: at most :data:`MAX_PROPERTIES`.  A property of another shape (a mapping, a list of
    #: lists) or over the budget is left out silently, unless it is one of :data:`FIELDS`,
    #: whose warning :attr:`warnings` holds.
    properties: dict[str, object] = field(default_factory=dict)


class _Refused(Exception):
    """A field's value is not read; the message says why."""


def read_frontmatter(text: str) -> Frontmatter:
    """The frontmatter at the start of ``text`` (lines ending in ``\\n``)."""
    match = BLOCK.match(text)
    if not match:
        return Frontmatter({}, 0)
    block = match.group(1) or ""
    if len(block) > MAX_BLOCK_CHARS:
        return _kept(f"frontmatter is longer than {MAX_BLOCK_CHARS:,} characters, kept as text")
    try:
        root = yaml.compose(block, Loader=_composer(block))
    except yaml.YAMLError as exc:
        return _kept(f"frontmatter is not valid YAML, kept as text ({_first_line(exc)})")
    except RecursionError:  # PyYAML composes nested values recursively
        return _kept("frontmatter is nested too deeply, kept as text")
    if root is None or (isinstance(root, ScalarNode) and root.tag == _NULL):
        return Frontmatter({}, match.end())
    if not isinstance(root, MappingNode):
        return _kept("frontmatter is not a mapping, kept as text")
    nodes: dict[str, Node] = {}
    for key, value in root.value:
        if not (isinstance(key, ScalarNode) and key.tag == _STR):
            continue
        if key.value in FIELDS or (
            len(nodes) < MAX_PROPERTIES and 0 < len(key.value.strip()) <= MAX_PROPERTY_NAME
        ):
            nodes[key.value] = value
    constructor = SafeConstructor()
    fields: dict[str, object] = {}
    properties: dict[str, object] = {}
    warnings = []
    for name, node in nodes.items():
        try:
            value = _field(constructor, name, node, lists=True)
        except _Refused as exc:
            if name in FIELDS:
                warnings.append(f"frontmatter `{name}` skipped: {exc}")
            continue
        properties[name] = value
        if name in FIELDS:
            if isinstance(value, list) and name not in LIST_FIELDS:
                warnings.append(f"frontmatter `{name}` skipped: not a single value")
            else:
                fields[name] = value
    return Frontmatter(fields, match.end(), tuple(warnings), properties)


def _composer(block: str) -> type[yaml.SafeLoader]:
    """The loader that composes ``block``: libyaml's where it reads it as PyYAML's own does
    and cannot recurse past :data:`FAST_NESTING`, else PyYAML's (see the module's note)."""
    if (
        FAST_LOADER is None
        or sum(map(block.count, "[{:-?")) > FAST_NESTING
        or _READ_APART.search(block) is not None
        or ("?" in block and ("[" in block or "{" in block))
    ):
        return yaml.SafeLoader
    return FAST_LOADER


def _kept(warning: str) -> Frontmatter:
    return Frontmatter({}, 0, (warning,))


def _field(constructor: SafeConstructor, name: str, node: Node, *, lists: bool = False) -> object:
    """The value of field ``name``, built from ``node`` only within the field's shape and
    budget (the size is counted on the nodes, before anything is built); ``lists``: any
    field may hold a list of values."""
    if isinstance(node, ScalarNode):
        _charge(len(node.value))
        return _scalar(constructor, node)
    if name not in LIST_FIELDS and not lists:
        raise _Refused("not a single value")
    if not isinstance(node, SequenceNode):
        raise _Refused("not a value or a list of values")
    size = 0
    for item in node.value:
        if not isinstance(item, ScalarNode):
            raise _Refused("a list holding lists or mappings")
        size += len(item.value) + 1
        _charge(size)
    return [_scalar(constructor, item) for item in node.value]


def _charge(size: int) -> None:
    if size > MAX_FIELD_CHARS:
        raise _Refused(f"longer than {MAX_FIELD_CHARS:,} characters (anchors counted as used)")


def _scalar(constructor: SafeConstructor, node: ScalarNode) -> object:
    try:
        value = constructor.construct_object(node)
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a date such as 2024-13-45
        raise _Refused(f"cannot be read ({_first_line(exc)})") from None
    if isinstance(value, bytes):
        raise _Refused("binary data, not text")
    return value


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
