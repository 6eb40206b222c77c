"""A LoRA adapter merged into its base weights in numpy: what ``peft``'s ``merge_and_unload`` computes, without
importing torch, transformers or peft.

Each adapted linear layer gets ``W + (B @ A) · lora_alpha / r`` (``/ √r`` with rsLoRA); the tensors the adapter
saved whole (its ``modules_to_save``: the head, the pooler, the norms; the biases it trained) replace the base's.
An adapter this module does not merge as peft would (DoRA, per-module ranks, adapted embeddings, weights stored
transposed) raises :class:`UnsupportedAdapter`, and the caller merges with peft instead.

Example:
    >>> a, b = np.ones((1, 2), np.float32), np.full((2, 1), 2.0, np.float32)  # rank 1
    >>> config = {"peft_type": "LORA", "r": 1, "lora_alpha": 2}
    >>> weights = {"base_model.model.dense.lora_A.weight": a, "base_model.model.dense.lora_B.weight": b}
    >>> merge_lora(config, weights, {"dense.weight": np.zeros((2, 2), np.float32)})["dense.weight"].tolist()
    [[4.0, 4.0], [4.0, 4.0]]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["UnsupportedAdapter", "merge_lora", "merge_lora_folder"]

_PREFIXES = ("base_model.model.",)
_SAVED_WHOLE = (".modules_to_save.default", ".modules_to_save", ".base_layer")


class UnsupportedAdapter(ValueError):
    """An adapter :func:`merge_lora` does not merge as peft would (the message says why)."""


def _check(config: Mapping[str, Any]) -> float:
    """The adapter's scaling (``lora_alpha / r``, or ``/ √r`` with rsLoRA) once its kind is one merged here.

    Raises:
        UnsupportedAdapter: If it is not a plain LoRA adapter on linear layers.
    """
    if config.get("peft_type", "LORA") != "LORA":
        raise UnsupportedAdapter(f"not a LoRA adapter ({config.get('peft_type')})")
    for key in ("use_dora", "fan_in_fan_out", "lora_bias", "use_qalora"):
        if config.get(key):
            raise UnsupportedAdapter(f"{key} is set")
    for key in ("rank_pattern", "alpha_pattern", "layer_replication", "trainable_token_indices"):
        if config.get(key):
            raise UnsupportedAdapter(f"{key} is set")
    rank, alpha = int(config["r"]), float(config["lora_alpha"])
    return alpha / (rank**0.5 if config.get("use_rslora") else rank)


def _name(name: str) -> str:
    for prefix in _PREFIXES:
        name = name.removeprefix(prefix)
    for part in _SAVED_WHOLE:
        name = name.replace(part + ".", ".")
    return name.removeprefix("bert.")


def merge_lora(
    config: Mapping[str, Any], adapter: Mapping[str, np.ndarray], base: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """``base`` (tensors by name, without the ``bert.`` prefix) with the adapter merged in, in float32.

    Raises:
        UnsupportedAdapter: If the adapter is of a kind not merged here, or adapts a tensor the base lacks.
    """
    scaling = _check(config)
    merged = {name: np.asarray(value, dtype=np.float32) for name, value in base.items()}
    pairs: dict[str, dict[str, np.ndarray]] = {}
    for name, value in adapter.items():
        for side in ("lora_A", "lora_B"):
            marker = f".{side}.weight"
            if name.endswith(marker):
                pairs.setdefault(_name(name.removesuffix(marker)), {})[side] = value
                break
        else:
            if ".lora_" in name:  # embeddings, magnitudes: not merged here
                raise UnsupportedAdapter(f"cannot merge {name}")
            merged[_name(name)] = np.asarray(value, dtype=np.float32)
    for layer, sides in pairs.items():
        target = layer + ".weight"
        if set(sides) != {"lora_A", "lora_B"} or target not in merged:
            raise UnsupportedAdapter(f"no base weight, or half a pair, for {layer}")
        a, b = (np.asarray(sides[s], dtype=np.float32) for s in ("lora_A", "lora_B"))
        delta = (b @ a) * np.float32(scaling)
        if delta.shape != merged[target].shape:
            raise UnsupportedAdapter(f"{layer}: the adapter's shape {delta.shape} is not the base's")
        merged[target] = merged[target] + delta
    return merged


def merge_lora_folder(folder: Path, base: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """:func:`merge_lora` of the adapter saved in ``folder`` (``adapter_config.json``,
    ``adapter_model.safetensors``)."""
    from safetensors.numpy import load_file

    config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
    return merge_lora(config, load_file(str(folder / "adapter_model.safetensors")), base)
