"""Shared fixtures: temporary vaults and data dirs, the fake and the real embedder."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.embed import provider as provider_module
from explorer.embed.base import FakeEmbedder
from explorer.embed.models import model_name
from explorer.embed.provider import EmbedderProvider, shared_provider
from explorer.index.db import IndexDB
from explorer.index.embedding import embed_pending
from explorer.index.sync import sync_vault
from explorer.search.fusion.hybrid import Searcher
from tests.evaluate.helpers import write_beir

SAMPLE_VAULT = Path(__file__).resolve().parents[1] / "resources" / "sample-vault"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

#: Fixtures that load the real model: a test that uses one (directly or through another) is slow.
MODEL_FIXTURES = frozenset({"real_provider"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of the real model is slow (``-m "not slow"`` is the fast loop): marked
    ``model``, or using a fixture that loads it."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("model") is not None or fixtures & MODEL_FIXTURES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to the real user data dir."""
    monkeypatch.setenv("VAULT_EXPLORER_DATA", str(tmp_path / "data"))


@pytest.fixture(autouse=True)
def _no_watch_left_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that works alone leaves no watch in the background here (the tests of that
    turn it on: tests/commands/test_warm.py)."""
    monkeypatch.setenv("VAULT_EXPLORER_WARM_IDLE", "0")


@pytest.fixture(autouse=True)
def _embedding_on_battery(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests embed on a laptop off its charger too (the live index would hold its
    embedding there: explorer.live.power); the battery's own tests inject their battery."""
    monkeypatch.setenv("VAULT_EXPLORER_EMBED_ON_BATTERY", "1")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def write(vault: Path) -> Callable[[str, str | bytes], Path]:
    """Write a note into the temporary vault: ``write("a/b.md", "text")``."""

    def _write(rel: str, content: str | bytes) -> Path:
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    """A private copy of the bundled sample vault (tests may change it)."""
    target = tmp_path / "sample-vault"
    shutil.copytree(SAMPLE_VAULT, target)
    return target


@pytest.fixture
def fake() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def open_db(data_dir: Path) -> Iterator[Callable[[Path], IndexDB]]:
    opened: list[IndexDB] = []

    def _open(root: Path) -> IndexDB:
        db = IndexDB.open(root, data_dir)
        opened.append(db)
        return db

    yield _open
    for db in opened:
        db.close()


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts: killed at its end if still running."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def real_provider() -> EmbedderProvider:
    """The real all-MiniLM-L6-v2, loaded once for the whole session."""
    provider = shared_provider(None)
    provider.get()
    return provider


def build_index(db: IndexDB, provider: EmbedderProvider | None) -> Searcher:
    """Sync and (with a provider) embed everything; a searcher over the result."""
    sync_vault(db)
    if provider is not None:
        embed_pending(db, provider.get())
    return Searcher(db, provider or EmbedderProvider.disabled())


@pytest.fixture(scope="session")
def sample_searcher(
    tmp_path_factory: pytest.TempPathFactory, real_provider: EmbedderProvider
) -> Iterator[Searcher]:
    """The sample vault indexed once with the real model (read-only use)."""
    data = tmp_path_factory.mktemp("sample-data")
    db = IndexDB.open(SAMPLE_VAULT, data)
    yield build_index(db, real_provider)
    db.close()


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    """The command line's model is the fake embedder (no real model in these tests)."""
    fake = FakeEmbedder()
    provider = EmbedderProvider.of(fake)
    monkeypatch.setitem(provider_module._SHARED, model_name(None), provider)
    return fake


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    """A tiny BEIR-format folder (:mod:`tests.evaluate.helpers`)."""
    return write_beir(tmp_path / "tiny")
