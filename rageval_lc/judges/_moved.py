"""The judges' old module paths, kept importable for one release after ``judges/`` split into two halves.

The offline judge's modules moved into :mod:`rageval_lc.judges.offline` and the LLM judge's into
:mod:`rageval_lc.judges.llm` (:data:`MOVED`, old name → new name). :class:`MovedModuleFinder`, installed on
``sys.meta_path`` when :mod:`rageval_lc.judges` is imported, answers an old name with the module at its new
place: the same module object, registered under both names. So ``from rageval_lc.judges.local import
LocalJudge``, a ``monkeypatch`` target string on an old path and a judge pickled before the move (its classes
named by their old modules) all keep working. Nothing is imported until an old name is asked for, and nothing
warns: the deprecation is stated in the docs.

Example:
    >>> import rageval_lc.judges.devices as old
    >>> from rageval_lc.judges.offline import devices
    >>> old is devices
    True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["MOVED", "MovedModuleFinder", "install"]

_OLD = "rageval_lc.judges."
_OFFLINE = "rageval_lc.judges.offline."
_LLM = "rageval_lc.judges.llm."

#: Old module name → the module's name now.
MOVED: dict[str, str] = {
    _OLD + "local": _OFFLINE + "judge",
    _OLD + "local_align": _OFFLINE + "align",
    _OLD + "local_contradiction": _OFFLINE + "contradiction",
    _OLD + "local_features": _OFFLINE + "features",
    _OLD + "local_limits": _OFFLINE + "limits",
    _OLD + "local_model": _OFFLINE + "model",
    _OLD + "local_nli": _OFFLINE + "nli_pass",
    _OLD + "local_reference": _OFFLINE + "reference",
    _OLD + "local_slots": _OFFLINE + "slots",
    _OLD + "nli": _OFFLINE + "nli",
    _OLD + "encoder": _OFFLINE + "encoder",
    _OLD + "embeddings": _OFFLINE + "embeddings",
    _OLD + "devices": _OFFLINE + "devices",
    _OLD + "heap": _OFFLINE + "heap",
    _OLD + "quiet": _OFFLINE + "quiet",
    _OLD + "dspy_judge": _LLM + "dspy_judge",
    _OLD + "signatures": _LLM + "signatures",
    _OLD + "modules": _LLM + "modules",
    _OLD + "optimize": _LLM + "optimize",
    _OLD + "langchain_lm": _LLM + "langchain_lm",
    _OLD + "align_llm": _LLM + "align",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name of :data:`MOVED` and loads it as the module at its new name."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # a placeholder, replaced by the real module in exec_module

    def exec_module(self, module: ModuleType) -> None:
        # The import system returns what sys.modules holds under the old name once this returns: the module at
        # its new place, whose own name, __spec__ and __file__ stay as they are.
        sys.modules[module.__name__] = importlib.import_module(MOVED[module.__name__])


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once), before any leftover file at an old path is found."""
    if not any(type(finder).__name__ == MovedModuleFinder.__name__ for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
