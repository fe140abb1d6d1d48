"""The preview's budgets: how much of a note Qt's rich text is asked to lay out, whatever it holds.

Qt lays the content of a table out again for every table around it (measured: 200 KB of text
takes 0.06 s plain, 0.35 s in one table, 0.7 s in two, 13 s in six), every cell is a frame of its
own (0.3 ms each), and a word without a space takes a time that grows with its length squared.
Callouts nested 1,000 deep never finished; a table of 110,000 rows took two minutes.  So one
render of a note (its pieces and the notes it embeds together) spends from fixed budgets, and
what goes over one is still shown, in a cheaper form that says so:

- :data:`CALLOUT_DEPTH` boxes inside one another (callouts, embedded notes, the best passage): a
  callout deeper than that is a quote under its coloured title, an embed a link;
- :data:`NESTING_DEPTH` blocks inside one another (quotes, lists, tables, callouts): a deeper
  block is shown flat, its markdown lines as text;
- :data:`TABLE_CELLS` cells and :data:`TABLE_CHARS` characters drawn in tables (markdown tables
  and callout boxes): the rest of a table is its lines as text, a callout a quote;
- :data:`EMBED_CHARS` characters of embedded notes (and :data:`EMBED_READ_CHARS` read to find
  them): an embed that would go over is a link that says why;
- :data:`HTML_CHARS` characters of HTML (a tag counting :data:`TAG_CHARS`): the rest of the
  note is not shown, a line says so;
- :data:`LONG_WORD` characters in a word: a longer one gets a place to break (U+200B).

The block rules here (:func:`budget_plugin`) spend the nesting and table budgets while
markdown-it parses, so a block over budget costs nothing to parse either; :class:`BudgetRenderer`
spends the HTML budget; the plugins of :mod:`explorer.preview.obsidian` spend the others.  No Qt
here: text in, HTML out.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_block import StateBlock, blockquote, list_block, table
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

#: Boxes (callouts, embedded notes, the best passage) drawn one inside another, at most: each
#: box around a text makes Qt lay it out about twice as often.
CALLOUT_DEPTH = 3
#: Blocks Qt lays out one inside another (quotes, lists, tables, callouts), at most.  Kept
#: below markdown-it's own limit (``maxNesting``, 20 levels, a list two of them), where it
#: would drop the rest of the note.
NESTING_DEPTH = 8
#: Table cells drawn in one render (markdown tables; a callout box is two).
TABLE_CELLS = 2_000
#: Characters drawn inside tables in one render (markdown tables and callout boxes).
TABLE_CHARS = 100_000
#: Characters of embedded notes shown in one render.
EMBED_CHARS = 250_000
#: Characters of notes read in one render to embed them (each note is read once).
EMBED_READ_CHARS = 1_000_000
#: Characters of HTML one render makes, each tag counting :data:`TAG_CHARS` more: a note's HTML
#: can be fifteen times its size (400,000 embeds made 72 MB, 3 GB to hold), and Qt spends on
#: an element (10 µs, 2 KB) what it spends on some thirty characters of text.
HTML_CHARS = 10_000_000
TAG_CHARS = 15
#: Characters without a space Qt is given in one word: it lays a word out in a time that grows
#: with the square of its length (a 200 KB word took 1.5 s), so a longer one may break.
LONG_WORD = 1_000


@dataclass(eq=False)
class Budget:
    """What one render of a note has left to spend; its pieces and its embeds share one."""

    cells: int = TABLE_CELLS
    table_chars: int = TABLE_CHARS
    embedded: int = EMBED_CHARS
    read: int = EMBED_READ_CHARS
    html: int = HTML_CHARS
    cut: bool = False  # the HTML was cut where the budget ran out
    notes: dict[str, str | None] = field(default_factory=dict)  # read for embeds, by path
    #: The parts of them embedded, by path, heading and block (``None``: no such part).
    parts: dict[tuple[str, str | None, str | None], str | None] = field(default_factory=dict)

    def box(self, chars: int) -> bool:
        """Spend a callout box holding ``chars`` characters, if both table budgets allow."""
        if self.cells < 2 or chars > self.table_chars:
            return False
        self.cells -= 2
        self.table_chars -= chars
        return True


class BudgetRenderer(RendererHTML):
    """markdown-it's HTML renderer, stopping where the render's HTML budget is spent (the
    sanitiser closes the tags left open) with a line that says so."""

    def render(self, tokens: Sequence[Token], options: OptionsDict, env: EnvType) -> str:
        return self._spend(tokens, options, env, True)

    def renderInline(self, tokens: Sequence[Token], options: OptionsDict, env: EnvType) -> str:
        return self._spend(tokens, options, env, False)

    def _spend(
        self, tokens: Sequence[Token], options: OptionsDict, env: EnvType, blocks: bool
    ) -> str:
        budget = budget_of(env)
        out: list[str] = []
        for i, token in enumerate(tokens):
            if budget.html <= 0:
                if not budget.cut:
                    budget.cut = True
                    out.append(_CUT)
                break
            if blocks and token.type == "inline":  # its children are counted one by one
                out.append(self.renderInline(token.children or [], options, env))
                continue
            before = budget.html
            rule = self.rules.get(token.type)
            piece = (
                rule(tokens, i, options, env) if rule else self.renderToken(tokens, i, options, env)
            )
            cost = len(piece) + TAG_CHARS * piece.count("<")
            budget.html -= max(0, cost - (before - budget.html))  # an embed counts its own
            out.append(piece)
        return "".join(out)


_CUT = (
    '<p><span class="blocked">(the rest of this note is not shown: the preview makes at most '
    f"{HTML_CHARS:,} characters of HTML for a note; open it in your editor)</span></p>"
)


_Rule = Callable[[StateBlock, int, int, bool], bool]


def budget_of(env: EnvType) -> Budget:
    """The budget a render spends (a render given none gets its own)."""
    budget = env.get("budget")
    if not isinstance(budget, Budget):
        budget = env["budget"] = Budget()
    return budget


def budget_plugin(md: MarkdownIt) -> None:
    """Quotes, lists and tables spend the nesting budget (``env["nesting"]``: the blocks around
    the text being parsed); tables spend the table budgets."""
    chains = ("paragraph", "reference", "blockquote", "list")
    for name, rule in (("blockquote", blockquote), ("list", list_block), ("table", table)):
        alt = [chain for chain in chains if rule in md.block.ruler.getRules(chain)]
        md.block.ruler.at(name, _nested(rule, name == "table"), {"alt": alt})
    md.add_render_rule("budget_note", _render_budget_note)


def _nested(rule: _Rule, is_table: bool) -> _Rule:
    """markdown-it's block ``rule`` (a quote, a list, a table) counting the blocks it is inside:
    at :data:`NESTING_DEPTH` its block is taken flat instead (:func:`_flat`)."""

    def budgeted(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if silent:
            return rule(state, start, end, True)
        depth = int(state.env.get("nesting", 0))
        if depth >= NESTING_DEPTH:
            if not rule(state, start, end, True):
                return False
            _flat(state, start, _block_end(state, start, end))
            return True
        state.env["nesting"] = depth + 1
        try:
            if is_table:
                return _table(state, start, end)
            if rule is blockquote and depth > 0:
                end = _quoted_end(state, start, end)
            return rule(state, start, end, False)
        finally:
            state.env["nesting"] = depth

    return budgeted


def _quoted_end(state: StateBlock, start: int, end: int) -> int:
    """Where the lines of a quote that starts at ``start`` stop beginning with ``>``.

    A quote inside another block is looked for no further: markdown-it's own search goes on
    through every line its quote could lazily continue on, to the end of the outer block, and
    starts again for the next inner quote (a note of quotes growing deeper and shallower took
    minutes).  Its last paragraph still goes on lazily as markdown-it's paragraphs do."""
    line = start + 1
    while line < end and state.sCount[line] >= state.blkIndent:
        pos = state.bMarks[line] + state.tShift[line]
        if pos >= state.eMarks[line] or state.src[pos] != ">":
            break
        line += 1
    return line


