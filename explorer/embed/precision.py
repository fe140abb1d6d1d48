"""The arithmetic the embedding model runs in: float32, or bfloat16 where the CPU does it natively.

On a CPU with native bfloat16 dot products (AVX-512 BF16, AMX, Arm's BF16) the model with its
weights cast to bfloat16 once runs about twice as fast per CPU second as in float32 (autocast,
which casts each product's inputs on every call, gave 1.4-1.6x); the vector is pooled from the
bfloat16 states and normalised in float32.  The vectors keep a cosine above 0.9998 to the
float32 ones, so the two are stored under the same model name and mixed freely (a vault embedded
on one machine is searched on another without re-embedding).  Without native support bfloat16
is emulated and can be slower than float32, so ``auto`` (the default) uses it only where the CPU
reports support *and* the first batches it embeds do not measure it slower
(:class:`PrecisionPicker`).
``VAULT_EXPLORER_PRECISION=fp32`` (or ``bf16``) forces one.
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from explorer.embed.base import EmbedderUnavailable

ENV_PRECISION = "VAULT_EXPLORER_PRECISION"
FP32 = "fp32"
BF16 = "bf16"
AUTO = "auto"
CHOICES = (AUTO, FP32, BF16)

#: ``auto`` keeps bfloat16 unless it is measured below this fraction of float32's speed...  Not
#: above 1: with native support bfloat16 is the faster (about 2x the chunks per CPU second on an
#: AVX-512 BF16 machine), but its first batches build kernels for each new shape and undersell
#: it, and on a shared machine one batch can be slowed by a neighbour.  Emulated bfloat16 is far
#: slower, and that is what the measuring is for.
MIN_SPEEDUP = 0.9
#: ...on this many timed batches of each...
TIMED_BATCHES = 2
#: ...of at least this many texts (a query's one text says little about the model's speed).
MIN_TIMED_BATCH = 8
#: ...or, where the caller gives a batch's padded word pieces, of at least this many (a passage
#: batch of 1,024 word pieces holds 4-8 chunks; a question is a few dozen).
MIN_TIMED_WORK = 512


@dataclass(frozen=True, slots=True)
class Precision:
    """The precision an embedder runs in, and why (shown by ``bench`` and ``eval``)."""

    name: str
    reason: str
    #: bfloat16's speed over float32's as measured (``None``: not measured).
    speedup: float | None = None


def precision_of(embedder: object) -> Precision | None:
    """The precision ``embedder`` runs in, if it says (a model's does; a test fake's does not)."""
    precision = getattr(embedder, "precision", None)
    return precision if isinstance(precision, Precision) else None


def requested_precision(choice: str | None = None) -> str:
    """``choice``, else ``VAULT_EXPLORER_PRECISION``, else ``auto``; one of :data:`CHOICES`."""
    value = (choice or os.environ.get(ENV_PRECISION) or AUTO).strip().lower()
    if value not in CHOICES:
        raise EmbedderUnavailable(
            f"{ENV_PRECISION} must be one of {', '.join(CHOICES)}, not {value!r}"
        )
    return value


def native_bf16() -> bool:
    """Whether this CPU computes bfloat16 dot products natively (not by emulation)."""
    import torch

    if platform.machine().lower() in ("x86_64", "amd64", "i686", "x86"):
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    try:  # Linux on Arm lists "bf16" among the CPU features
        info = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return False
    return any(
        line.lower().startswith(("features", "flags")) and "bf16" in line.split(":", 1)[-1].split()
        for line in info.splitlines()
    )


class PrecisionPicker:
    """Picks the precision of each batch, and settles ``auto`` by timing the first real ones.

    Forced, or on a CPU without native bfloat16, the answer is fixed at once.  Otherwise the
    first batches of at least :data:`MIN_TIMED_BATCH` texts alternate between float32 and
    bfloat16 (the first of each only warms its kernels up), and once each has
    :data:`TIMED_BATCHES` timed batches their speeds are compared in ``work`` per second (the
    model's work on a batch: its padded word pieces; characters by default), and bfloat16 is
    kept unless it ran at less than :data:`MIN_SPEEDUP` times float32's speed.  The measuring
    costs nothing but the few batches run in float32; smaller batches (queries) meanwhile run in
    bfloat16.
    Not thread-safe: the embedder calls it under its lock.
    """

    def __init__(
        self,
        requested: str,
        *,
        native: bool,
        work: Callable[[list[str]], int] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._work = work or (lambda texts: sum(len(t) for t in texts))
        self._clock = clock
        self._seen: dict[str, int] = {FP32: 0, BF16: 0}
        self._timed: dict[str, list[tuple[int, float]]] = {FP32: [], BF16: []}
        self.chosen: Precision | None = None
        if requested in (FP32, BF16):
            self.chosen = Precision(requested, f"set by {ENV_PRECISION}")
        elif not native:
            self.chosen = Precision(FP32, "this CPU has no native bfloat16")

    @property
    def current(self) -> Precision:
        """The precision chosen, or while ``auto`` is still measuring, bfloat16 for now."""
        return self.chosen or Precision(BF16, "measuring bf16 against fp32 on the first batches")

    @contextlib.contextmanager
    def run(self, texts: list[str], work: int | None = None) -> Iterator[str]:
        """Embed ``texts`` inside this, in the precision it yields; it times the batch if that
        helps decide.  ``work``: the batch's work if the caller knows it (else ``work(texts)``)."""
        small = len(texts) < MIN_TIMED_BATCH if work is None else work < MIN_TIMED_WORK
        if self.chosen is not None or small:
            yield self.current.name
            return
        name = FP32 if self._seen[FP32] <= self._seen[BF16] else BF16
        started = self._clock()
        yield name
        seconds = self._clock() - started
        self._seen[name] += 1
        if self._seen[name] > 1:  # the first batch of each precision builds its kernels
            self._timed[name].append((self._work(texts) if work is None else work, seconds))
        if all(len(samples) >= TIMED_BATCHES for samples in self._timed.values()):
            self.chosen = self._decide()

    def _decide(self) -> Precision:
        rate = {
            name: sum(c for c, _ in samples) / max(sum(s for _, s in samples), 1e-9)
            for name, samples in self._timed.items()
        }
        speedup = round(rate[BF16] / rate[FP32], 2) if rate[FP32] > 0 else None
        reason = f"bf16 measured {speedup}x the speed of fp32"
        if speedup is None or speedup < MIN_SPEEDUP:
            return Precision(FP32, reason, speedup)
        return Precision(BF16, reason, speedup)
