"""Names a package exports without importing their modules until first asked for (PEP 562).

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
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``where[name]`` (a module path) when ``name`` is first asked for."""

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(where[name]), name)
        msg = f"module {package!r} has no attribute {name!r}"
        raise AttributeError(msg)

    return __getattr__
