"""A BERT model's configuration and weight names, read from its folder: what both forward passes (torch,
:mod:`~rageval_lc.judges.offline.bert`; numpy, :mod:`~rageval_lc.judges.offline.bert_numpy`) are built from.

Example:
    >>> config = BertConfig(hidden_size=8, num_attention_heads=2, num_hidden_layers=1)
    >>> (config.head_size, config.layer_norm_eps)
    (4, 1e-12)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BertConfig", "checked_weights", "read_config", "weight_names"]

_SUPPORTED = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}


@dataclass(frozen=True)
class BertConfig:
    """The shape of a BERT model, as its ``config.json`` says."""

    hidden_size: int
    num_attention_heads: int
    num_hidden_layers: int
    layer_norm_eps: float = 1e-12
    max_position_embeddings: int = 512

    @property
    def head_size(self) -> int:
        """Numbers per attention head."""
        return self.hidden_size // self.num_attention_heads


def read_config(folder: str | Path) -> BertConfig | None:
    """The model's shape from ``folder/config.json``, or None when it is not a BERT this module runs as
    ``transformers`` would (another architecture, activation or position embedding)."""
    path = Path(folder) / "config.json"
    if not path.is_file():
        return None
    config = json.loads(path.read_text(encoding="utf-8"))
    if any(config.get(key, value) != value for key, value in _SUPPORTED.items()):
        return None
    if config.get("is_decoder") or config.get("add_cross_attention"):
        return None
    return BertConfig(
        hidden_size=int(config["hidden_size"]),
        num_attention_heads=int(config["num_attention_heads"]),
        num_hidden_layers=int(config["num_hidden_layers"]),
        layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
        max_position_embeddings=int(config.get("max_position_embeddings", 512)),
    )


def weight_names(config: BertConfig, *, classifier: bool) -> set[str]:
    """The names of the tensors a forward pass reads: the base model's, with the pooler and the classification
    head when ``classifier``."""
    names = {f"embeddings.{kind}_embeddings.weight" for kind in ("word", "position", "token_type")}
    names |= {"embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"}
    parts = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense")
    parts += ("attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm")
    for i in range(config.num_hidden_layers):
        names |= {f"encoder.layer.{i}.{part}.{kind}" for part in parts for kind in ("weight", "bias")}
    if classifier:
        names |= {f"{part}.{kind}" for part in ("pooler.dense", "classifier") for kind in ("weight", "bias")}
    return names


def checked_weights(weights: Mapping[str, Any], config: BertConfig, *, classifier: bool) -> dict[str, Any]:
    """The tensors a forward pass reads, by name: a ``bert.`` prefix dropped, the ``position_ids`` buffer and (not
    ``classifier``) a base model's unused pooler left out.

    Raises:
        ValueError: If a tensor the forward pass reads is missing, or one it would leave unread is there (a model
            the forward passes here do not run as ``transformers`` would).
    """
    w = {name.removeprefix("bert."): tensor for name, tensor in weights.items()}
    w.pop("embeddings.position_ids", None)  # a buffer, not a weight
    if not classifier:
        w = {k: v for k, v in w.items() if not k.startswith("pooler.")}
    expected = weight_names(config, classifier=classifier)
    if set(w) != expected:
        missing, unread = sorted(expected - set(w)), sorted(set(w) - expected)
        msg = f"Not the weights of this BERT: missing {missing[:4]}, unread {unread[:4]}."
        raise ValueError(msg)
    return w
