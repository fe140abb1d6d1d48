"""A question typed while the vault embeds: how long its embedding takes, idle and busy.

The live index embeds a vault's chunks on a background thread, :data:`EMBED_BATCH` chunks per
call, with the same model a search embeds its question with (:mod:`explorer.embed.gate`).  This
measures, in one run: the question's embedding alone; the same while a background thread embeds
the vault's chunks as the live index does, at the passage batch the model uses and at the whole
word-piece budget in one turn (a question runs beside either); and the background throughput
each costs.  ``vault-explorer bench --while-embedding`` prints it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from explorer.embed.base import Embedder, embed_queries
from explorer.embed.threads import lower_this_thread
from explorer.evaluate.stats import percentiles
from explorer.jobs import PriorityExecutor
from explorer.live.embedder import EMBED_BATCH

#: Pause between two questions while the background embeds: a person types, reads, types again.
BETWEEN_QUESTIONS = 0.2


def _question_ms(embedder: Embedder, question: str) -> float:
    started = time.perf_counter()
    embed_queries(embedder, [question])
    return (time.perf_counter() - started) * 1000


#: Where the vault is embedded in the background while questions are timed.
_BACKGROUND = PriorityExecutor("bench-background-embedding")


def _background(
    embedder: Embedder, passages: list[str], stop: threading.Event, first: threading.Event
) -> Callable[[], dict[str, float]]:
    """Start embedding ``passages`` (:data:`EMBED_BATCH` a call, round and round) until
    ``stop``; returns what to call for its chunks per second once stopped."""

    def run() -> dict[str, float]:
        lower_this_thread()
        started = time.perf_counter()
        position = chunks = 0
        try:
            while not stop.is_set():
                batch = passages[position : position + EMBED_BATCH] or passages[:EMBED_BATCH]
                position = (position + EMBED_BATCH) % max(1, len(passages))
                embedder.embed(batch)
                chunks += len(batch)
                first.set()
        finally:
            first.set()  # nobody waits for a first batch that will not come
        seconds = (time.perf_counter() - started) or 1e-9
        return {"chunksPerSecond": round(chunks / seconds, 1), "chunks": chunks}

    job = _BACKGROUND.submit(run)

    def finish() -> dict[str, float]:
        stop.set()
        return job.result()  # raises what stopped it, if anything did

    return finish


def _busy(
    embedder: Embedder, passages: list[str], questions: list[str]
) -> tuple[dict[str, float], dict[str, float]]:
    stop, first = threading.Event(), threading.Event()
    finish = _background(embedder, passages, stop, first)
    timings = []
    try:
        first.wait()
        for question in questions:
            if stop.is_set():
                break
            timings.append(_question_ms(embedder, question))
            time.sleep(BETWEEN_QUESTIONS)
    finally:
        background = finish()  # stops the thread; raises what stopped it, if anything did
    return percentiles(timings), background


def _alone(embedder: Embedder, passages: list[str], seconds: float) -> dict[str, float]:
    stop, first = threading.Event(), threading.Event()
    finish = _background(embedder, passages, stop, first)
    try:
        first.wait()
        time.sleep(seconds)
    finally:
        background = finish()
    return background


def query_while_embedding(
    embedder: Embedder, passages: list[str], questions: list[str]
) -> dict[str, Any]:
    """The figures of this module's docstring, for ``embedder`` (a model with a passage
    batch, :class:`~explorer.embed.sbert.SentenceTransformerEmbedder`, is measured at both
    batches; any other at the one it has)."""
    if not passages or not questions:
        raise ValueError("no chunks or no questions to measure with")
    for question in questions[:3]:  # warm the model's first-call paths
        embed_queries(embedder, [question])
    idle = percentiles([_question_ms(embedder, q) for q in questions])
    out: dict[str, Any] = {"questions": len(questions), "idleMs": idle, "busy": {}}
    budgets: list[int | None] = [None]
    tokens = getattr(embedder, "passage_tokens", None)
    whole = getattr(embedder, "token_budget", None)
    if isinstance(tokens, int) and isinstance(whole, int) and whole != tokens:
        budgets = [tokens, whole]
    for budget in budgets:
        if budget is not None:
            embedder.passage_tokens = budget  # type: ignore[attr-defined]
        try:
            busy, background = _busy(embedder, passages, questions)
            window = max(1.0, background["chunks"] / max(background["chunksPerSecond"], 1e-9))
            alone = _alone(embedder, passages, min(window, 10.0))
        finally:
            if budget is not None:
                embedder.passage_tokens = tokens  # type: ignore[attr-defined]
        label = "model" if budget is None else f"{budget} word pieces a turn"
        out["busy"][label] = {
            "questionMs": busy,
            "overIdleP95": round(busy["p95"] / idle["p95"], 2) if idle["p95"] else None,
            "backgroundChunksPerSecond": background["chunksPerSecond"],
            "backgroundAloneChunksPerSecond": alone["chunksPerSecond"],
        }
    return out


def format_contention(figures: dict[str, Any]) -> list[str]:
    """The lines ``bench`` prints for :func:`query_while_embedding`'s figures."""
    idle = figures["idleMs"]
    lines = [
        f"query embedding while the vault embeds ({figures['questions']} questions, a pause of "
        f"{BETWEEN_QUESTIONS:g} s between them)",
        f"  idle{'':<30}p50 {idle['p50']:>7.1f} ms  p95 {idle['p95']:>7.1f} ms",
    ]
    for label, busy in figures["busy"].items():
        q = busy["questionMs"]
        lines.append(
            f"  busy, {label:<28}p50 {q['p50']:>7.1f} ms  p95 {q['p95']:>7.1f} ms "
            f"({busy['overIdleP95']}x idle p95); background {busy['backgroundChunksPerSecond']} "
            f"chunks/s (alone {busy['backgroundAloneChunksPerSecond']})"
        )
    return lines
