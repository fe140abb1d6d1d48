"""``vault-explorer watch VAULT``: keep the index current until interrupted, logging each batch.

Headless: another process can search the index meanwhile (``search --no-sync``, ``status``).
Ctrl-C and SIGTERM stop it cleanly — the writer finishes the transaction it is in — and the
command exits with status 0.  SIGUSR1 pauses embedding after the batch under way and SIGUSR2
resumes it (``kill -USR1 PID``, ``kill -USR2 PID``: two commands with a state, not a toggle, so
that a signal sent twice is no resume; lexical updates go on meanwhile, and ``status`` says
"embedding paused" with the chunks waiting); on battery it pauses by itself
(:mod:`explorer.live.power`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from explorer.commands.common import add_embed_threads, apply_embed_threads
from explorer.console import UsageError, finite_float, vault_folder
from explorer.display import safe_text

if TYPE_CHECKING:
    from explorer.live import LiveEvent

#: Seconds between two "embedding N/M" lines (the end of a run is always logged).
PROGRESS_EVERY = 5.0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("watch", parents=[common], help="keep the index current until interrupted")
    p.add_argument("vault")
    p.add_argument("--no-embed", action="store_true", help="lexical index only")
    p.add_argument(
        "--reconcile-interval",
        type=finite_float,
        default=300.0,
        metavar="S",
        help="full stat-scan reconcile every S seconds (default 300), for missed events",
    )
    p.add_argument(
        "--idle-exit",
        type=finite_float,
        default=None,
        metavar="S",
        help="stop after S seconds without a search, explain or related to answer (what the "
        "watch a search leaves behind does; default: run until interrupted)",
    )
    add_embed_threads(p)
    p.set_defaults(func=cmd_watch)


class EventPrinter:
    """Writes events as timestamped lines: batches and notices to ``out``, errors to ``err``.

    Messages carry note paths and error texts from the vault: control and bidi characters in
    them are shown as escapes, never sent to the terminal raw."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self._last_progress = 0.0
        self._lock = threading.Lock()
        self.errors: list[str] = []

    def __call__(self, event: LiveEvent) -> None:
        from explorer.live import SyncEvent  # loaded already: the watch runs

        if event.kind == "embed-progress":
            if event.time - self._last_progress < PROGRESS_EVERY:
                return
            self._last_progress = event.time
        stream = self.err if event.kind == "error" else self.out
        if event.kind == "error":
            self.errors.append(event.message)
        self.line(event.message, event.time, stream)
        if isinstance(event, SyncEvent) and event.report is not None:
            for path, reason in sorted(event.report.skipped.items()):
                self.line(f"  skipped {path}: {reason}", event.time, stream)

    def line(self, message: str, when: float | None = None, stream: TextIO | None = None) -> None:
        when = time.time() if when is None else when
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
        with self._lock:
            stream = stream or self.out
            stream.write(f"{stamp}.{int(when % 1 * 1000):03d} {safe_text(message)}\n")
            stream.flush()


def cmd_watch(args: argparse.Namespace) -> int:
    from explorer.embed.provider import EmbedderProvider, shared_provider
    from explorer.live import LiveIndex
    from explorer.mcp.warm import serve_vault

    vault = vault_folder(args.vault)
    if not args.reconcile_interval > 0:
        raise UsageError(f"--reconcile-interval must be positive, got {args.reconcile_interval:g}")
    if args.idle_exit is not None and not args.idle_exit > 0:
        raise UsageError(f"--idle-exit must be positive, got {args.idle_exit:g}")
    provider = (
        EmbedderProvider.disabled("--no-embed: lexical index only")
        if args.no_embed
        else shared_provider(args.model)
    )
    live = LiveIndex(
        vault,
        args.data_dir,
        provider,
        reconcile_interval=args.reconcile_interval,
        role="vault-explorer watch",
        share=False,  # a second watch would only duplicate the first: say who has the index
    )
    printer = EventPrinter(sys.stdout, sys.stderr)
    live.subscribe(printer)
    stop = threading.Event()
    wake = threading.Event()  # a signal came: look at ``stop`` and ``paused``
    paused = [False]  # what the last SIGUSR1 (pause) or SIGUSR2 (resume) asked for
    pause_signal = getattr(signal, "SIGUSR1", None)  # neither on Windows
    resume_signal = getattr(signal, "SIGUSR2", None)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()
        wake.set()

    def on_pause(signum: int, frame: FrameType | None) -> None:
        paused[0] = signum == pause_signal
        wake.set()

    # Ctrl-C sets the same event as SIGTERM rather than raising KeyboardInterrupt wherever the
    # main thread happens to be (inside a lock's ``with``, it would leave the lock held and the
    # stop below waiting on it: a watch that hung on Ctrl-C under load).  SIGUSR1 and SIGUSR2
    # only set a flag, for the same reason: the loop below pauses or resumes, outside any lock.
    handlers = {signal.SIGTERM: on_signal, signal.SIGINT: on_signal}
    if pause_signal is not None and resume_signal is not None:  # (their default ends it)
        handlers[pause_signal] = handlers[resume_signal] = on_pause
    previous = {sig: signal.signal(sig, handler) for sig, handler in handlers.items()}
    if args.no_embed:
        embedding = "no embedding"
    else:
        threads = apply_embed_threads(args)
        embedding = f"model {provider.name}, {threads} embedding thread{'s' * (threads != 1)}"
        if pause_signal is not None:
            pid = os.getpid()
            embedding += f"; kill -USR1 {pid} pauses embedding, kill -USR2 {pid} resumes it"
    printer.line(f"watching {vault} (index {live.db_path}, {embedding}); Ctrl-C to stop")
    server = None
    try:
        live.start()
        if not args.no_embed:  # a lexical watch has no model to lend
            server = serve_vault(
                vault, args.data_dir, "vault-explorer watch", provider, writer=live
            )
            if server is not None:
                provider.start()  # loaded now, not by the first search it answers
                printer.line(f"answering search, explain and related on {server.path}")
        while not stop.is_set():
            wake.wait(0.25)
            wake.clear()
            wanted = paused[0]
            if wanted and args.no_embed:
                paused[0] = False
                printer.line("no embedding to pause (--no-embed)")
            elif wanted != live.embedding_paused:
                live.pause_embedding(wanted)
                printer.line(
                    f"pausing embedding after the batch under way (kill -USR2 {os.getpid()} "
                    "resumes it)"
                    if wanted
                    else "resuming embedding"
                )
            if not live.running:  # the index could not be opened, or the writer failed
                break
            if args.idle_exit is not None and (server is None or server.idle() >= args.idle_exit):
                printer.line(
                    f"stopping: no request to answer for {args.idle_exit:g} s"
                    if server is not None
                    else "stopping: nothing to answer here (--idle-exit)"
                )
                break
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        live.stop()
    if live.state_reason:
        shown = live.state_reason in printer.errors  # say it once
        printer.line(
            "stopped by the error above" if shown else f"stopped: {live.state_reason}",
            stream=sys.stderr,
        )
        return 1
    printer.line("stopped; the index is consistent")
    return 0
