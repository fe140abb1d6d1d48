"""A command's request answered (:mod:`explorer.mcp.requests`), and the text of its answer.

The one function that answers ``search``, ``explain`` and ``related``, whoever asks: a running
``watch`` or window over the warm path (:mod:`explorer.mcp.warm`), or the command's own process
when none runs (:func:`explorer.commands.warm.alone`) — through a
:class:`~explorer.mcp.reader.VaultReader`, the MCP tools' reader.
"""

from __future__ import annotations

from pathlib import Path

from explorer.errors import Fault, classify
from explorer.index.db import index_command
from explorer.live.problems import fault_line
from explorer.mcp.reader import VaultReader
from explorer.mcp.requests import Answered, ExplainRequest, Request, SearchRequest
from explorer.search.answers.answer import Answer, waiting_text
from explorer.search.answers.related import LINK_MARK, RelatedNotes
from explorer.search.answers.verdict import closeness
from explorer.search.fusion.results import SearchResponse
from explorer.search.query.options import Mode


def answer(reader: VaultReader, request: Request, vault: Path, data: str | None) -> Answered:
    """``request`` answered by ``reader``, the lines and notes naming the vault as the asking
    command named it (``vault``, its data folder ``data``).  The person's error or the
    machine's is an :class:`Answered` with its line; a bug is raised."""
    try:
        if isinstance(request, SearchRequest):
            found = reader.search(request.query, request.options)
            return Answered(
                found.to_json(), table_lines(found.response), waiting(found, vault, data)
            )
        if isinstance(request, ExplainRequest):
            why = reader.explain(request.query, request.path, request.options)
            return Answered(why.to_json(), why.lines())
        near = reader.related(request.path, request.limit)
        return Answered(near.to_json(), related_lines(near, vault, data))
    except Exception as exc:
        fault = classify(exc)
        if fault is Fault.BUG:
            raise
        return Answered(
            error=fault_line(exc, fault, vault, data), status=2 if fault is Fault.USER else 1
        )


# ----------------------------------------------------------------------------- the text


def waiting(found: Answer, vault: Path, data: str | None) -> list[str]:
    """The note a search's answer leaves when chunks still wait for their vectors."""
    if not found.waiting or found.response.listing:
        return []
    using = "results use the vectors that exist" if found.any_vectors else "results are lexical"
    return [
        f"vault-explorer: {waiting_text(found.waiting)}; run `{index_command(vault, data)}` "
        f"(or `watch`) to embed them — {using}"
    ]


def table_lines(response: SearchResponse) -> list[str]:
    """The readable form of a response: one row a hit, scores to five decimals."""
    out: list[str] = []
    sem = response.semantic
    mode = response.options.mode
    if mode != Mode.FTS and not sem.available and not response.listing:
        out.append(f"(semantic unavailable: {sem.reason}; showing the lexical result)")
    if response.listing:
        out.append(response.listing_text())
    elif response.hits:
        shown = response.query if len(response.query) <= 60 else response.query[:57] + "…"
        if (verdict := closeness(response, f"‘{shown}’")) is not None:
            out.append(verdict)
    recency = bool(response.options.recency) and not response.listing  # a third contribution
    titled = any("title" in hit.contributions for hit in response.hits)  # a name matches
    out.append(
        f"{'#':>3}  {'fused':>7}  {'fts':>7}  {'vector':>7}  "
        + (f"{'title':>7}  " if titled else "")
        + (f"{'recency':>7}  " if recency else "")
        + f"{'fts#':>4}  {'vec#':>4}  {'source':<6}  path — title"
    )
    for i, hit in enumerate(response.hits, start=1):
        # Sorted otherwise, each hit keeps its fused rank (the window's #).
        rank = hit.fused_rank or i
        c = hit.contributions
        out.append(
            f"{rank:>3}  {hit.fused_score:7.5f}  {c.get('fts', 0.0):7.5f}  "
            f"{c.get('vector', 0.0):7.5f}  "
            + (f"{c.get('title', 0.0):7.5f}  " if titled else "")
            + (f"{c.get('recency', 0.0):7.5f}  " if recency else "")
            + f"{_rank(hit.fts_rank):>4}  {_rank(hit.vector_rank):>4}  {hit.source or '':<6}  "
            f"{hit.path} — {hit.title}{'  [stale]' if hit.demoted else ''}"
        )
    if not response.hits:
        out.append("no results")
    return out


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


def related_lines(result: RelatedNotes, vault: Path, data: str | None) -> list[str]:
    """One line a note: rank, cosine to four decimals, whether it is linked, path — title."""
    out = [f"related to {result.path} — {result.title}"]
    if result.reason is not None:
        out.append(f"no related notes: {result.reason} (run `{index_command(vault, data)}`)")
        return out
    out.append(f"{'#':>3}  {'cosine':>6}  {'link':<8}  path — title")
    for i, note in enumerate(result.notes, start=1):
        mark = LINK_MARK.get(note.direction, "") if result.links_known else "?"
        out.append(f"{i:>3}  {note.cosine:6.4f}  {mark:<8}  {note.path} — {note.title}")
    if not result.notes:
        out.append("no other note is near it in meaning (every cosine is 0 or below)")
    return out
