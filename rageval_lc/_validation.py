"""Boundary checks shared by the public API, with one message format that names the field.

Example:
    >>> check_str("", name="question", caller="RagSample", allow_empty=False)
    Traceback (most recent call last):
    ...
    ValueError: The 'question' field of RagSample must be a non-empty string. Got '' instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def describe(value: object, limit: int = 60) -> str:
    """Return a short ``repr`` of a received value for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_str(value: object, *, name: str, caller: str, allow_empty: bool = True) -> str:
    """Return ``value`` if it is a string (non-blank unless ``allow_empty``), else raise."""
    if not isinstance(value, str):
        msg = f"The {name!r} field of {caller} must be a str. Got {type(value).__name__} ({describe(value)}) instead."
        raise TypeError(msg)
    if not allow_empty and not value.strip():
        msg = f"The {name!r} field of {caller} must be a non-empty string. Got {describe(value)} instead."
        raise ValueError(msg)
    return value


def check_mapping(value: object, *, name: str, caller: str) -> Mapping[str, Any]:
    """Return ``value`` if it is a mapping, else raise ``TypeError``."""
    if not isinstance(value, Mapping):
        msg = (
            f"The {name!r} field of {caller} must be a mapping (a JSON object). "
            f"Got {type(value).__name__} ({describe(value)}) instead."
        )
        raise TypeError(msg)
    return value


def check_choice(value: object, choices: tuple[str, ...], *, name: str, caller: str) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError``."""
    if value not in choices:
        msg = f"The {name!r} parameter of {caller} must be one of {list(choices)}. Got {describe(value)} instead."
        raise ValueError(msg)
    return value  # type: ignore[return-value]


def check_positive(value: object, *, name: str, caller: str) -> float:
    """Return ``value`` as a float if it is a finite number > 0, else raise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        msg = f"The {name!r} parameter of {caller} must be a number. Got {type(value).__name__} instead."
        raise TypeError(msg)
    if not value > 0 or value == float("inf"):
        msg = f"The {name!r} parameter of {caller} must be a finite number > 0. Got {value!r} instead."
        raise ValueError(msg)
    return float(value)
