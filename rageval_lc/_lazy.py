"""Names a package exports without importing their modules until first asked for (PEP 562); and DSPy, imported
with LiteLLM kept offline (:func:`import_dspy`).

Example:
    >>> __getattr__ = lazy_exports("demo", {"sqrt": "math"})
    >>> __getattr__("sqrt")(9.0)
    3.0
    >>> __getattr__("nope")
    Traceback (most recent call last):
    AttributeError: module 'demo' has no attribute 'nope'
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

__all__ = ["import_dspy", "lazy_exports", "local_litellm_cost_map"]


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``where[name]`` (a module path) when ``name`` is first asked for."""

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(where[name]), name)
        msg = f"module {package!r} has no attribute {name!r}"
        raise AttributeError(msg)

    return __getattr__


def local_litellm_cost_map() -> None:
    """Have LiteLLM (which DSPy imports on its first model call) read the model cost map it ships with, unless the
    user set ``LITELLM_LOCAL_MODEL_COST_MAP``: otherwise its import fetches the map from GitHub, printing warnings
    and waiting seconds where there is no network. Called before DSPy is imported, by every path of the package
    that imports it (:mod:`rageval_lc.judges.llm` and :func:`import_dspy`)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def import_dspy() -> ModuleType:
    """``dspy``, imported after :func:`local_litellm_cost_map`."""
    local_litellm_cost_map()
    return importlib.import_module("dspy")
