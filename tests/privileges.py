"""Running a command without root's power to ignore file permissions.

Tests run as root here (and in CI), where ``chmod 555`` stops nobody.  ``setpriv`` drops the
capabilities that let root read and write past permissions (``CAP_DAC_OVERRIDE``,
``CAP_DAC_READ_SEARCH``), so a read-only folder is read-only to the child, as it is to a user.
"""

from __future__ import annotations

import os
import shutil

import pytest


def unprivileged() -> list[str]:
    """The argv prefix that runs a command as permissions apply to a user (skips the test where
    that cannot be arranged)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be enforced")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
