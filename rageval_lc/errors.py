"""Exceptions raised by rageval_lc.

Bad input raises the built-in ``ValueError`` (a wrong value) or ``TypeError`` (a wrong type) with a
message naming the field; the classes here cover what is specific to the library. :func:`error_text`
puts an exception on one line: what a row's ``reason`` and the command's stderr show of it.

A pydantic ``ValidationError`` spans several lines (every error, the input, a link); here it is its
first error's field and message, and how many more there are.

Example:
    >>> from pydantic import BaseModel
    >>> class Point(BaseModel):
    ...     x: int
    ...     y: int
    >>> try:
    ...     Point.model_validate({"x": "one"})
    ... except ValueError as exc:
    ...     print(error_text(exc))
    ValidationError: field 'x': Input should be a valid integer, unable to parse string as an integer \
(and 1 more error)
"""

from __future__ import annotations

from pydantic import ValidationError

__all__ = ["MissingDependencyError", "RagevalError", "error_text", "one_line_message"]


class RagevalError(Exception):
    """Base class for errors specific to rageval_lc."""


class MissingDependencyError(RagevalError, ImportError):
    """An optional dependency needed by the feature in use is not installed."""


def one_line_message(exc: BaseException) -> str:
    """The exception's message on one line (a ``ValidationError``: its first error, field and message)."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        if errors:
            first = errors[0]
            field = ".".join(str(part) for part in first.get("loc", ()))
            message = f"field {field!r}: {first['msg']}" if field else str(first["msg"])
            more = len(errors) - 1
            return message + (f" (and {more} more error{'s' if more != 1 else ''})" if more else "")
    return " ".join(str(exc).split("\n")).strip()


def error_text(exc: BaseException) -> str:
    """``"TypeName: message"`` on one line."""
    return f"{type(exc).__name__}: {one_line_message(exc)}"
