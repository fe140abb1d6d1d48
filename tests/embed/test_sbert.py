"""The bundled model: found offline, the upstream weights, loads and embeds with no network."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explorer.embed.base import EmbedderUnavailable
from explorer.embed.gate import ModelGate
from explorer.embed.models import resolve_model
from explorer.embed.provider import EmbedderProvider
from explorer.embed.sbert import (
    KERNEL_CACHES,
    PRIMITIVE_CACHE_ENTRIES,
    SentenceTransformerEmbedder,
    _load,
)
from explorer.evaluate.synth import generate_vault
from explorer.index.db import IndexDB
from explorer.search.fusion.hybrid import Searcher
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index
from tests.waiting import wait_until


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every attempt to open a network connection fails the test loudly (and is recorded)."""
    attempts: list[Any] = []
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        if self.family == socket.AF_UNIX:
            return real_connect(self, address)
        attempts.append(address)
        raise OSError(f"network access attempted: {address}")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: guarded(socket.socket(), a[0]))
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda *a, **k: attempts.append(a) or (_ for _ in ()).throw(OSError("dns blocked")),
    )
    return attempts


@pytest.mark.model
def test_loads_indexes_and_searches_with_the_network_blocked(
    no_network: list[Any],
    vault: Path,
    write: Callable[[str, str], Path],
    open_db: Callable[[Path], IndexDB],
) -> None:
    write("car.md", "# Garage\n\nThe mechanic fixed the brakes of my automobile on Tuesday.\n")
    write("cake.md", "# Baking\n\nA sponge cake needs eggs, flour and sugar.\n")
    embedder = SentenceTransformerEmbedder(resolve_model(None))
    vectors = embedder.embed(["hello world", "greetings, planet"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    searcher = build_index(open_db(vault), EmbedderProvider.of(embedder))
    hits = searcher.search("vehicle repair", SearchOptions(mode="semantic")).hits
    assert hits[0].path == "car.md"
    assert no_network == []


def test_provider_remembers_a_load_failure() -> None:
    calls: list[int] = []

    def load() -> SentenceTransformerEmbedder:
        calls.append(1)
        raise EmbedderUnavailable("model folder not found: /x")

    provider = EmbedderProvider("x", load)
    for _ in range(3):
        with pytest.raises(EmbedderUnavailable, match="not found"):
            provider.get()
    assert calls == [1]  # loaded (and failed) once per process
    assert provider.error == "model folder not found: /x"


def test_searcher_uses_model_name_tags(vault: Path, open_db: Callable[[Path], IndexDB]) -> None:
    from explorer.embed.base import FakeEmbedder

    (vault / "a.md").write_text("# A\n\nwords\n")
    db = open_db(vault)
    build_index(db, EmbedderProvider.of(FakeEmbedder(name="model-one")))
    other = Searcher(db, EmbedderProvider.of(FakeEmbedder(name="model-two")))
    response = other.search("words", SearchOptions(mode="hybrid"))
    assert response.semantic.available is False  # model-one vectors never serve model-two


PASSAGES = [
    "The mechanic fixed the brakes of my automobile on Tuesday.",
    "A sponge cake needs eggs, flour and sugar, folded in gently.",
    "tar czf archive.tar.gz folder/ — create a gzipped archive of a folder",
    "Rollback the deployment by pointing the release symlink at the previous build.",
]


@pytest.fixture(scope="module")
def fp32_embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(resolve_model(None), precision="fp32")


@pytest.mark.model
def test_forced_fp32_is_the_models_own_float32_output(
    fp32_embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert fp32_embedder.precision.name == "fp32"
    vectors = fp32_embedder.embed(PASSAGES)
    plain = _load(resolve_model(None)).encode(PASSAGES, normalize_embeddings=True)
    assert np.allclose(vectors, plain, atol=1e-6)
    monkeypatch.setenv("VAULT_EXPLORER_PRECISION", "fp32")  # what a user sets
    assert SentenceTransformerEmbedder(resolve_model(None)).precision.name == "fp32"


@pytest.mark.model
def test_bf16_vectors_stay_close_to_fp32_ones(fp32_embedder: SentenceTransformerEmbedder) -> None:
    """Vectors of either precision are stored under one model name, so they must agree."""
    bf16 = SentenceTransformerEmbedder(resolve_model(None), precision="bf16")
    assert bf16.precision.name == "bf16"
    texts = [*PASSAGES, "vehicle repair", "how do I undo a release"]
    a, b = fp32_embedder.embed(texts), bf16.embed(texts)
    assert not np.array_equal(a, b)  # bf16 did run
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(a * b, axis=1)) > 0.999
    # A bf16 query ranks fp32 passages as an fp32 query does.
    for q in (4, 5):
        assert np.argsort(-(a[:4] @ b[q])).tolist() == np.argsort(-(a[:4] @ a[q])).tolist()


@pytest.mark.model
def test_batches_go_longest_first_within_the_word_piece_budget(
    fp32_embedder: SentenceTransformerEmbedder,
) -> None:
    """Batched by word pieces, the vectors come back in the texts' order, each as if alone."""
    texts = ["word " * n for n in (3, 300, 40, 12, 41, 1, 120)]
    embedder = SentenceTransformerEmbedder(resolve_model(None), token_budget=128, precision="fp32")
    batches = embedder.batches(texts)
    assert sorted(row for rows, _ in batches for row in rows) == list(range(len(texts)))
    # 300 words are truncated to the model's 256 word pieces, in a batch of their own.
    assert [rows for rows, _ in batches] == [[1], [6], [4, 2], [3, 0, 5]]
    assert [work for _, work in batches] == [256, 122, 2 * 43, 3 * 14]
    vectors = embedder.embed(texts)
    alone = np.vstack([fp32_embedder.embed([text]) for text in texts])
    assert np.allclose(vectors, alone, atol=1e-5)
    assert embedder.embed([]).shape == (0, embedder.dimension)


def _first_layer(model: Any) -> Any:
    import torch

    return next(m for m in model.modules() if isinstance(m, torch.nn.ModuleList))[0]


@pytest.mark.model
def test_a_question_runs_beside_a_passage_batch_and_the_batch_gives_way(
    fp32_embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question does not wait for the passage batch under way: it is answered while that
    batch is held inside the model.  And while a question runs, the batch under way stops at
    its next step through the model until the question is done.  Both come out right."""
    stop, paused = threading.Event(), threading.Event()
    real_pause = ModelGate.pause_point

    def pause_point(gate: ModelGate) -> None:  # patched before the model is made, which keeps it
        if gate.questions_waiting:
            paused.set()
        real_pause(gate)

    monkeypatch.setattr(ModelGate, "pause_point", pause_point)
    embedder = SentenceTransformerEmbedder(resolve_model(None), precision="fp32")
    passages = [f"note {i}: a line about topic {i % 7}" for i in range(64)]
    batch_inside, batch_go = threading.Event(), threading.Event()
    question_inside, question_go = threading.Event(), threading.Event()
    out: dict[str, Any] = {}

    def hold_once(inside: threading.Event, go: threading.Event) -> Callable[..., None]:
        def hook(_module: Any, _args: Any) -> None:
            if not inside.is_set():
                inside.set()
                go.wait()

        return hook

    _first_layer(embedder._models["fp32"]).register_forward_pre_hook(
        hold_once(batch_inside, batch_go)
    )

    def background() -> None:
        while not stop.is_set():
            out["passages"] = embedder.embed(passages)

    thread = threading.Thread(target=background)
    thread.start()
    try:
        batch_inside.wait()
        first = threading.Thread(
            target=lambda: out.setdefault("first", embedder.embed_query(["clear the screen"]))
        )
        first.start()
        wait_until(lambda: "first" in out, timeout=120)  # while the batch is still held
        first.join()
        batch_go.set()
        _first_layer(embedder._twins["fp32"]).register_forward_pre_hook(
            hold_once(question_inside, question_go)
        )
        asked = threading.Thread(
            target=lambda: out.setdefault("second", embedder.embed_query(["undo a commit"]))
        )
        asked.start()
        question_inside.wait()
        wait_until(paused.is_set, timeout=120)  # the batch under way waits for the question
        question_go.set()
        asked.join()
    finally:
        batch_go.set()
        question_go.set()
        stop.set()
        thread.join()
    assert np.allclose(out["first"], fp32_embedder.embed_query(["clear the screen"]), atol=1e-5)
    assert np.allclose(out["second"], fp32_embedder.embed_query(["undo a commit"]), atol=1e-5)
    assert np.allclose(out["passages"], fp32_embedder.embed(passages), atol=1e-5)


#: In a fresh process: the default model embeds ``argv[2]`` texts (the paragraphs of the
#: notes under ``argv[1]``), 128 a call as ``index`` does, and prints the anonymous memory
#: (KiB) after the first call and after the last.
_GROWTH = """
import sys
from pathlib import Path
from explorer.embed.provider import shared_provider

def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1])

notes = sorted(Path(sys.argv[1]).rglob("*.md"))
paragraphs = [p for note in notes for p in note.read_text().split("\\n\\n")]
texts = [p for p in paragraphs if len(p) > 40][: int(sys.argv[2])]
embedder = shared_provider(None).get()
embedder.embed(texts[:128])
first = anon()
for start in range(128, len(texts), 128):
    embedder.embed(texts[start : start + 128])
print(first, anon())
"""


@pytest.mark.model
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_embedding_batches_of_every_shape_do_not_grow_the_process(tmp_path: Path) -> None:
    # Each batch shape compiles oneDNN kernels, kept in a cache of 1,024 by default: the
    # process grew by ~160 MB over 768 chunks (and on, to 1.23 GB five minutes into a
    # 40,000-note vault); with the cache at PRIMITIVE_CACHE_ENTRIES, by ~60 MB.
    generate_vault(tmp_path / "vault", 150, seed=5)
    env = {k: v for k, v in os.environ.items() if k not in KERNEL_CACHES}
    done = subprocess.run(
        [sys.executable, "-c", _GROWTH, str(tmp_path / "vault"), "768"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    first, last = (int(kib) for kib in done.stdout.split()[-2:])
    assert last - first < 110 * 1024, (first, last)


@pytest.mark.model
def test_the_model_loads_with_a_small_kernel_cache_unless_one_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """oneDNN's primitive cache keeps packed weights per batch shape: at its default of 1,024
    entries, embedding a vault's chunks in bf16 kept hundreds of MiB resident."""
    for cache in KERNEL_CACHES:
        monkeypatch.delenv(cache, raising=False)
    _load(resolve_model(None))
    for cache in ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY"):
        assert os.environ[cache] == str(PRIMITIVE_CACHE_ENTRIES) == "8"
        monkeypatch.setenv(cache, "64")  # what a user sets
    _load(resolve_model(None))
    assert [os.environ[cache] for cache in KERNEL_CACHES] == ["64", "64"]