def _block_end(state: StateBlock, start: int, end: int) -> int:
    """Where a block taken flat ends: at a blank line or a line of an outer block."""
    line = start + 1
    while line < end and not state.isEmpty(line) and state.sCount[line] >= state.blkIndent:
        line += 1
    return line


def _flat(state: StateBlock, start: int, end: int) -> None:
    """The lines ``start`` to ``end`` as one paragraph, a line break for each, markers and all:
    everything is shown, flattened (never dropped, as markdown-it drops the rest of a note
    nested to its own limit)."""
    lines = [state.getLines(n, n + 1, state.blkIndent, False).strip() for n in range(start, end)]
    state.line = end
    token = state.push("paragraph_open", "p", 1)
    token.map = [start, end]
    token = state.push("inline", "", 0)
    token.content = "\\\n".join(lines)  # a backslash at the end of a line: a hard break
    token.map = [start, end]
    token.children = []
    state.push("paragraph_close", "p", -1)


def _table(state: StateBlock, start: int, end: int) -> bool:
    """A markdown table, its rows drawn while the table budgets last, the rest as lines."""
    if not table(state, start, end, True):
        return False
    budget = budget_of(state.env)
    last = _table_end(state, start + 2, end)
    delimiter = state.getLines(start + 1, start + 2, state.blkIndent, False)
    columns = max(1, len(delimiter.strip().strip("|").split("|")))
    rows, chars, over = 0, 0, ""  # the rows that fit (the header first), what stops them
    for line in (start, *range(start + 2, last)):
        size = state.eMarks[line] - state.bMarks[line]
        if (rows + 1) * columns > budget.cells:
            over = f"{TABLE_CELLS:,} table cells"
        elif chars + size > budget.table_chars:
            over = f"{TABLE_CHARS:,} characters in tables"
        if over:
            break
        rows, chars = rows + 1, chars + size
    if over and rows < 2:  # not even one row under the header: all of it as lines
        _flat(state, start, last)
        _note(state, f"(the preview draws at most {over}: this table is shown as its lines)")
        return True
    table(state, start, start + rows + 1 if over else end, False)
    drawn = [start, *range(start + 2, state.line)]
    budget.cells -= columns * len(drawn)
    budget.table_chars -= sum(state.eMarks[n] - state.bMarks[n] for n in drawn)
    if over and state.line < last:
        _flat(state, state.line, last)
        _note(state, f"(the preview draws at most {over}: the rest of this table is its lines)")
    return True


