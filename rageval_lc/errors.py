"""Exceptions raised by rageval_lc.

Bad input raises the built-in ``ValueError`` (a wrong value) or ``TypeError`` (a wrong type) with a
message naming the field; the classes here cover what is specific to the library.
"""

from __future__ import annotations

__all__ = ["MissingDependencyError", "RagevalError"]


class RagevalError(Exception):
    """Base class for errors specific to rageval_lc."""


class MissingDependencyError(RagevalError, ImportError):
    """An optional dependency needed by the feature in use is not installed."""
