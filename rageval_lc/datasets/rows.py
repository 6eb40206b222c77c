"""Input rows for ``rageval evaluate``: RAGBench rows or generic rows, one JSON object each.

A generic row has ``question``, ``contexts``, ``response``, and optionally ``id``, ``reference``,
``metadata``, ``labels`` (TRACe labels, a mapping) and pre-keyed ``documents_sentences`` /
``response_sentences``. The names ragas and deepeval use are accepted too (:data:`FIELD_NAMES`:
``user_input`` / ``input``, ``retrieved_contexts`` / ``retrieval_context``, ``actual_output``,
``expected_output``). Any other field is kept under ``metadata["row"]`` so nothing is lost.

Example:
    >>> sample = sample_from_row({"id": 3, "question": "Q?", "contexts": ["A."], "response": "A.", "score": 5})
    >>> sample.id, sample.metadata
    ('3', {'row': {'score': 5}})
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from rageval_lc._validation import check_mapping
from rageval_lc.datasets.ragbench import is_ragbench_row, ragbench_record
from rageval_lc.files import decode_line, line_sha256, raw_lines
from rageval_lc.schema import RagSample
from rageval_lc.text import KeyedSentences

__all__ = ["FIELD_NAMES", "GENERIC_FIELDS", "sample_from_row", "scored_samples"]

GENERIC_FIELDS = ("id", "question", "contexts", "response", "reference", "metadata", "labels")
#: The names a generic row may give each field: ours, then ragas' (``SingleTurnSample``), then deepeval's
#: (``LLMTestCase``).
FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "question": ("question", "user_input", "input"),
    "contexts": ("contexts", "retrieved_contexts", "retrieval_context"),
    "response": ("response", "actual_output"),
    "reference": ("reference", "expected_output"),
}
_REQUIRED = ("question", "contexts", "response")
_KEYED = ("documents_sentences", "response_sentences")


def sample_from_row(row: object) -> RagSample:
    """Build a sample from a RAGBench row (detected by its fields) or a generic row.

    Raises:
        TypeError: If the row is not a JSON object, or a field has the wrong type.
        ValueError: If a required field is missing (the message lists the accepted names) or empty, or
            two names of one field hold different values.
    """
    row = check_mapping(row, name="row", caller="sample_from_row")
    if is_ragbench_row(row):
        return ragbench_record(row).sample
    row = _canonical_names(row)
    if "labels" in row and row["labels"] is not None:
        check_mapping(row["labels"], name="labels", caller="sample_from_row")
    metadata: dict[str, Any] = dict(check_mapping(row.get("metadata") or {}, name="metadata", caller="sample_from_row"))
    extra = {k: v for k, v in row.items() if k not in GENERIC_FIELDS and k not in _KEYED}
    if extra:
        metadata["row"] = extra
    keyed = None
    if any(field in row for field in _KEYED):
        missing = [field for field in _KEYED if field not in row]
        if missing:
            msg = f"A row with pre-keyed sentences needs both {list(_KEYED)}; this one lacks {missing}."
            raise ValueError(msg)
        keyed = KeyedSentences.from_pairs(row["documents_sentences"], row["response_sentences"])
    fields: dict[str, Any] = {f: row[f] for f in GENERIC_FIELDS if f in row and f != "metadata"}
    return RagSample(**fields, metadata=metadata, keyed_sentences=keyed)


def scored_samples(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, RagSample]]:
    """Yield ``(line, sample)`` for each input line that a result row of ``rows`` was scored from (its ``line``):
    the sample on that line of the input file ``path``, checked by the row's ``input_sha256`` (a row without one
    takes the line as it is). A line that is gone, changed since, or not a readable row yields nothing.

    Raises:
        OSError: If ``path`` cannot be read.
    """
    wanted = {row["line"]: row.get("input_sha256") for row in rows if isinstance(row.get("line"), int)}
    for line_no, raw in raw_lines(path):
        if line_no not in wanted or (wanted[line_no] is not None and line_sha256(raw, line_no) != wanted[line_no]):
            continue
        try:
            sample = sample_from_row(json.loads(decode_line(raw, line_no)))
        except (ValueError, TypeError):  # not a row: its result is an error row, with nothing to show
            continue
        yield line_no, sample


def _canonical_names(row: dict[str, Any]) -> dict[str, Any]:
    """The row with each field under our name (whichever accepted name it came under)."""
    row = dict(row)
    for field, names in FIELD_NAMES.items():
        given = [name for name in names if name in row]
        values = [row[name] for name in given]
        if any(value != values[0] for value in values[1:]):
            msg = f"The row gives the {field} twice, as both {given[0]!r} and {given[1]!r}, with different values."
            raise ValueError(msg)
        for name in given:
            value = row.pop(name)
        if given:
            row[field] = value
    missing = [field for field in _REQUIRED if row.get(field) is None]
    if missing:
        lacks = " and ".join(f"the {f!r} field (accepted names: {', '.join(FIELD_NAMES[f])})" for f in missing)
        msg = f"The row requires {lacks}; or give RAGBench's fields."
        raise ValueError(msg)
    return row
