"""Samples from whatever a user holds: what the Python entry points accept, the rows ``rageval evaluate`` reads.

:func:`read_samples` takes a list (or any iterable) of :class:`~rageval_lc.schema.RagSample` objects, of rows (dicts in
our field names, ragas' or deepeval's: :data:`~rageval_lc.datasets.rows.FIELD_NAMES`; RAGBench rows), of ragas or
deepeval sample objects (``SingleTurnSample``, ``LLMTestCase``: read by duck typing, neither is imported), a pandas
``DataFrame`` with those columns, or a ragas / deepeval ``EvaluationDataset`` (its ``samples`` / ``test_cases``).
Every item is read before anything is scored: one that cannot be read raises a ``ValueError`` naming its index and
what it lacks. A sample without an id is given its index, so every result can be told apart.

Example:
    >>> rows = [{"user_input": "Q?", "retrieved_contexts": ["A."], "response": "A."},
    ...         {"input": "Q?", "retrieval_context": ["A."], "actual_output": "A.", "id": "b"}]
    >>> [(s.id, s.question, s.contexts) for s in read_samples(rows)]
    [('0', 'Q?', ['A.']), ('b', 'Q?', ['A.'])]
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any

from rageval_lc.datasets.rows import FIELD_NAMES, sample_from_row
from rageval_lc.schema import RagSample

__all__ = ["dataset_items", "read_samples", "row_of", "to_sample"]

#: The attributes read from a sample object that is neither a mapping nor a pydantic model nor a dataclass.
_ATTRIBUTES = ("id", "metadata", "labels", *(name for names in FIELD_NAMES.values() for name in names))
#: Where a dataset object keeps its samples: ragas' ``EvaluationDataset``, deepeval's ``EvaluationDataset``.
_DATASET_ITEMS = ("samples", "test_cases")


def read_samples(data: object) -> list[RagSample]:
    """Every sample in ``data`` (see the module docstring for what it may be), in order.

    Raises:
        ValueError: If an item cannot be read: the message names its index and the fields it lacks.
        TypeError: If ``data`` is one sample or one row rather than a collection of them, or not iterable.
    """
    if isinstance(data, RagSample | Mapping):
        msg = (
            f"Pass a list of samples or rows; got one {type(data).__name__}. "
            "Wrap it in a list, or score it alone with evaluate_sample."
        )
        raise TypeError(msg)
    samples = []
    for index, item in enumerate(dataset_items(data)):
        sample = to_sample(item, index=index)
        samples.append(sample if sample.id is not None else sample.model_copy(update={"id": str(index)}))
    return samples


def to_sample(item: object, *, index: int | None = None) -> RagSample:
    """One item as a sample: a :class:`RagSample` as it is, anything else through :func:`row_of` and
    :func:`~rageval_lc.datasets.rows.sample_from_row`.

    Raises:
        ValueError: If the item cannot be read (``index``, when given, is named in the message).
    """
    if isinstance(item, RagSample):
        return item
    where = "" if index is None else f"Row {index} cannot be read: "
    try:
        return sample_from_row(row_of(item))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}{exc}") from exc


def row_of(item: object) -> dict[str, Any]:
    """A row (a dict) from a mapping, a pydantic model (ragas' ``SingleTurnSample``, deepeval's ``LLMTestCase``),
    a dataclass or any object with the fields' attributes; fields that are None (or NaN, as pandas fills gaps)
    are left out, and so are an object's empty lists and dicts (its defaults); array-like values become lists.

    Example:
        >>> class TestCase:  # deepeval's names, duck-typed
        ...     input, actual_output, retrieval_context, expected_output = "Q?", "A.", ["A."], None
        >>> row_of(TestCase())
        {'input': 'Q?', 'retrieval_context': ['A.'], 'actual_output': 'A.'}
    """
    if isinstance(item, Mapping):
        return {str(key): _plain(value) for key, value in item.items() if not _missing(value)}
    if callable(getattr(item, "model_dump", None)):
        raw = item.model_dump()  # type: ignore[attr-defined]
    elif dataclasses.is_dataclass(item) and not isinstance(item, type):
        raw = dataclasses.asdict(item)
    else:
        raw = {name: getattr(item, name, None) for name in _ATTRIBUTES}
        if all(value is None for value in raw.values()):
            msg = f"A {type(item).__name__} is not a sample, a row, or an object with a sample's fields."
            raise TypeError(msg)
    return {str(key): _plain(value) for key, value in raw.items() if not _missing(value) and not _empty(value)}


def dataset_items(data: object) -> Iterable[object]:
    """The samples or rows a dataset object holds (its ``samples`` or ``test_cases``, a DataFrame's records), or
    the iterable itself; a TypeError for anything else."""
    for attribute in _DATASET_ITEMS:
        items = getattr(data, attribute, None)
        if isinstance(items, Iterable) and not isinstance(items, str | bytes):
            return items
    if callable(getattr(data, "to_dict", None)) and hasattr(data, "columns"):  # a pandas DataFrame
        return data.to_dict(orient="records")  # type: ignore[attr-defined]
    if not isinstance(data, Iterable) or isinstance(data, str | bytes):
        msg = f"Expected samples or rows (a list, a DataFrame, a dataset); got a {type(data).__name__}."
        raise TypeError(msg)
    return data


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _empty(value: object) -> bool:
    return isinstance(value, list | tuple | dict) and not value


def _plain(value: object) -> object:
    """Array-likes (numpy arrays in a DataFrame's cells) as lists, numpy scalars as Python ones."""
    tolist = getattr(value, "tolist", None)
    return tolist() if callable(tolist) else value
