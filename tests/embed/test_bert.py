"""The light loader gives the vectors sentence-transformers gives, for the bundled model and
any mean-pooled BERT folder, in float32 and bfloat16, batched as the indexer batches them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from explorer.embed import sbert
from explorer.embed.base import Matrix
from explorer.embed.bert import MeanPooledBert, UnfitWeights, load_bert
from explorer.embed.bert_folder import bert_folder
from explorer.embed.models import DEFAULT_MODEL, ModelSpec, bundled_model_dir, resolve_model
from explorer.embed.sbert import SentenceTransformerEmbedder
from tests.conftest import SAMPLE_VAULT

#: Texts of every kind a vault gives: short, empty and blank, past the model's 256 word pieces,
#: accents, scripts other than Latin, symbols.
ODD_TEXTS = [
    "why were the styles stale after deploy",
    "",
    "   ",
    ".",
    "x",
    "  leading and trailing blanks  ",
    "Ünïcödé façade, naïve café — déjà vu",
    "東京の天気は晴れです。明日は雨が降るでしょう。",
    "Привет, как дела? Всё хорошо.",
    "مرحبا بالعالم",
    "🚀 launch day 🎉 #release",
    "deployment " * 600,
    "a" * 5000,
]


def _vault_texts() -> list[str]:
    """The sample vault's notes whole (many past 256 word pieces) and paragraph by paragraph,
    as chunks are: enough to fill several of the indexer's batches."""
    texts: list[str] = []
    for note in sorted(SAMPLE_VAULT.rglob("*.md"))[:12]:
        whole = note.read_text(encoding="utf-8")
        texts.append(whole)
        texts.extend(part for part in whole.split("\n\n") if part.strip())
    return texts


#: Every kind of text, and enough of them to fill several of the indexer's batches.
TEXTS = ODD_TEXTS + _vault_texts()


def _cosines(a: Matrix, b: Matrix) -> Matrix:
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.asarray((a * b).sum(axis=1) / np.where(norms == 0, 1.0, norms), dtype=np.float32)


def _through_sentence_transformers(spec: ModelSpec, precision: str) -> SentenceTransformerEmbedder:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sbert, "_load", sbert._sentence_transformer)
        return SentenceTransformerEmbedder(spec, precision=precision)


@pytest.fixture(scope="module", params=["fp32", "bf16"])
def both(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[SentenceTransformerEmbedder, SentenceTransformerEmbedder]]:
    """The bundled model through the light loader and through sentence-transformers, in one
    precision."""
    spec = resolve_model(None)
    light = SentenceTransformerEmbedder(spec, precision=request.param)
    heavy = _through_sentence_transformers(spec, request.param)
    yield light, heavy


@pytest.mark.model
def test_the_bundled_model_is_loaded_without_sentence_transformers(
    both: tuple[SentenceTransformerEmbedder, SentenceTransformerEmbedder],
) -> None:
    light, heavy = both
    assert isinstance(light._question_model(), MeanPooledBert)
    assert type(heavy._question_model()).__name__ == "SentenceTransformer"
    # What the index records as the model is unchanged: its vectors stay valid.
    assert (light.name, light.dimension) == (heavy.name, heavy.dimension) == (DEFAULT_MODEL, 384)
    assert light.precision.name == heavy.precision.name


@pytest.mark.model
def test_both_loaders_cut_and_batch_the_texts_alike(
    both: tuple[SentenceTransformerEmbedder, SentenceTransformerEmbedder],
) -> None:
    light, heavy, texts = *both, TEXTS
    for options in ({"truncation": True, "max_length": 256}, {"truncation": False}):
        mine = light.tokenizer(texts, **options)["input_ids"]
        theirs = heavy.tokenizer(texts, **options)["input_ids"]
        assert mine == theirs, options
    assert max(len(ids) for ids in light.tokenizer(texts, truncation=False)["input_ids"]) > 256
    assert light.batches(texts, light.passage_tokens) == heavy.batches(texts, heavy.passage_tokens)
    one = texts[-1]
    mine = light.tokenizer(one, truncation=True, max_length=64, return_offsets_mapping=True)
    theirs = heavy.tokenizer(one, truncation=True, max_length=64, return_offsets_mapping=True)
    assert mine["input_ids"] == theirs["input_ids"]
    assert [tuple(each) for each in mine["offset_mapping"]] == [
        tuple(each) for each in theirs["offset_mapping"]
    ]


