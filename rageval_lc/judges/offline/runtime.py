"""Which runtime runs the offline judge's models: numpy on the CPU, torch on a GPU.

``auto`` (the default) is ``numpy`` on the CPU in float32 (:mod:`~rageval_lc.judges.offline.bert_numpy`: torch is
not imported) and ``torch`` on CUDA or MPS, or where a lower precision (``bfloat16``, ``float16``) is asked for;
``RAGEVAL_RUNTIME=torch`` makes ``auto`` mean ``torch`` everywhere. ``torch`` on the CPU runs the same forward pass
in torch (:mod:`~rageval_lc.judges.offline.bert`), as the judge did before the numpy runtime.

Example:
    >>> choose_runtime("auto", "cpu", environ={}), choose_runtime("auto", "cpu", environ={"RAGEVAL_RUNTIME": "torch"})
    ('numpy', 'torch')
    >>> choose_runtime("auto", "cuda", environ={}), choose_runtime("auto", "cpu", "bfloat16", environ={})
    ('torch', 'torch')
    >>> choose_runtime("numpy", "cuda")
    Traceback (most recent call last):
    ...
    ValueError: The numpy runtime runs on the CPU in float32; got device 'cuda', precision 'auto'. Use runtime 'torch'.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["RUNTIMES", "choose_runtime"]

RUNTIMES = ("auto", "numpy", "torch")
_NUMPY_PRECISIONS = ("auto", "float32")


def choose_runtime(
    runtime: str, device: str, precision: str = "auto", *, environ: Mapping[str, str] | None = None
) -> str:
    """``numpy`` or ``torch``: ``runtime`` itself, or what ``auto`` means on ``device`` at ``precision``.

    Raises:
        ValueError: If ``runtime`` is unknown, or is ``numpy`` off the CPU or below float32.
    """
    name = str(runtime).strip().lower()
    if name not in RUNTIMES:
        msg = f"Unknown runtime {runtime!r}. Use {', '.join(RUNTIMES)}."
        raise ValueError(msg)
    if name == "auto" and (os.environ if environ is None else environ).get("RAGEVAL_RUNTIME", "").strip() == "torch":
        name = "torch"
    on_cpu = str(device) == "cpu" and precision in _NUMPY_PRECISIONS
    if name == "auto":
        return "numpy" if on_cpu else "torch"
    if name == "numpy" and not on_cpu:
        msg = (
            f"The numpy runtime runs on the CPU in float32; got device {device!r}, precision {precision!r}. "
            "Use runtime 'torch'."
        )
        raise ValueError(msg)
    return name
