"""The packaged MiniLM's forward pass in numpy: what the offline judge runs on a CPU where onnxruntime is missing.

The same computation as :class:`~rageval_lc.judges.offline.bert.BertForward` (embeddings, post-norm encoder layers
with exact GELU, masked scaled dot-product attention, the pooler and the classification head) in float32 numpy,
its matrix products in the BLAS numpy ships with. Importing torch takes longer than the rest of a first score; on a
CPU this pass gives the same vectors and probabilities within float rounding
(``tests/judges/offline/test_cpu_runtimes.py`` compares both on real sentences and pairs).

Memory stays bounded: attention runs a few texts at a time (at most ~16 MB of scores) and the feed-forward
block a few hundred word pieces at a time.

Example:
    >>> [round(float(v), 6) for v in erf(np.array([0.0, 0.5, -1.0, 3.0], dtype=np.float32))]  # as math.erf gives
    [0.0, 0.5205, -0.842701, 0.999978]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rageval_lc.judges.offline.bert_config import BertConfig, checked_weights

__all__ = ["NumpyBert", "erf", "gelu"]

_SCORES_PER_CHUNK = 4 * 2**20  # attention scores computed at once (floats): batch × heads × length² ≤ this
_ROWS_PER_FFN_BLOCK = 512  # word pieces through the feed-forward block at once (its 4× wider middle stays small)
# Abramowitz & Stegun 7.1.26: |error| < 1.5e-7 on the whole line, below float32's rounding of GELU's output.
_P = np.float32(0.3275911)
_A = tuple(np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, element-wise, in float32 (numpy has none; scipy's import would cost more than it)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + _P * a)
    poly = _A[0] * t
    for coefficient in _A[1:]:
        poly += coefficient
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU, x·Φ(x), in place of ``x``'s copy: 0.5·x·(1 + erf(x/√2))."""
    out = erf(x * np.float32(0.5**0.5))
    out += 1.0
    out *= x
    out *= 0.5
    return out


class NumpyBert:
    """A BERT's forward pass in float32 numpy over weights given by name (the names
    :class:`~rageval_lc.judges.offline.bert.BertForward` reads; numpy arrays or anything ``np.asarray`` takes).

    Args:
        weights: the tensors by name (a ``bert.`` prefix dropped).
        config: the model's shape.
        classifier: whether the model has a pooler and a classification head (:meth:`logits`).

    Raises:
        ValueError: If a tensor the forward pass reads is missing, or one it would leave unread is there.
    """

    device = "cpu"

    def __init__(self, weights: Mapping[str, Any], config: BertConfig, *, classifier: bool = False) -> None:
        self.config = config
        w = checked_weights(weights, config, classifier=classifier)
        w = {k: np.asarray(v, dtype=np.float32) for k, v in w.items()}
        self.embeddings = {
            kind: w[f"embeddings.{kind}_embeddings.weight"] for kind in ("word", "position", "token_type")
        }
        self.embedding_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [_Layer(w, f"encoder.layer.{i}.") for i in range(config.num_hidden_layers)]
        self.head: tuple[np.ndarray, ...] = ()
        if classifier:  # x @ w.T: a transposed view, which BLAS reads as it is (no copy)
            parts = ("pooler.dense.weight", "pooler.dense.bias", "classifier.weight", "classifier.bias")
            pooler, pooler_bias, head, head_bias = (w[name] for name in parts)
            self.head = (pooler.T, pooler_bias, head.T, head_bias)

    def hidden_states(self, input_ids: Any, attention_mask: Any, token_type_ids: Any | None = None) -> np.ndarray:
        """The last layer's hidden states (batch × length × hidden, float32), as ``BertModel``'s."""
        ids = np.asarray(input_ids, dtype=np.int64)
        mask = np.asarray(attention_mask).astype(bool)
        batch, length = ids.shape
        types = np.zeros_like(ids) if token_type_ids is None else np.asarray(token_type_ids, dtype=np.int64)
        e = self.embeddings
        x = e["word"][ids] + e["token_type"][types] + e["position"][:length][None]
        x = _layer_norm(x.reshape(batch * length, -1), *self.embedding_norm, self.config.layer_norm_eps)
        bias = np.where(mask, np.float32(0.0), np.float32(-np.inf))[:, None, None, :]  # keys a query may attend to
        for layer in self.layers:
            x = layer(x, bias, self.config)
        return x.reshape(batch, length, -1)

    def logits(self, input_ids: Any, attention_mask: Any, token_type_ids: Any | None = None) -> np.ndarray:
        """The classification head's logits, as ``BertForSequenceClassification``'s."""
        pooler, pooler_bias, head, head_bias = self.head
        first = self.hidden_states(input_ids, attention_mask, token_type_ids)[:, 0]
        return np.tanh(first @ pooler + pooler_bias) @ head + head_bias


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    centred = x - x.mean(axis=-1, keepdims=True)
    scale = np.sqrt(np.square(centred).mean(axis=-1, keepdims=True) + np.float32(eps))
    centred /= scale
    centred *= weight
    centred += bias
    return centred


class _Layer:
    """One encoder layer's weights, laid out for numpy: query, key and value in one product, every matrix
    read through transposed views (BLAS takes them as they are: no copy)."""

    def __init__(self, w: Mapping[str, np.ndarray], prefix: str) -> None:
        def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
            return w[prefix + name + ".weight"].T, w[prefix + name + ".bias"]

        parts = [linear(f"attention.self.{n}") for n in ("query", "key", "value")]
        self.qkv = (
            np.concatenate([p[0] for p in parts], axis=1),
            np.concatenate([p[1] for p in parts]),
        )
        self.attention_out = linear("attention.output.dense")
        self.intermediate = linear("intermediate.dense")
        self.out = linear("output.dense")
        self.attention_norm = (
            w[prefix + "attention.output.LayerNorm.weight"],
            w[prefix + "attention.output.LayerNorm.bias"],
        )
        self.out_norm = (w[prefix + "output.LayerNorm.weight"], w[prefix + "output.LayerNorm.bias"])

    def __call__(self, x: np.ndarray, bias: np.ndarray, config: BertConfig) -> np.ndarray:
        """The layer on ``x`` (batch·length × hidden); ``bias``: 0 for a key a query may attend to, −∞ else."""
        batch, length = bias.shape[0], bias.shape[-1]
        heads, size = config.num_attention_heads, config.head_size
        weight, b = self.qkv
        qkv = (x @ weight + b).reshape(batch, length, 3, heads, size).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0] * np.float32(size**-0.5), qkv[1], qkv[2]
        context = np.empty((batch, length, heads, size), dtype=np.float32)
        step = max(1, _SCORES_PER_CHUNK // (heads * length * length))
        for start in range(0, batch, step):
            part = slice(start, start + step)
            scores = q[part] @ k[part].swapaxes(-1, -2)
            scores += bias[part]
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context[part] = (scores @ v[part]).transpose(0, 2, 1, 3)
        weight, b = self.attention_out
        x = _layer_norm(
            context.reshape(batch * length, -1) @ weight + b + x, *self.attention_norm, config.layer_norm_eps
        )
        out = np.empty_like(x)
        for start in range(0, x.shape[0], _ROWS_PER_FFN_BLOCK):
            block = x[start : start + _ROWS_PER_FFN_BLOCK]
            middle = gelu(block @ self.intermediate[0] + self.intermediate[1])
            out[start : start + _ROWS_PER_FFN_BLOCK] = middle @ self.out[0] + self.out[1] + block
        return _layer_norm(out, *self.out_norm, config.layer_norm_eps)
