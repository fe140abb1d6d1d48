"""The light loader: a mean-pooled BERT folder (:mod:`explorer.embed.bert_folder`, the bundled
all-MiniLM-L6-v2 among them) run with torch, tokenizers and safetensors alone.

A new process's first search spent most of its 6 s importing: ``sentence_transformers`` took
2.6 s past ``transformers`` and torch, and importing even ``transformers``' own ``BertModel``
takes 2.6 s past torch (it pulls in ``torch.distributed``, sympy, scipy), while the model is
six plain encoder layers.  Here they are, written once: the embeddings, each layer's attention
and feed-forward, the mean over the text's word pieces and the normalisation, in the same
operations and the same order as ``transformers`` and sentence-transformers run them (also in
bfloat16: the pooled sum in float32, the mean and its normalisation in the model's type), so
the vectors are theirs (``tests/embed/test_bert.py`` compares them) and an index embedded
through either is searched through the other, unchanged.

:class:`MeanPooledBert` is the model :class:`~explorer.embed.sbert.SentenceTransformerEmbedder`
runs: a ``torch.nn.Module`` (cast, copied and given its pause points between layers as any
other), with the few members of a ``SentenceTransformer`` it reads (``tokenizer``,
``max_seq_length``, ``encode``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from safetensors import safe_open
from tokenizers import Tokenizer
from torch import nn

from explorer.embed.base import EmbedderUnavailable, Matrix, normalize_rows
from explorer.embed.bert_folder import BertFolder


class UnfitWeights(EmbedderUnavailable):
    """The folder's weights are not those of the BERT its configuration describes (the loader
    then gives the folder to sentence-transformers)."""


class TokenizerFile:
    """A folder's ``tokenizer.json``, called as the embedder and the chunk strip call a Hugging
    Face fast tokenizer: ``tokenizer(texts, truncation=True, max_length=N)["input_ids"]``
    (one text, or a list), with ``return_offsets_mapping`` for where each piece is.  Its
    truncation is set per call (the file's own padding and truncation are dropped), so one is
    used by one thread at a time, as the embedder does (it copies it for each)."""

    is_fast = True

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._cut: int | None = None

    @classmethod
    def from_file(cls, path: str) -> TokenizerFile:
        return cls(Tokenizer.from_file(path))

    def __call__(
        self,
        text: str | Sequence[str],
        *,
        truncation: bool = False,
        max_length: int | None = None,
        add_special_tokens: bool = True,
        return_offsets_mapping: bool = False,
    ) -> dict[str, Any]:
        if truncation and max_length is None:
            raise ValueError("truncation needs max_length")
        cut = max_length if truncation else None
        if cut != self._cut:
            if cut is None:
                self._tokenizer.no_truncation()
            else:
                self._tokenizer.enable_truncation(cut)
            self._cut = cut
        texts = [text] if isinstance(text, str) else list(text)
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=add_special_tokens)
        out: dict[str, Any] = {"input_ids": [each.ids for each in encodings]}
        if return_offsets_mapping:
            out["offset_mapping"] = [each.offsets for each in encodings]
        return {key: value[0] for key, value in out.items()} if isinstance(text, str) else out


class _Weights:
    """A folder's weights by ``transformers``' names, each taken once, of the shape the
    configuration says (else :class:`UnfitWeights`)."""

    def __init__(self, tensors: dict[str, torch.Tensor]) -> None:
        self._tensors = tensors

    def take(self, name: str, *shape: int) -> nn.Parameter:
        tensor = self._tensors.pop(name, None)
        if tensor is None:
            raise UnfitWeights(f"the weights have no {name}")
        if tuple(tensor.shape) != shape:
            raise UnfitWeights(f"{name} is {tuple(tensor.shape)}, not {shape}")
        return nn.Parameter(tensor, requires_grad=False)

    def done(self) -> None:
        """Every weight was taken (an unknown one is a model this is not)."""
        if self._tensors:
            raise UnfitWeights(f"unknown weights: {', '.join(sorted(self._tensors)[:3])}")


class _Dense(nn.Module):
    """``x @ weight.T + bias`` (``torch.nn.Linear``'s product), given its weights: nothing is
    initialised only to be replaced (initialising 22 M weights, or on the meta device, cost
    seconds)."""

    def __init__(self, weights: _Weights, name: str, outputs: int, inputs: int) -> None:
        super().__init__()
        self.weight = weights.take(f"{name}.weight", outputs, inputs)
        self.bias = weights.take(f"{name}.bias", outputs)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return F.linear(states, self.weight, self.bias)


class _Norm(nn.Module):
    """``torch.nn.LayerNorm``'s normalisation, given its weights."""

    def __init__(self, weights: _Weights, name: str, size: int, eps: float) -> None:
        super().__init__()
        self.weight = weights.take(f"{name}.weight", size)
        self.bias = weights.take(f"{name}.bias", size)
        self.eps = eps

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(states, (states.shape[-1],), self.weight, self.bias, self.eps)


class _Layer(nn.Module):
    """One encoder layer: self-attention, then the feed-forward, each added to its input and
    normalised (BERT's post-norm)."""

    def __init__(self, weights: _Weights, folder: BertFolder, number: int) -> None:
        super().__init__()
        hidden, inner, eps = folder.hidden, folder.inner, folder.eps
        at = f"encoder.layer.{number}."
        self.heads = folder.heads
        self.query = _Dense(weights, at + "attention.self.query", hidden, hidden)
        self.key = _Dense(weights, at + "attention.self.key", hidden, hidden)
        self.value = _Dense(weights, at + "attention.self.value", hidden, hidden)
        self.attention_out = _Dense(weights, at + "attention.output.dense", hidden, hidden)
        self.attention_norm = _Norm(weights, at + "attention.output.LayerNorm", hidden, eps)
        self.inner = _Dense(weights, at + "intermediate.dense", inner, hidden)
        self.out = _Dense(weights, at + "output.dense", hidden, inner)
        self.out_norm = _Norm(weights, at + "output.LayerNorm", hidden, eps)

    def forward(self, states: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        batch, length, _ = states.shape

        def split(projected: torch.Tensor) -> torch.Tensor:
            return projected.view(batch, length, self.heads, -1).transpose(1, 2)

        context = F.scaled_dot_product_attention(
            split(self.query(states)),
            split(self.key(states)),
            split(self.value(states)),
            attn_mask=mask,
        )
        context = context.transpose(1, 2).reshape(batch, length, -1)
        states = self.attention_norm(self.attention_out(context) + states)
        return self.out_norm(self.out(F.gelu(self.inner(states))) + states)


#: Weights of the folder that the sentence vector does not use.
_UNUSED = ("pooler.", "embeddings.position_ids")


class MeanPooledBert(nn.Module):
    """A BERT encoder, its word pieces' states averaged (padding aside) and, if the folder says
    so, normalised: one vector per text."""

    def __init__(self, folder: BertFolder, tokenizer: TokenizerFile, weights: _Weights) -> None:
        super().__init__()
        self.tokenizer = tokenizer
        self.max_seq_length = folder.max_tokens
        self._dimension = folder.hidden
        self._normalize = folder.normalize
        hidden = folder.hidden
        self.words = weights.take("embeddings.word_embeddings.weight", folder.vocabulary, hidden)
        self.positions = weights.take(
            "embeddings.position_embeddings.weight", folder.positions, hidden
        )
        self.token_types = weights.take(
            "embeddings.token_type_embeddings.weight", folder.token_types, hidden
        )
        self.embedding_norm = _Norm(weights, "embeddings.LayerNorm", hidden, folder.eps)
        self.layers = nn.ModuleList(_Layer(weights, folder, n) for n in range(folder.layers))
        weights.done()

    def get_embedding_dimension(self) -> int:
        return self._dimension

    def forward(self, ids: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
        """The sentence vectors of a padded batch of word pieces (``attention``: 1 on a text's
        pieces, 0 on padding), in the model's type."""
        length = ids.shape[1]
        positions = torch.arange(length).unsqueeze(0)
        states = (
            F.embedding(ids, self.words)
            + F.embedding(torch.zeros_like(ids), self.token_types)
            + F.embedding(positions, self.positions)
        )
        states = self.embedding_norm(states)
        padded = bool((attention == 0).any())
        mask = attention.bool()[:, None, None, :] if padded else None
        for layer in self.layers:
            states = layer(states, mask)
        weights = attention.unsqueeze(-1).to(states.dtype)
        half = states.dtype in (torch.float16, torch.bfloat16)
        total = torch.float32 if half else states.dtype
        summed = (states * weights).sum(dim=1, dtype=total)
        counted = torch.clamp(weights.sum(dim=1, dtype=total), min=1e-9)
        vectors = (summed / counted).to(states.dtype)
        return F.normalize(vectors, p=2, dim=-1) if self._normalize else vectors

    def encode(
        self,
        sentences: list[str],
        *,
        batch_size: int | None = None,
        convert_to_numpy: bool = True,
        normalize_embeddings: bool = False,
        show_progress_bar: bool = False,
    ) -> Matrix:
        """``sentences`` as float32 rows, ``batch_size`` texts a forward pass (default: all), as
        a ``SentenceTransformer``'s ``encode`` gives them (numpy only; no progress bar)."""
        del convert_to_numpy, show_progress_bar  # always numpy, never a bar
        size = batch_size or max(1, len(sentences))
        rows = [self._batch(sentences[at : at + size]) for at in range(0, len(sentences), size)]
        out = np.concatenate(rows) if rows else np.zeros((0, self._dimension), np.float32)
        return normalize_rows(out) if normalize_embeddings else np.ascontiguousarray(out)

    def _batch(self, texts: list[str]) -> Matrix:
        pieces = self.tokenizer(texts, truncation=True, max_length=self.max_seq_length)
        lists = pieces["input_ids"]
        longest = max(len(each) for each in lists)
        ids = torch.zeros((len(lists), longest), dtype=torch.long)
        attention = torch.zeros((len(lists), longest), dtype=torch.long)
        for row, each in enumerate(lists):
            ids[row, : len(each)] = torch.tensor(each, dtype=torch.long)
            attention[row, : len(each)] = 1
        with torch.inference_mode():
            vectors = self(ids, attention)
        return vectors.float().numpy()


def load_bert(folder: BertFolder) -> MeanPooledBert:
    """The model of ``folder``, in float32 on the CPU, its weights read from its safetensors
    file.  Raises :class:`UnfitWeights` when they are not exactly the configured BERT's."""
    weights = _Weights(_weights(folder))
    tokenizer = TokenizerFile.from_file(str(folder.tokenizer_file))
    return MeanPooledBert(folder, tokenizer, weights).eval()


def _weights(folder: BertFolder) -> dict[str, torch.Tensor]:
    """The folder's float32 weights by ``transformers``' names (a ``bert.`` before them
    dropped), but for those the sentence vector does not use."""
    out: dict[str, torch.Tensor] = {}
    with safe_open(str(folder.weights_file), framework="pt") as weights:
        for name in weights.keys():  # noqa: SIM118 - a safetensors file is not a dict
            bare = name.removeprefix("bert.")
            if bare.startswith(_UNUSED):
                continue
            tensor = weights.get_tensor(name)
            if tensor.dtype != torch.float32:
                raise UnfitWeights(f"{name} is {tensor.dtype}, not float32")
            out[bare] = tensor
    return out
