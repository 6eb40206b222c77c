"""Which runtime runs the offline judge's models: onnxruntime (or numpy) on the CPU, torch on a GPU.

``auto`` (the default) is ``onnx`` on the CPU in float32 (:mod:`~rageval_lc.judges.offline.bert_onnx`: the forward
pass as an ONNX graph run by onnxruntime, torch not imported; ``numpy`` where onnxruntime is not installed) and
``torch`` on CUDA or MPS, or where a lower precision (``bfloat16``, ``float16``) is asked for. ``RAGEVAL_RUNTIME``
(``onnx``, ``numpy`` or ``torch``) says what ``auto`` means on the CPU. ``numpy``
(:mod:`~rageval_lc.judges.offline.bert_numpy`) is the same pass in numpy; ``torch`` on the CPU runs it in torch
(:mod:`~rageval_lc.judges.offline.bert`), as the judge did before.

Example:
    >>> choose_runtime("auto", "cpu", environ={"RAGEVAL_RUNTIME": "numpy"})
    'numpy'
    >>> choose_runtime("auto", "cpu", environ={"RAGEVAL_RUNTIME": "torch"})
    'torch'
    >>> choose_runtime("auto", "cuda", environ={}), choose_runtime("auto", "cpu", "bfloat16", environ={})
    ('torch', 'torch')
    >>> choose_runtime("numpy", "cuda")
    Traceback (most recent call last):
    ...
    ValueError: The numpy runtime runs on the CPU in float32; got device 'cuda', precision 'auto'. Use runtime 'torch'.
    >>> cpu_forward("numpy", {}, BertConfig(8, 2, 1))
    Traceback (most recent call last):
    ...
    ValueError: Not the weights of this BERT: missing ['embeddings.LayerNorm.bias', ...], unread [].
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rageval_lc.judges.offline.bert_config import BertConfig

__all__ = ["CPU_RUNTIMES", "RUNTIMES", "choose_runtime", "cpu_forward"]

RUNTIMES = ("auto", "onnx", "numpy", "torch")
CPU_RUNTIMES = ("onnx", "numpy")  # CPU only, float32, outputs as numpy arrays
_CPU_PRECISIONS = ("auto", "float32")


def choose_runtime(
    runtime: str, device: str, precision: str = "auto", *, environ: Mapping[str, str] | None = None
) -> str:
    """``onnx``, ``numpy`` or ``torch``: ``runtime`` itself, or what ``auto`` means on ``device`` at ``precision``.

    Raises:
        ValueError: If ``runtime`` is unknown, or is ``numpy`` off the CPU or below float32.
    """
    name = str(runtime).strip().lower()
    if name not in RUNTIMES:
        msg = f"Unknown runtime {runtime!r}. Use {', '.join(RUNTIMES)}."
        raise ValueError(msg)
    on_cpu = str(device) == "cpu" and precision in _CPU_PRECISIONS
    if name == "auto":
        if not on_cpu:
            return "torch"
        asked = (os.environ if environ is None else environ).get("RAGEVAL_RUNTIME", "").strip().lower()
        if asked in RUNTIMES[1:]:
            return asked
        from rageval_lc.judges.offline.bert_onnx import onnx_available

        return "onnx" if onnx_available() else "numpy"
    if name in CPU_RUNTIMES and not on_cpu:
        msg = (
            f"The {name} runtime runs on the CPU in float32; got device {device!r}, precision {precision!r}. "
            "Use runtime 'torch'."
        )
        raise ValueError(msg)
    return name


def cpu_forward(runtime: str, weights: Mapping[str, Any], config: BertConfig, *, classifier: bool = False) -> Any:
    """The forward pass of a BERT with these weights in a CPU runtime (``onnx`` or ``numpy``): an object with
    ``hidden_states`` (and ``logits`` for a classifier) taking and giving numpy arrays.

    Raises:
        ValueError: If ``runtime`` is not a CPU runtime, or the weights are not this BERT's.
    """
    if runtime == "onnx":
        from rageval_lc.judges.offline.bert_onnx import OnnxBert

        return OnnxBert(weights, config, classifier=classifier)
    if runtime == "numpy":
        from rageval_lc.judges.offline.bert_numpy import NumpyBert

        return NumpyBert(weights, config, classifier=classifier)
    msg = f"{runtime!r} is not a CPU runtime ({', '.join(CPU_RUNTIMES)})."
    raise ValueError(msg)