def _table_end(state: StateBlock, line: int, end: int) -> int:
    """Where the rows of a table starting before ``line`` end, as markdown-it ends them."""
    terminators = state.md.block.ruler.getRules("blockquote")
    while (
        line < end
        and not state.isEmpty(line)
        and 0 <= state.sCount[line] - state.blkIndent < 4
        and not any(rule(state, line, end, True) for rule in terminators)
    ):
        line += 1
    return line


def _note(state: StateBlock, text: str) -> None:
    token = state.push("budget_note", "", 0)
    token.content = text


def _render_budget_note(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return f'<p><span class="blocked">{html.escape(tokens[idx].content)}</span></p>'


_TAG = re.compile(r"(<[^>]*>)")
_WORD = re.compile(rf"(?:[^\s<&]|&#?\w+;){{{LONG_WORD}}}(?=[^\s<])")


def break_long_words(fragment: str) -> str:
    """``fragment`` (HTML) with a zero-width space after every :data:`LONG_WORD` characters of a
    word in its text, outside ``<pre>`` (which Qt does not wrap, and lays out quickly)."""
    if len(fragment) <= LONG_WORD:
        return fragment
    pieces = _TAG.split(fragment)
    pre = False
    for n in range(0, len(pieces), 2):
        if n:
            tag = pieces[n - 1].lower()
            if tag.startswith(("<pre", "</pre")):
                pre = not tag.startswith("</")
        if not pre and len(pieces[n]) > LONG_WORD:
            pieces[n] = _WORD.sub(lambda m: m.group(0) + "\u200b", pieces[n])
    return "".join(pieces)
