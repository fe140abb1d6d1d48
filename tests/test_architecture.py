"""The core has no Qt: everything outside explorer/gui/ imports without PySide6."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import explorer


def _core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(explorer.__path__, "explorer."):
        if not info.name.startswith("explorer.gui"):
            names.append(info.name)
    return names


def test_core_imports_without_qt() -> None:
    modules = _core_modules()
    assert "explorer.search.hybrid" in modules and "explorer.cli" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    if name != 'explorer.__main__':\n"
        "        importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6')))\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
