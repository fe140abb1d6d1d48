"""Which model folders the light loader (:mod:`explorer.embed.bert`) takes, read from their
JSON files alone (no torch, no numpy).

The common case — the bundled all-MiniLM-L6-v2, and any sentence-transformers folder like it —
is a BERT encoder whose ``modules.json`` lists a Transformer at the folder's root, a mean
Pooling and perhaps a Normalize, with its word pieces in ``tokenizer.json`` and its float32
weights in ``model.safetensors``.  Such a folder is described by a :class:`BertFolder`; any
other (another architecture or pooling, prompts, a lower-casing setting of sentence-transformers'
own, weights in another format) gives ``None`` and goes through sentence-transformers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TRANSFORMER = "sentence_transformers.models.Transformer"
POOLING = "sentence_transformers.models.Pooling"
NORMALIZE = "sentence_transformers.models.Normalize"

#: The pooling modes sentence-transformers' Pooling reads from its (older) configuration.
_POOLING_FLAGS = (
    "pooling_mode_cls_token",
    "pooling_mode_max_tokens",
    "pooling_mode_mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens",
    "pooling_mode_lasttoken",
)


@dataclass(frozen=True, slots=True)
class BertFolder:
    """A sentence-transformers folder of a mean-pooled BERT encoder."""

    path: Path
    hidden: int
    layers: int
    heads: int
    inner: int
    vocabulary: int
    positions: int
    token_types: int
    eps: float
    #: Word pieces the model reads of a text (special ones included); the rest is cut off.
    max_tokens: int
    #: Whether the pooled vector is normalised inside the model (a Normalize module).
    normalize: bool

    @property
    def tokenizer_file(self) -> Path:
        return self.path / "tokenizer.json"

    @property
    def weights_file(self) -> Path:
        return self.path / "model.safetensors"


def bert_folder(path: Path | None) -> BertFolder | None:
    """``path`` as a :class:`BertFolder`, or ``None`` when it is not one (then
    sentence-transformers loads it)."""
    if path is None:
        return None
    try:
        return _read(path)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _read(path: Path) -> BertFolder | None:
    modules = _json(path / "modules.json")
    kinds = [module["type"] for module in modules]
    if kinds not in ([TRANSFORMER, POOLING], [TRANSFORMER, POOLING, NORMALIZE]):
        return None
    if modules[0].get("path", "") != "":
        return None
    if not _mean_pooling(_json(path / modules[1]["path"] / "config.json")):
        return None
    if not _no_prompts(path / "config_sentence_transformers.json"):
        return None
    settings = _json(path / "sentence_bert_config.json")
    if set(settings) - {"max_seq_length", "do_lower_case"} or settings.get("do_lower_case"):
        return None
    config = _json(path / "config.json")
    plain = (
        config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and not config.get("is_decoder", False)
        and not config.get("add_cross_attention", False)
    )
    max_tokens = settings.get("max_seq_length")
    positions = int(config["max_position_embeddings"])
    if not plain or not isinstance(max_tokens, int) or not 2 <= max_tokens <= positions:
        return None
    if not (path / "tokenizer.json").is_file() or not (path / "model.safetensors").is_file():
        return None
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    if hidden % heads:
        return None
    return BertFolder(
        path=path,
        hidden=hidden,
        layers=int(config["num_hidden_layers"]),
        heads=heads,
        inner=int(config["intermediate_size"]),
        vocabulary=int(config["vocab_size"]),
        positions=positions,
        token_types=int(config.get("type_vocab_size", 2)),
        eps=float(config.get("layer_norm_eps", 1e-12)),
        max_tokens=max_tokens,
        normalize=len(kinds) == 3,
    )


def _mean_pooling(config: dict[str, Any]) -> bool:
    """Whether a Pooling configuration is a mean over the tokens and nothing else."""
    mode = config.get("pooling_mode")
    if mode is not None:  # the newer form: a name, or a list of them
        return mode == "mean" or mode == ["mean"]
    if not config.get("pooling_mode_mean_tokens"):
        return False
    return not any(config.get(flag) for flag in _POOLING_FLAGS) and config.get(
        "include_prompt", True
    )


def _no_prompts(path: Path) -> bool:
    """Whether the folder asks for no prompt before its texts (a missing file asks none)."""
    if not path.is_file():
        return True
    config = _json(path)
    return not config.get("prompts") and not config.get("default_prompt_name")
