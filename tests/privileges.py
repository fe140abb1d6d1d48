"""Running a command without root's power to ignore file permissions.

Tests run as root here (and in CI containers), where ``chmod 000`` stops nobody.  ``setpriv``
drops every capability — those that let root read and write past permissions
(``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``) among them — so the child is the files' owner and
nothing more: a read-only folder is read-only to it, as it is to a user.
"""

from __future__ import annotations

import functools
import os
import subprocess

import pytest


@functools.cache
def _prefix() -> tuple[str, ...] | None:
    if os.geteuid() != 0:
        return ()
    prefix = ("setpriv", "--inh-caps=-all", "--bounding-set=-all", "--")
    try:
        ok = subprocess.run([*prefix, "true"], capture_output=True).returncode == 0
    except FileNotFoundError:
        ok = False
    return prefix if ok else None


def unprivileged() -> list[str]:
    """The argv prefix that runs a command as permissions apply to a user (skips the test where
    that cannot be arranged)."""
    prefix = _prefix()
    if prefix is None:
        pytest.skip("running as root and cannot drop capabilities (no setpriv)")
    return list(prefix)
