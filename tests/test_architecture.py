"""The shape of the code: the core has no Qt (everything outside explorer/gui/ imports without
PySide6), the layers of pyproject.toml hold, and a test module imports no other test module."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import explorer


def _core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(explorer.__path__, "explorer."):
        if not info.name.startswith("explorer.gui"):
            names.append(info.name)
    return names


def test_core_imports_without_qt() -> None:
    modules = _core_modules()
    assert "explorer.search.fusion.hybrid" in modules and "explorer.commands.program" in modules
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


def test_layers_without_cycles_as_import_linter_sees_them() -> None:
    """The contracts in pyproject.toml: entry → gui → commands → live → search → index →
    vault/embed, inside the window window → panels | results | preview | statusbar → core, no Qt
    below the window, no import cycle between sibling modules."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout
    # The panels reach the index only through the window's session (explorer/gui/core/session.py).
    assert "The window opens its index in one place: the vault session KEPT" in proc.stdout


def test_type_checking_imports_count_in_the_contracts() -> None:
    """A five-file circle in explorer/gui/window hid behind ``exclude_type_checking_imports``
    (issue 46): every import counts."""
    root = Path(__file__).resolve().parents[1]
    assert "exclude_type_checking_imports" not in (root / "pyproject.toml").read_text()


def test_the_main_window_leaves_its_work_to_controllers() -> None:
    """MainWindow had grown to 78 methods (issue 46): the window builds and connects; the
    comparison, grading, note actions, model, searches, selection, vault commands and state,
    and the index's following are controllers of their own (explorer/gui/window/)."""
    root = Path(__file__).resolve().parents[1]
    tree = ast.parse((root / "explorer/gui/window/main_window.py").read_text(encoding="utf-8"))
    [window] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MainWindow"]
    methods = [n.name for n in window.body if isinstance(n, ast.FunctionDef)]
    assert len(methods) <= 40, methods


def test_the_window_opens_its_index_in_one_place() -> None:
    """Every read of the window goes through its session's reader: one ``IndexDB.open…`` call
    in explorer/gui/, and it is the read-only one."""
    import re
    from pathlib import Path

    gui = Path(explorer.__file__).parent / "gui"
    calls = [
        (path.name, line.strip())
        for path in sorted(gui.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"IndexDB\.open\w*\(|\bIndexDB\(", line)
    ]
    assert calls == [("session.py", "return IndexDB.open_reader(vault, data_dir)")], calls


def imported_test_modules(tree: ast.Module) -> set[str]:
    """The test modules (``test_*``) that the module ``tree`` imports, by dotted name."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            joined = base if base.endswith(".") else base + "."
            names.update(joined + alias.name for alias in node.names)
    return {n for n in names if any(part.startswith("test_") for part in n.split("."))}


def test_no_test_module_imports_another() -> None:
    """What tests share lives in helper modules and fixtures (``conftest.py``), never in a test
    module: importing one runs its imports and fixtures in another's namespace, and moving or
    marking one test file changes what the other sees."""
    tests = Path(__file__).resolve().parent
    found = {
        str(path.relative_to(tests.parent)): sorted(imported)
        for path in sorted(tests.rglob("*.py"))
        if (imported := imported_test_modules(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert found == {}


def test_every_form_of_importing_a_test_module_is_seen() -> None:
    def seen(code: str) -> set[str]:
        return imported_test_modules(ast.parse(code))

    assert seen("import tests.search.fusion.test_cached") == {"tests.search.fusion.test_cached"}
    assert "tests.gui.test_preview" in seen("from tests.gui.test_preview import shown_images")
    assert ".test_runner" in seen("from .test_runner import write_beir")
    assert seen("from . import test_runner") == {".test_runner"}
    assert seen("from tests.waiting import wait_until\nimport pytest") == set()
