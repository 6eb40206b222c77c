"""The packaged MiniLM's forward pass in plain torch: what the offline judge runs on a GPU, without transformers.

Importing transformers and sentence-transformers (with the scikit-learn and scipy they bring) takes longer
than everything else a first score needs; the packaged all-MiniLM-L6-v2 is a 6-layer BERT, so its forward pass
is written here with torch alone, its weights read with ``safetensors`` and its word pieces cut by
``tokenizers`` (from the model's own ``tokenizer.json``). It computes what ``transformers``' ``BertModel``
computes (embeddings, post-norm encoder layers with exact GELU, scaled dot-product attention, the pooler), so
its outputs match within float rounding: ``tests/judges/offline/test_bert.py`` compares both on the same texts.
On the CPU the same pass runs in onnxruntime (:mod:`~rageval_lc.judges.offline.bert_onnx`), torch not imported.

:class:`BertForward` holds the weights of one model (a base model, or a sequence classifier with its pooler and
head); :class:`WordPieces` is its tokenizer with the calls the judge makes.

Example:
    >>> config = BertConfig(hidden_size=8, num_attention_heads=2, num_hidden_layers=1)
    >>> (config.head_size, config.layer_norm_eps)
    (4, 1e-12)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rageval_lc.judges.offline.bert_config import BertConfig, checked_weights, read_config, weight_names

__all__ = ["BertConfig", "BertForward", "SentenceModel", "WordPieces", "read_config", "weight_names"]


class WordPieces:
    """The model's tokenizer (``tokenizer.json``, through the ``tokenizers`` package): batches of ids with the
    padding and truncation ``transformers``' fast tokenizer applies, and the calls the judge makes.

    One per folder and process (:meth:`of`: the sentence model and the NLI model share the packaged one). Every
    call holds a lock: a ``tokenizers`` tokenizer whose truncation changes while another thread reads it raises
    "Already borrowed", and the truncation follows each call's ``max_length``."""

    _shared: ClassVar[dict[str, WordPieces]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, folder: str | Path) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._setting: tuple[int | None, bool] = (None, False)  # the truncation set now (None: none), and padding
        self._lock = threading.Lock()
        self.pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        specials = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
        self.all_special_ids = sorted({i for t in specials if (i := self._tokenizer.token_to_id(t)) is not None})
        self.cls_token_id = self._tokenizer.token_to_id("[CLS]")
        self.sep_token_id = self._tokenizer.token_to_id("[SEP]")

    @classmethod
    def of(cls, folder: str | Path) -> WordPieces:
        """The process's tokenizer of the model in ``folder`` (read once)."""
        key = str(Path(folder).resolve())
        with cls._shared_lock:
            if key not in cls._shared:
                cls._shared[key] = cls(folder)
            return cls._shared[key]

    def _truncate(self, max_length: int | None, *, pad: bool = True) -> None:
        """Truncate longest first to ``max_length`` and, where ``pad``, pad to a batch's longest (None: neither);
        the lock held."""
        setting = (max_length, pad and max_length is not None)
        if setting != self._setting:
            if max_length is None:
                self._tokenizer.no_truncation()
            else:
                self._tokenizer.enable_truncation(max_length, strategy="longest_first")
            if setting[1]:
                self._tokenizer.enable_padding(pad_id=self.pad_id, pad_token="[PAD]")
            else:
                self._tokenizer.no_padding()
            self._setting = setting

    def batch(
        self, texts: Sequence[str] | Sequence[tuple[str, str]], *, max_length: int
    ) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
        """Ids, attention masks and token type ids of ``texts`` (strings, or pairs), truncated longest first to
        ``max_length`` word pieces and padded to the longest."""
        with self._lock:
            self._truncate(max_length)
            encodings = self._tokenizer.encode_batch(list(texts))
        return (
            [e.ids for e in encodings],
            [e.attention_mask for e in encodings],
            [e.type_ids for e in encodings],
        )

    def batches(
        self, texts: Sequence[str] | Sequence[tuple[str, str]], *, max_length: int, max_items: int, max_pieces: int
    ) -> Iterator[tuple[list[int], dict[str, Any]]]:
        """``texts`` in batches of like length: each batch's indices into ``texts`` and its arrays
        (``input_ids``, ``attention_mask``, ``token_type_ids``: int64 numpy arrays, padded to the batch's longest).

        Texts are cut into word pieces once (truncated longest first to ``max_length``), then taken longest first,
        so a batch pads little; a batch holds at most ``max_items`` texts and ``max_pieces`` word pieces,
        padding included (one text at least), which bounds the memory a forward pass takes."""
        import numpy as np

        with self._lock:
            self._truncate(max_length, pad=False)
            encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))
        start = 0
        while start < len(order):
            longest = max(1, len(encodings[order[start]].ids))
            part = order[start : start + max(1, min(max_items, max_pieces // longest))]
            ids = np.full((len(part), longest), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(part), longest), dtype=np.int64)
            types = np.zeros((len(part), longest), dtype=np.int64)
            for row, i in enumerate(part):
                n = len(encodings[i].ids)
                ids[row, :n], mask[row, :n], types[row, :n] = encodings[i].ids, 1, encodings[i].type_ids
            yield part, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            start += len(part)

    def tokenize(self, text: str) -> list[str]:
        """The word pieces of ``text``, without the special tokens."""
        with self._lock:
            self._truncate(None)
            return self._tokenizer.encode(text, add_special_tokens=False).tokens

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        """The word piece of each id."""
        with self._lock:
            return [self._tokenizer.id_to_token(int(i)) for i in ids]


class BertForward:
    """A BERT's forward pass over weights given by name (``embeddings.*``, ``encoder.layer.N.*``, ``pooler.*``,
    ``classifier.*``: the names ``BertModel`` and ``BertForSequenceClassification`` save, the ``bert.`` prefix
    of the latter dropped).

    Args:
        weights: the tensors by name.
        config: the model's shape.
        classifier: whether the model has a pooler and a classification head (:meth:`logits`).
        device: where the weights go.

    Raises:
        ValueError: If a tensor the forward pass reads is missing, or one it would leave unread is there (a model
            this module does not run as ``transformers`` would).
    """

    def __init__(
        self, weights: Mapping[str, Any], config: BertConfig, *, classifier: bool = False, device: str = "cpu"
    ) -> None:
        import torch

        self.config = config
        self.device = torch.device(device)
        w = checked_weights(weights, config, classifier=classifier)
        self.weights = {k: torch.as_tensor(v).to(self.device, torch.float32) for k, v in w.items()}

    def hidden_states(self, input_ids: Any, attention_mask: Any, token_type_ids: Any | None = None) -> Any:
        """The last layer's hidden states (batch × length × hidden), as ``BertModel(...).last_hidden_state``."""
        import torch
        from torch.nn import functional as F

        w, config = self.weights, self.config
        batch, length = input_ids.shape
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        positions = torch.arange(length, device=input_ids.device).unsqueeze(0)
        x = F.embedding(input_ids, w["embeddings.word_embeddings.weight"])
        x = x + F.embedding(token_type_ids, w["embeddings.token_type_embeddings.weight"])
        x = x + F.embedding(positions, w["embeddings.position_embeddings.weight"])
        x = self._norm(x, "embeddings.LayerNorm")
        mask = attention_mask.to(torch.bool)[:, None, None, :]  # keys a query may attend to
        heads, size = config.num_attention_heads, config.head_size
        for i in range(config.num_hidden_layers):
            p = f"encoder.layer.{i}."

            def split(t: Any) -> Any:
                return t.view(batch, length, heads, size).transpose(1, 2)

            q = split(self._linear(x, p + "attention.self.query"))
            k = split(self._linear(x, p + "attention.self.key"))
            v = split(self._linear(x, p + "attention.self.value"))
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0, scale=size**-0.5)
            a = a.transpose(1, 2).reshape(batch, length, heads * size)
            x = self._norm(self._linear(a, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = F.gelu(self._linear(x, p + "intermediate.dense"))
            x = self._norm(self._linear(h, p + "output.dense") + x, p + "output.LayerNorm")
        return x

    def logits(self, input_ids: Any, attention_mask: Any, token_type_ids: Any | None = None) -> Any:
        """The classification head's logits, as ``BertForSequenceClassification(...).logits``."""
        import torch

        hidden = self.hidden_states(input_ids, attention_mask, token_type_ids)
        pooled = torch.tanh(self._linear(hidden[:, 0], "pooler.dense"))
        return self._linear(pooled, "classifier")

    def _linear(self, x: Any, name: str) -> Any:
        from torch.nn import functional as F

        return F.linear(x, self.weights[name + ".weight"], self.weights.get(name + ".bias"))

    def _norm(self, x: Any, name: str) -> Any:
        from torch.nn import functional as F

        weight = self.weights[name + ".weight"]
        return F.layer_norm(x, weight.shape, weight, self.weights[name + ".bias"], self.config.layer_norm_eps)


class SentenceModel:
    """The packaged sentence-transformers model (a BERT, mean pooling, unit vectors) with the calls
    :class:`~rageval_lc.judges.offline.encoder.SentenceTransformerEncoder` makes: :meth:`embed_batch`,
    :meth:`hidden_states`, ``tokenizer``, ``max_seq_length``, ``device``. Its forward pass runs in onnxruntime on the
    CPU (:class:`~rageval_lc.judges.offline.bert_onnx.OnnxBert`; numpy where onnxruntime is missing) and in torch
    (:class:`BertForward`) on a GPU, or where ``runtime="torch"``
    (:func:`~rageval_lc.judges.offline.runtime.choose_runtime`).

    Args:
        folder: the model's folder (``config.json``, ``model.safetensors``, ``tokenizer.json``, its
            sentence-transformers files).
        device: where it runs.
        runtime: ``auto``, ``onnx``, ``numpy`` or ``torch``.
    """

    def __init__(self, folder: str | Path, *, device: str = "cpu", runtime: str = "auto") -> None:
        from safetensors.numpy import load_file

        from rageval_lc.judges.offline.runtime import CPU_RUNTIMES, choose_runtime, cpu_forward

        folder = Path(folder)
        config = read_config(folder)
        if config is None or not self.supports(folder):
            msg = f"{folder} is not a mean-pooled BERT sentence model this module runs."
            raise ValueError(msg)
        settings = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        self.max_seq_length = int(settings["max_seq_length"])
        self.tokenizer = WordPieces.of(folder)
        self.runtime = choose_runtime(runtime, device)
        weights = load_file(str(folder / "model.safetensors"))
        self.bert: Any
        if self.runtime in CPU_RUNTIMES:
            self.bert = cpu_forward(self.runtime, weights, config)
        else:
            self.bert = BertForward(weights, config, device=device)

    @staticmethod
    def supports(folder: str | Path) -> bool:
        """Whether ``folder`` holds a model this class runs as sentence-transformers does: a BERT
        (:func:`read_config`) with its weights in ``model.safetensors`` and a ``tokenizer.json``, then mean
        pooling and normalisation, texts not lower-cased by sentence-transformers itself."""
        folder = Path(folder)
        needed = ("modules.json", "sentence_bert_config.json", "1_Pooling/config.json")
        needed += ("model.safetensors", "tokenizer.json")
        if read_config(folder) is None or not all((folder / name).is_file() for name in needed):
            return False
        try:
            modules = [m["type"].rsplit(".", 1)[-1] for m in json.loads((folder / "modules.json").read_text("utf-8"))]
            pooling = json.loads((folder / "1_Pooling/config.json").read_text("utf-8"))
            settings = json.loads((folder / "sentence_bert_config.json").read_text("utf-8"))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False
        modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
        return (
            modules == ["Transformer", "Pooling", "Normalize"]
            and modes == {"pooling_mode_mean_tokens"}
            and not settings.get("do_lower_case")
            and isinstance(settings.get("max_seq_length"), int)
        )

    @property
    def device(self) -> Any:
        """Where the weights are (``cpu`` for numpy, a torch device otherwise)."""
        return self.bert.device

    def eval(self) -> SentenceModel:
        """Nothing to switch: the forward pass has no dropout."""
        return self

    def get_embedding_dimension(self) -> int:
        """Numbers per sentence vector."""
        return self.bert.config.hidden_size

    def embed_batch(self, batch: Mapping[str, Any]) -> tuple[Any, Any, Any]:
        """One batch cut into word pieces (``input_ids``, ``attention_mask``, ``token_type_ids``: numpy arrays, as
        :meth:`WordPieces.batches` gives them), as numpy arrays: the ids, the last hidden states
        (``token_embeddings``, batch × length × hidden) and the sentence vectors (their mean over the attention mask,
        unit length), as sentence-transformers computes them."""
        import numpy as np

        hidden = self.forward(batch)
        weights = batch["attention_mask"][..., None].astype(np.float32)
        mean = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), np.float32(1e-9))
        norms = np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), np.float32(1e-12))
        return batch["input_ids"], hidden, mean / norms

    def hidden_states(self, texts: Sequence[str], *, max_length: int) -> tuple[Any, dict[str, Any]]:
        """The last hidden states of ``texts`` truncated to ``max_length`` word pieces (a float32 numpy array),
        and the batch (``input_ids``, ``attention_mask``, ``token_type_ids``: numpy arrays)."""
        batch = _arrays(*self.tokenizer.batch(list(texts), max_length=max_length))
        return self.forward(batch), batch

    def forward(self, batch: Mapping[str, Any]) -> Any:
        """The last hidden states (a float32 numpy array) of a batch of numpy arrays."""
        if self.runtime != "torch":
            return self.bert.hidden_states(**batch)
        import torch

        with torch.inference_mode():
            on_device = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
            return self.bert.hidden_states(**on_device).float().cpu().numpy()


def _arrays(ids: Any, mask: Any, types: Any) -> dict[str, Any]:
    """A padded batch's lists as the int64 numpy arrays a forward pass takes."""
    import numpy as np

    names = ("input_ids", "attention_mask", "token_type_ids")
    return {name: np.array(values, dtype=np.int64) for name, values in zip(names, (ids, mask, types), strict=True)}
