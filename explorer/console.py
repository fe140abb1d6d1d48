"""What every command shares with a person at a terminal: usage errors, lines of text and JSON
that are safe to print, numbers that must be finite (on the command line and in the
environment), the vault named on the command line, and progress bars.  Used by every command
(:mod:`explorer.commands`), the window's launcher and the benchmark's progress
(:mod:`explorer.evaluate.bench`)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from explorer.display import is_unsafe, safe_text
from explorer.errors import MachineError, UserError
from explorer.home import expand_home


class UsageError(UserError):
    """Bad input from the user: one clear line, exit status 2."""


class EnvironmentProblem(MachineError):
    """The machine stands in the way (permissions, a full disk): one clear line, exit status 1."""


def say(text: str, file: TextIO | None = None) -> None:
    """Print one line of text for a person, with control and bidi characters made visible."""
    print(safe_text(text), file=sys.stdout if file is None else file)


def json_text(data: Any) -> str:
    """``data`` as strict JSON (no ``NaN``/``Infinity``: a ``ValueError`` instead), indented,
    with every control, bidi-control and lone-surrogate character ``\\u``-escaped — JSON itself
    escapes only U+0000..U+001F, which leaves DEL, C1 controls and bidi overrides raw."""
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
    # Outside strings the text is ASCII punctuation, digits and the indent's newlines, so every
    # unsafe character but those newlines is inside a string, where \uXXXX means the same.
    return "".join(f"\\u{ord(c):04x}" if c != "\n" and is_unsafe(c) else c for c in text)


def dump_json(data: Any, out: TextIO | None = None) -> None:
    """Write ``data`` as :func:`json_text` and a newline."""
    out = sys.stdout if out is None else out
    out.write(json_text(data) + "\n")


def finite_float(text: str) -> float:
    """An argparse type: a number that is neither infinite nor NaN (``float`` takes both)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def env_number(
    name: str,
    default: float,
    low: float,
    high: float,
    what: str,
    env: Mapping[str, str] | None = None,
    *,
    whole: bool = False,
) -> float:
    """The number in the environment variable ``name`` (unset or empty: ``default``), from
    ``low`` to ``high`` (``whole``: a whole number).  Any other value (``abc``, ``nan``,
    ``1e400``, out of range, ``2.5`` for a whole number) is said on stderr in one line — the
    variable, what it takes, the default used — and ``default`` is used: a setting for a run is
    no reason to refuse the run."""
    text = (os.environ if env is None else env).get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if math.isfinite(value) and low <= value <= high and (not whole or value.is_integer()):
        return value
    shown = text if len(text) <= 40 else f"{text[:40]}…"
    say(
        f"vault-explorer: {name} takes {what} from {low:g} to {high:g}, not {shown!r}; "
        f"using {default:g}",
        sys.stderr,
    )
    return default


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``.  The text is measured before
    it is converted, so a 400-digit number gets the same one line as 0 does."""

    def parse(text: str) -> int:
        stripped = text.strip()
        if len(stripped) > 20:
            raise argparse.ArgumentTypeError(
                f"must be between {low} and {high}, got a {len(stripped)}-character number"
            )
        try:
            value = int(stripped)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    return parse


class TerminalProgress:
    """tqdm bars on stderr, shown only on a terminal (quiet in pipes, tests and CI logs)."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bars: dict[str, Any] = {}

    def __call__(
        self, phase: str, done: int, total: int, note: str = "", *, status: str | None = None
    ) -> None:
        """Show ``done`` of ``total`` for ``phase``, and ``note`` (the item at hand).  With
        ``status`` (the counts, rate and estimate in words: :mod:`explorer.live.progress`), the
        bar says that instead of tqdm's own counts, rate and estimate."""
        if not self.enabled or total <= 0:
            return
        from tqdm import tqdm

        bar = self._bars.get(phase)
        if bar is None:
            unit = "chunk" if phase == "embed" else "note"
            shape = "{desc}: {percentage:3.0f}%|{bar}| {postfix}" if status is not None else None
            bar = tqdm(
                total=total, desc=phase, unit=unit, file=sys.stderr, leave=True, bar_format=shape
            )
            self._bars[phase] = bar
        bar.total = total
        words = [status] if status else []
        if note:
            words.append(safe_text(note[-40:]))
        if words:
            bar.set_postfix_str(" · ".join(words), refresh=False)
        bar.update(done - bar.n)
        if status is not None:
            bar.refresh()  # a batch at a time: each one shown

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()


def vault_folder(path: str, *, readable: bool = True) -> Path:
    """The vault folder named on the command line, checked: it exists and can be walked.

    A vault whose folder cannot be listed, or whose files cannot be looked at, would sync as an
    empty vault and empty the index; it is refused before the index is opened (``readable``
    false: the command does not read the vault, as ``search --no-sync`` and ``status``)."""
    vault = expand_home(path)
    if not vault.is_dir():
        raise UsageError(f"vault folder not found: {path}")
    vault = vault.resolve()
    if readable and not os.access(vault, os.R_OK | os.X_OK):
        raise EnvironmentProblem(
            f"cannot read the vault folder {vault} (permission denied); make it readable and "
            "searchable by you (chmod u+rx), then run again — the index was not changed"
        )
    return vault
