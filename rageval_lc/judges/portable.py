"""Judges travel by pickle — to worker processes and Ray actors — without their locks, caches and loaded
models: those are made afresh on arrival, and a model loads again on first use there.

Example:
    >>> import copy, threading
    >>> class Counter(Portable):
    ...     _fresh = {"_lock": threading.Lock, "_seen": dict}
    ...     def __init__(self):
    ...         self.name, self._lock, self._seen = "c", threading.Lock(), {"a": 1}
    >>> sorted(Counter().__getstate__())  # what pickle (and copy) carry
    ['name']
    >>> moved = copy.copy(Counter())
    >>> moved.name, moved._seen, type(moved._lock).__name__
    ('c', {}, 'lock')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

__all__ = ["Portable"]


class Portable:
    """Pickles without the attributes named in ``_fresh``; unpickling sets each to its factory's value."""

    #: attribute -> what it is set to after unpickling (a lock, an empty cache, None for a model not loaded)
    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name not in self._fresh}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name, make in self._fresh.items():
            setattr(self, name, make())
