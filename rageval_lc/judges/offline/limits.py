"""What the offline judge will not read, and the verdict it gives instead of a crash or a run without end.

* **Too long.** A judgement whose texts (question, contexts, response, reference, claims) hold more than
  ``judge.max_input_chars`` characters together — :data:`MAX_INPUT_CHARS`, 200,000 by default, about
  50,000 word pieces; the longest RAGBench row holds 58,000 — is an ``error`` that says so, given before any
  sentence is split or encoded. Split such documents, or raise the judge's ``max_input_chars``.
* **Nothing to read.** Contexts in which the model finds no word piece (a word of more than 100 characters
  reads as unknown, zero-width and control characters are dropped) give ``undetermined``: there is no
  evidence to judge against, as with no contexts at all.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> input_chars((RagSample(question="Why?", contexts=["Because."], response="So."),))
    15
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from typing import Any, Literal

from rageval_lc.judges.base import JUDGEMENTS
from rageval_lc.schema import RagSample
from rageval_lc.verdicts import Judgement

__all__ = ["MAX_INPUT_CHARS", "NO_READABLE_WORD", "UnreadableInput", "guard_judgements", "input_chars", "too_long"]

MAX_INPUT_CHARS = 200_000
NO_READABLE_WORD = (
    "The contexts hold no word the model can read (a word of more than 100 characters reads as unknown; "
    "zero-width and control characters are dropped): there is nothing to judge against."
)
_state = threading.local()  # how deep inside a guarded judgement this thread is


class UnreadableInput(ValueError):
    """Input the offline judge cannot judge; ``status`` is what the judgement becomes (with the message as reason)."""

    def __init__(self, message: str, status: Literal["undetermined", "error"] = "undetermined") -> None:
        super().__init__(message)
        self.status = status


def input_chars(value: Any) -> int:
    """Characters in every text of ``value``: strings, samples, and lists, tuples or mappings of them."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, RagSample):
        return input_chars((value.question, value.response, value.contexts, value.reference or ""))
    if isinstance(value, Mapping):
        return sum(input_chars(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(input_chars(v) for v in value)
    return 0


def too_long(judge: Any, value: Any) -> UnreadableInput | None:
    """The error for ``value`` when its texts exceed the judge's ``max_input_chars``, else None."""
    limit = getattr(judge, "max_input_chars", MAX_INPUT_CHARS)
    size = input_chars(value)
    if limit is None or size <= limit:
        return None
    # numbers without separators: "10,500,000" would read as an HTTP 500 to the retry logic
    msg = (
        f"The texts of this judgement hold {size} characters; the offline judge reads at most {limit} "
        "(its max_input_chars): split or shorten the documents."
    )
    return UnreadableInput(msg, status="error")


def _guarded(name: str, method: Callable[..., Judgement[Any]]) -> Callable[..., Judgement[Any]]:
    @functools.wraps(method)
    def judge_within_limits(self: Any, *args: Any, **kwargs: Any) -> Judgement[Any]:
        if getattr(_state, "depth", 0):  # inside another judgement: the outermost one answers
            return method(self, *args, **kwargs)
        _state.depth = 1
        try:
            refused = too_long(self, (args, kwargs))
            if refused is not None:
                raise refused
            return method(self, *args, **kwargs)
        except UnreadableInput as exc:
            return Judgement(name=name, status=exc.status, reason=str(exc))
        finally:
            _state.depth = 0

    return judge_within_limits


def guard_judgements(cls: type) -> type:
    """Class decorator: each judgement the class defines answers oversized or unreadable input with a
    non-``ok`` :class:`~rageval_lc.verdicts.Judgement` (see the module) instead of raising."""
    for name in JUDGEMENTS:
        method = cls.__dict__.get(name)
        if callable(method):
            setattr(cls, name, _guarded(name, method))
    return cls
