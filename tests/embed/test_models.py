"""The models by name: the bundled one found offline with the upstream weights, a choice
resolved to a folder or a hub name, and nothing heavy loaded to name one."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.embed.models import (
    BUNDLED_SHA256,
    DEFAULT_MODEL,
    EmbedderUnavailable,
    bundled_model_dir,
    resolve_model,
)


def test_bundled_model_is_the_upstream_weights() -> None:
    folder = bundled_model_dir()
    assert folder is not None
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    assert digest == BUNDLED_SHA256
    spec = resolve_model(None)
    assert spec.name == DEFAULT_MODEL and spec.path == folder and not spec.from_hub


def test_model_choice_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmbedderUnavailable, match="not found"):
        resolve_model("/no/such/model")
    (tmp_path / "my-model").mkdir()
    assert resolve_model(str(tmp_path / "my-model")).name == "my-model"
    monkeypatch.setenv("VAULT_EXPLORER_MODEL", str(tmp_path / "my-model"))
    assert resolve_model(None).path == tmp_path / "my-model"
    assert resolve_model("someone/hub-model").from_hub


def test_naming_a_model_loads_no_numpy() -> None:
    code = (
        "import sys\n"
        "from explorer.embed.models import model_name\n"
        "assert model_name(None) == 'all-MiniLM-L6-v2'\n"
        "print(sorted(m for m in sys.modules if m.startswith(('numpy', 'torch'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
