"""``bench``'s figure of the warm path: a ``search`` a command asks a running watch or window for,
over the socket (:mod:`explorer.mcp.warm`), against the same search made by the serving process
itself, as the window makes it — one reader, the same queries, interleaved, each query's vector
already embedded (the first, untimed round embeds them and reads the vector matrix).

What the socket adds is the request's JSON both ways, the server's check of it and the
answer's text; a command run from a terminal adds its own start (``bench --startup``: "search,
warm, watch running").
"""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path
from typing import Any

from explorer.embed.provider import EmbedderProvider
from explorer.evaluate.stats import percentiles, time_ms
from explorer.index.db import index_path
from explorer.live import serve
from explorer.mcp.requests import Answered, SearchRequest, asked_for
from explorer.mcp.warm import WarmServer
from explorer.search.query.options import SearchOptions


def time_served(
    vault: Path,
    index_file: Path,
    scratch: Path,
    queries: list[str],
    provider: EmbedderProvider,
) -> dict[str, Any]:
    """p50/p95/max of each query searched through a :class:`WarmServer` over ``vault``'s index
    (a copy of ``index_file``, checkpointed, in a data folder under ``scratch``) and by its
    reader directly, and the ratio of their medians; ``{"skipped": why}`` when this process
    cannot serve (no ``AF_UNIX``)."""
    data = str(scratch / "served-data")
    index = index_path(vault, data)
    index.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(index_file, index)
    server = WarmServer(vault, data, provider, "bench")
    if not server.start():
        server.reader.close()
        return {"skipped": server.reason}
    options = SearchOptions()
    wanted = asked_for(vault.resolve(), data, provider.name)

    def direct(query: str) -> None:
        server.reader.search(query, options)

    def served(query: str) -> None:
        fields = {**wanted, "request": SearchRequest(query, options).fields()}
        reply = serve.ask(index, "search", fields)
        if reply is None or Answered.from_wire(reply) is None:
            raise RuntimeError(f"the warm server did not answer {query!r}")

    try:
        for query in queries:  # the matrix read, every query's vector embedded
            direct(query)
        times: dict[str, list[float]] = {"direct": [], "served": []}
        for query in queries:
            times["direct"].append(time_ms(partial(direct, query)))
            times["served"].append(time_ms(partial(served, query)))
        answered = server.answered
    finally:
        server.stop()
    figures: dict[str, Any] = {name: percentiles(ms) for name, ms in times.items()}
    figures["answered"] = answered
    figures["servedOverDirectP50"] = round(
        figures["served"]["p50"] / max(figures["direct"]["p50"], 1e-9), 2
    )
    return figures


def format_served(figures: dict[str, Any]) -> list[str]:
    """The lines ``bench`` prints for :func:`time_served`'s figures."""
    if "skipped" in figures:
        return [f"warm path: not measured ({figures['skipped']})"]
    lines = ["warm path (ms, query vector ready)     p50     p95     max"]
    for key, label in (
        ("direct", "search in the serving process"),
        ("served", "the same, asked over its socket"),
    ):
        p = figures[key]
        lines.append(f"  {label:<34}{p['p50']:>8.2f}{p['p95']:>8.2f}{p['max']:>8.2f}")
    lines.append(f"  {'socket / in process, p50':<34}{figures['servedOverDirectP50']:>8.2f}x")
    return lines
