"""Which model folders the light loader takes: the bundled model's kind, and nothing else."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from explorer.embed.bert_folder import bert_folder
from explorer.embed.models import bundled_model_dir

BUNDLED = bundled_model_dir()
pytestmark = pytest.mark.skipif(BUNDLED is None, reason="the bundled model is not installed")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the bundled model's folder (its large files linked, not copied)."""
    assert BUNDLED is not None
    copy = tmp_path / "model"
    shutil.copytree(BUNDLED, copy, copy_function=_link_big)
    return copy


def _link_big(source: str, target: str) -> None:
    if Path(source).stat().st_size > 1_000_000:
        Path(target).symlink_to(source)
    else:
        shutil.copy2(source, target)


def _edit(path: Path, change: Callable[[Any], Any]) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def test_the_bundled_model_is_a_mean_pooled_bert() -> None:
    found = bert_folder(BUNDLED)
    assert found is not None
    assert (found.hidden, found.layers, found.heads, found.max_tokens) == (384, 6, 12, 256)
    assert found.normalize and found.vocabulary == 30522


def test_without_normalize_the_vectors_are_left_as_pooled(folder: Path) -> None:
    _edit(folder / "modules.json", lambda modules: modules[:2])
    found = bert_folder(folder)
    assert found is not None and not found.normalize


@pytest.mark.parametrize(
    ("file", "change"),
    [
        (
            "modules.json",
            lambda m: [
                *m,
                {
                    "idx": 3,
                    "name": "3",
                    "path": "3_Dense",
                    "type": "sentence_transformers.models.Dense",
                },
            ],
        ),
        ("modules.json", lambda m: [m[0], m[2]]),
        (
            "1_Pooling/config.json",
            lambda c: {**c, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True},
        ),
        ("1_Pooling/config.json", lambda c: {**c, "pooling_mode_max_tokens": True}),
        ("1_Pooling/config.json", lambda c: {"pooling_mode": "lasttoken"}),
        ("config.json", lambda c: {**c, "model_type": "roberta"}),
        ("config.json", lambda c: {**c, "hidden_act": "relu"}),
        ("config.json", lambda c: {**c, "position_embedding_type": "relative_key"}),
        ("config.json", lambda c: {**c, "num_attention_heads": 7}),
        ("sentence_bert_config.json", lambda c: {**c, "do_lower_case": True}),
        ("sentence_bert_config.json", lambda c: {"do_lower_case": False}),
        ("sentence_bert_config.json", lambda c: {**c, "max_seq_length": 4096}),
        ("config_sentence_transformers.json", lambda c: {**c, "prompts": {"query": "query: "}}),
        ("config_sentence_transformers.json", lambda c: {**c, "default_prompt_name": "query"}),
    ],
)
def test_any_other_folder_goes_through_sentence_transformers(
    folder: Path, file: str, change: Callable[[Any], Any]
) -> None:
    _edit(folder / file, change)
    assert bert_folder(folder) is None


@pytest.mark.parametrize("missing", ["tokenizer.json", "model.safetensors", "modules.json"])
def test_a_folder_without_its_files_is_not_taken(folder: Path, missing: str) -> None:
    (folder / missing).unlink()
    assert bert_folder(folder) is None


def test_a_hub_name_or_a_damaged_file_is_not_taken(folder: Path) -> None:
    assert bert_folder(None) is None
    (folder / "config.json").write_text("{not json")
    assert bert_folder(folder) is None
