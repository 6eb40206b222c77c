"""Comparing computed floats with a stated tolerance (docs/development.md, "Floats in tests").

A float that comes out of a model, or out of arithmetic done along two paths (batched and row by row, in worker
processes and in threads, on Ray and locally, before and after a refactor), is compared within :data:`ABS`;
verdicts, statuses, counts, keys and words are compared exactly.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Iterable, Mapping
from typing import Any

#: The absolute tolerance for computed floats: a matrix product summed in another order moves the sixth or
#: seventh decimal, a real change moves far more.
ABS = 1e-5

#: The tolerance for a model's probability computed in worker processes against one process: torch on one core per
#: worker sums in another order than on two (seen: adherence_probability 0.698347 vs 0.698340).
WORKERS_ABS = 1e-4

#: The tolerance for two paths through the same numpy operations on the same numbers (the bootstrap's resamples in
#: blocks against all at once, or written out again in a test): only the order of a sum may differ, which moves the
#: last bits; a wider tolerance could hide a resample dropped at a block's edge (it moves an interval by ~1e-6).
SAME_DRAWS_ABS = 1e-12


def _plain(value: Any) -> Any:
    """A pydantic model or a dataclass as its fields, a numpy array as a list; anything else as it is."""
    if hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0:
        return value.tolist()
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return value.model_dump()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def close_structure_differences(got: Any, expected: Any, *, abs: float = ABS, where: str = "") -> list[str]:
    """Where ``got`` and ``expected`` differ: floats by more than ``abs``, anything else at all.

    Dicts must have the same keys, lists and tuples the same length; a float (or an int against a float) is close
    within ``abs`` (two NaNs agree); a string is its expected one word for word, a figure in it (a reason's
    "probability 0.672") within one unit of its last digit (:func:`same_printed_line`); bools, None and ints
    against ints are equal exactly.

    >>> close_structure_differences({"a": [0.5019122500000001, "ok"]}, {"a": [0.50190925, "ok"]})
    []
    >>> close_structure_differences({"a": [0.52, 3]}, {"a": [0.5, 4]})
    ['[a][0]: 0.52 != 0.5 (within 1e-05)', '[a][1]: 3 != 4']
    >>> close_structure_differences(["probability 0.672", "ok"], ["probability 0.671", "fine"])
    ["[1]: 'ok' != 'fine'"]
    """
    got, expected = _plain(got), _plain(expected)
    if isinstance(got, Mapping) and isinstance(expected, Mapping):
        if set(got) != set(expected):
            return [f"{where or 'top'}: keys {sorted(map(str, got))} != {sorted(map(str, expected))}"]
        return [
            d
            for k in expected
            for d in close_structure_differences(got[k], expected[k], abs=abs, where=f"{where}[{k}]")
        ]
    if isinstance(got, list | tuple) and isinstance(expected, list | tuple):
        if len(got) != len(expected) or type(got) is not type(expected):
            return [f"{where or 'top'}: {got!r} != {expected!r}"]
        pairs = zip(got, expected, strict=True)
        return [
            d
            for i, (g, e) in enumerate(pairs)
            for d in close_structure_differences(g, e, abs=abs, where=f"{where}[{i}]")
        ]
    if (
        _is_number(got)
        and _is_number(expected)
        and not (isinstance(got, numbers.Integral) and isinstance(expected, numbers.Integral))
    ):
        if math.isnan(got) and math.isnan(expected):
            return []
        return (
            []
            if math.isclose(got, expected, rel_tol=0.0, abs_tol=abs)
            else [f"{where}: {got!r} != {expected!r} (within {abs})"]
        )
    if isinstance(got, str) and isinstance(expected, str):  # a reason quoting a figure: number by number
        return [] if same_printed_line(expected, got) else [f"{where or 'top'}: {got!r} != {expected!r}"]
    if got != expected:
        return [f"{where or 'top'}: {got!r} != {expected!r}"]
    return []


def assert_close_structure(got: Any, expected: Any, *, abs: float = ABS, where: str = "") -> None:
    """Assert ``got`` is ``expected``: floats within ``abs``, everything else exactly (dicts, lists and tuples
    walked; pydantic models and dataclasses by their fields).

    >>> assert_close_structure({"rag-neg-01": ("ok", 0.9537405)}, {"rag-neg-01": ("ok", 0.953738)})
    >>> assert_close_structure({"rag-neg-01": ("undetermined", 0.9537405)}, {"rag-neg-01": ("ok", 0.953738)})
    Traceback (most recent call last):
    AssertionError: [rag-neg-01][0]: 'undetermined' != 'ok'
    """
    differences = close_structure_differences(got, expected, abs=abs, where=where)
    if differences:
        raise AssertionError("\n".join(differences))


# --- printed outputs --------------------------------------------------------------------------------------

#: A number with a fractional part, standing alone (not a piece of a version such as 2.13.0 or of a word).
DECIMAL = re.compile(r"(?<![\w.])([-+]?\d+\.\d+)(?!\.?\d)(?!\w)")


def same_printed_line(shown: str, printed: str) -> bool:
    """A printed line is the shown one: the words and the layout exactly, each number shown with two or more
    decimals within one unit of its last shown digit (a rounded figure: another processor sums in another order),
    every other number exactly (counts, and Python's 1.0 or 0.5 of exact arithmetic). Trailing spaces aside.

    >>> same_printed_line("covidqa:1058   0.222   0.701   yes", "covidqa:1058   0.222   0.702   yes")
    True
    >>> same_printed_line("covidqa:1058   0.222   0.701   yes", "covidqa:1058   0.222   0.703   yes")
    False
    >>> same_printed_line("8/8  mean 0.708", "7/8  mean 0.708"), same_printed_line("1.0 high", "0.9 high")
    (False, False)
    >>> same_printed_line("score 0.70", "score 0.7"), same_printed_line("torch==2.13.0", "torch==2.13.1")
    (False, False)
    """
    shown_parts, printed_parts = DECIMAL.split(shown.rstrip()), DECIMAL.split(printed.rstrip())
    if len(shown_parts) != len(printed_parts):
        return False
    for i, (want, got) in enumerate(zip(shown_parts, printed_parts, strict=True)):
        if i % 2 == 0 or len(want.split(".")[1]) < 2:  # words and layout; a number with one decimal
            if want != got:
                return False
            continue
        decimals = len(want.split(".")[1])
        if len(got.split(".")[1]) != decimals or abs(float(got) - float(want)) > 10**-decimals * (1 + 1e-9):
            return False
    return True


def assert_printed_lines(shown: Iterable[str], printed: Iterable[str]) -> None:
    """Each printed line is its shown line (:func:`same_printed_line`), and there are as many."""
    shown, printed = list(shown), list(printed)
    assert len(printed) == len(shown), f"printed {printed!r}, the guide shows {shown!r}"
    for want, got in zip(shown, printed, strict=True):
        assert same_printed_line(want, got), f"printed {got!r}, the guide shows {want!r}"