@pytest.mark.model
def test_both_loaders_give_the_same_vectors(
    both: tuple[SentenceTransformerEmbedder, SentenceTransformerEmbedder],
) -> None:
    light, heavy, texts = *both, TEXTS
    assert len(light.batches(texts, light.passage_tokens)) > 3  # the indexer's several batches
    for embed in ("embed", "embed_query"):
        mine, theirs = getattr(light, embed)(texts), getattr(heavy, embed)(texts)
        assert mine.dtype == theirs.dtype == np.float32
        cosines = _cosines(mine, theirs)
        worst = int(np.argmin(cosines))
        assert cosines.min() > 0.99999, (embed, texts[worst][:60], cosines[worst])
        # one text alone, as a search's question is embedded (no padding), agrees too
        alone = getattr(light, embed)([texts[0]]), getattr(heavy, embed)([texts[0]])
        assert _cosines(*alone)[0] > 0.99999


# ------------------------------------------------------------ another mean-pooled BERT folder


def _small_bert(tmp_path: Path, *, drop: str | None = None) -> Path:
    """A small BERT folder of random weights with the bundled model's word pieces: two layers
    of 32, mean-pooled, not normalised; ``drop``: a weight left out of its file."""
    import torch
    from safetensors.torch import save_file

    source = bundled_model_dir()
    assert source is not None
    folder = tmp_path / "small-bert"
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        shutil.copy2(source / name, folder / name)
    shutil.copytree(source / "1_Pooling", folder / "1_Pooling")
    modules = json.loads((source / "modules.json").read_text())[:2]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": 48, "do_lower_case": False})
    )
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 32, "pooling_mode_mean_tokens": True})
    )
    config = json.loads((source / "config.json").read_text())
    config.update(hidden_size=32, num_hidden_layers=2, num_attention_heads=4)
    config.update(intermediate_size=64, max_position_embeddings=64, layer_norm_eps=1e-5)
    (folder / "config.json").write_text(json.dumps(config))
    generator = torch.Generator().manual_seed(7)

    def random(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator) * 0.2

    weights = {
        "embeddings.word_embeddings.weight": random(30522, 32),
        "embeddings.position_embeddings.weight": random(64, 32),
        "embeddings.token_type_embeddings.weight": random(2, 32),
        "embeddings.LayerNorm.weight": 1 + random(32),
        "embeddings.LayerNorm.bias": random(32),
        "pooler.dense.weight": random(32, 32),
        "pooler.dense.bias": random(32),
    }
    shapes = {
        "attention.self.query": (32, 32),
        "attention.self.key": (32, 32),
        "attention.self.value": (32, 32),
        "attention.output.dense": (32, 32),
        "intermediate.dense": (64, 32),
        "output.dense": (32, 64),
    }
    for layer in range(2):
        at = f"encoder.layer.{layer}."
        for name, shape in shapes.items():
            weights[f"{at}{name}.weight"] = random(*shape)
            weights[f"{at}{name}.bias"] = random(shape[0])
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            weights[f"{at}{name}.weight"] = 1 + random(32)
            weights[f"{at}{name}.bias"] = random(32)
    weights.pop(drop or "", None)
    save_file(
        {name: value.contiguous() for name, value in weights.items()},
        str(folder / "model.safetensors"),
    )
    return folder


@pytest.mark.slow
def test_another_mean_pooled_bert_gives_sentence_transformers_vectors(tmp_path: Path) -> None:
    folder = _small_bert(tmp_path)
    found = bert_folder(folder)
    assert found is not None and not found.normalize and found.max_tokens == 48
    spec = resolve_model(str(folder))
    light = SentenceTransformerEmbedder(spec, precision="fp32")
    heavy = _through_sentence_transformers(spec, "fp32")
    assert isinstance(light._question_model(), MeanPooledBert)
    texts = ODD_TEXTS + _vault_texts()[:20]
    mine = light._question_model().encode(texts, batch_size=7)
    theirs = heavy._question_model().encode(
        texts, batch_size=7, convert_to_numpy=True, normalize_embeddings=False
    )
    # Not normalised in the model: the raw means agree, length and all.
    assert np.allclose(mine, theirs, rtol=1e-4, atol=1e-5)
    assert _cosines(mine, theirs).min() > 0.99999


@pytest.mark.slow
def test_a_folder_whose_weights_do_not_fit_goes_through_sentence_transformers(
    tmp_path: Path,
) -> None:
    folder = _small_bert(tmp_path, drop="encoder.layer.1.output.dense.weight")
    found = bert_folder(folder)
    assert found is not None  # its files say it is one...
    with pytest.raises(UnfitWeights, match=r"encoder\.layer\.1\.output\.dense\.weight"):
        load_bert(found)
    model = sbert._load(resolve_model(str(folder)))  # ...its weights say otherwise
    assert type(model).__name__ == "SentenceTransformer"
