"""The package ships what it needs: a wheel installed outside the checkout finds its resources.

The wheel test builds the wheel from a copy of the sources, installs it into a fresh venv in a
temporary folder and runs the installed ``vault-explorer`` from there, so a file read through a
path relative to the checkout (instead of :mod:`explorer.resources`) fails here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

from explorer import resources
from tests.mcp_lines import LineClient

ROOT = Path(__file__).resolve().parents[1]
SOURCE_RESOURCES = ROOT / "resources"
#: Files of ``resources/`` that stay out of the package (the README's picture, the package marker
#: is checked on its own).
NOT_SHIPPED = frozenset({"screenshot.png", "__init__.py"})
#: pip of the running interpreter, offline: the wheel and its venv need nothing from an index.
PIP = (sys.executable, "-m", "pip", "--disable-pip-version-check", "-q")


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _source_files(root: Path) -> set[str]:
    """Every file under ``root``, dot-files included, as posix paths relative to it."""
    return {
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_every_subpackage_of_explorer_is_in_the_packages_list() -> None:
    """``packages`` is an explicit list (``package-dir`` maps resources/ into the package)."""
    setuptools = _pyproject()["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "explorer").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    missing = sorted(on_disk - listed)
    assert not missing, f"add {missing} to [tool.setuptools] packages in pyproject.toml"
    assert setuptools["package-dir"] == {resources.PACKAGE: "resources"}
    assert resources.PACKAGE in listed


def test_resources_are_found_through_the_package() -> None:
    root = resources.resources_dir()
    assert root.is_dir()
    assert (root / "__init__.py").is_file()  # the package explorer._resources, not a guess
    assert resources.sample_vault_dir().is_dir()
    assert resources.icon_path().is_file()
    assert resources.stylesheet_path().is_file()
    assert (resources.judgments_dir() / "sample-vault.tsv").is_file()


def test_a_pyinstaller_bundle_is_read_from_meipass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundled = tmp_path / resources.BUNDLE_DIR
    (bundled / "sample-vault").mkdir(parents=True)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    resources.resources_dir.cache_clear()
    try:
        assert resources.sample_vault_dir() == bundled / "sample-vault"
    finally:
        monkeypatch.undo()
        resources.resources_dir.cache_clear()
    spec = (ROOT / "packaging" / "vault-explorer.spec").read_text(encoding="utf-8")
    assert f'RESOURCES = "{resources.BUNDLE_DIR.as_posix()}"' in spec


def test_the_gui_finds_its_resources_without_the_command_line() -> None:
    """``gui/core/resources.py`` reads the core module, not ``explorer.cli`` (issue 9, item 3)."""
    source = (ROOT / "explorer" / "gui" / "core" / "resources.py").read_text(encoding="utf-8")
    assert "explorer.cli" not in source
    assert "parents[" not in source


def _build_wheel(tmp_path: Path) -> Path:
    """Build the wheel from a copy of the sources (no build/ or egg-info in the checkout)."""
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("explorer", "resources"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    dist = tmp_path / "dist"
    subprocess.run(
        [
            *PIP,
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(dist),
            str(src),
        ],
        check=True,
        cwd=tmp_path,
        timeout=300,
    )
    (wheel,) = dist.glob("vault_explorer-*.whl")
    return wheel


def _see_site_packages_of_this_python(venv: Path) -> None:
    """Make ``venv`` read this Python's site-packages after its own, ``.pth`` files included
    (``--system-site-packages`` would give the base interpreter's, which inside a venv lack
    this project's dependencies)."""
    ours = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    assert ours, sys.path
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site_packages = venv / ("Lib" if os.name == "nt" else f"lib/{version}") / "site-packages"
    assert site_packages.is_dir(), site_packages
    lines = [f"import site; site.addsitedir({p!r})" for p in ours]
    (site_packages / "zz_tested_python.pth").write_text("\n".join(lines) + "\n")


@pytest.mark.slow
def test_the_wheel_works_outside_the_checkout(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    prefix = resources.BUNDLE_DIR.as_posix() + "/"
    shipped = {name.removeprefix(prefix) for name in names if name.startswith(prefix)}
    expected = {p for p in _source_files(SOURCE_RESOURCES) if p not in NOT_SHIPPED}
    assert "__init__.py" in shipped
    assert "icons/vault-explorer.svg" in shipped
    assert "style/explorer.qss" in shipped
    assert "sample-vault/ops/backups.md" in shipped
    assert "sample-vault/.explorerignore" in shipped  # dot-files are not skipped
    assert not expected - shipped, "add their patterns to [tool.setuptools.package-data]"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)

    # A venv outside the checkout.  It sees the packages of the Python running the tests
    # (torch, Qt), wherever they are installed (the system's site-packages in CI, a venv's when
    # the README's command runs inside one), so that nothing is downloaded; with them it sees
    # this checkout's editable install: the checks below prove that the wheel's copy runs.
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    _see_site_packages_of_this_python(venv)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    subprocess.run(
        [*PIP, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env |= {
        "PATH": f"{bindir}{os.pathsep}{env.get('PATH', '')}",
        "QT_QPA_PLATFORM": "offscreen",
        "VAULT_EXPLORER_DATA": str(tmp_path / "data"),
        # Fresh settings: no "last vault" of this machine's user, so the window opens the sample.
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()

    def run(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(a) for a in args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}{done.stderr}"
        return done

    where = run(
        python,
        "-c",
        "import explorer, explorer.resources as r; print(explorer.__file__); "
        "print(r.sample_vault_dir())",
    ).stdout.splitlines()
    installed, vault = Path(where[0]).resolve(), Path(where[1])
    assert installed.is_relative_to(venv.resolve()), installed
    assert not installed.is_relative_to(ROOT)
    assert vault.resolve().is_relative_to(venv.resolve()), vault
    assert (vault / "ops" / "backups.md").is_file()

    data = tmp_path / "data"
    script = bindir / "vault-explorer"
    found = run(script, "search", vault, "tar czf", "--mode", "fts", "--data-dir", data)
    assert "ops/backups.md" in found.stdout

    # The MCP server: the configuration it prints runs it, and a client's search gets the hit.
    config = json.loads(run(script, "mcp", "--print-config", vault, "--data-dir", data).stdout)
    server = config["mcpServers"]["vault-explorer"]
    assert Path(server["command"]) == script
    client = LineClient([server["command"], *server["args"]], env, tmp_path / "mcp.log", cwd)
    try:
        assert client.initialize()["serverInfo"]["name"] == "vault-explorer"
        tools = client.request("tools/list")["result"]["tools"]
        assert {t["name"] for t in tools} == {
            "search",
            "get_note",
            "related",
            "explain",
            "status",
            "saved_searches",
        }
        answer = client.call("search", {"query": "tar czf", "mode": "fts"})["result"]
        assert answer["structuredContent"]["hits"][0]["path"] == "ops/backups.md"
        assert client.close() == 0
    finally:
        client.kill()

    png = tmp_path / "x.png"
    run(
        script,
        "gui",
        "--screenshot",
        png,
        "--mode",
        "fts",
        "--query",
        "tar czf",
        "--data-dir",
        data,
        timeout=240,
    )
    assert png.is_file()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 1000
